#pragma once
// Moves: the children of a whole position under a rule.
//
// One contract for every family: for_each_child() calls a visitor with each
// child of a position, written as the position's heaps after the move. Two
// generators implement it:
// - for_each_take_child (take families in a box): children as ranks,
//   computed incrementally from the parent's rank, each exactly once (among
//   equal heaps only the first is lowered); the solver's hot loop.
// - for_each_child (every family, every universe): children as heap lists,
//   which the caller ranks; a child may come more than once (wythoff from
//   5 5), which changes neither a mex nor a remoteness.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

// One move of a position: the heaps after it, in the order the position was
// given (a split's other parts appended), and the child's rank.
struct Move {
    Heaps result;
    uint64_t child_rank;
};

// The amounts of a rule, expanded once for a universe: the hot loops read this
// list instead of asking the rule. `all` marks Nim within the universe, where
// the amount is the loop counter itself and the list need not be read.
struct TakeAmounts {
    TakeAmounts(const Rule& rule, uint32_t max_heap_size)
        : list(rule.amounts_up_to(max_heap_size)), all(rule.allows_all_up_to(max_heap_size)) {}
    std::vector<uint32_t> list;
    bool all;
};

// Calls visit(amount, child_rank) for every amount s of `list` (ascending,
// `size` of them) with s <= a[i]: the children of the sorted, padded
// position `a` that lower heap i, whose rank without that heap's term is
// `base` (rank - term(i, a[i])).
//
// Lowering a[i] to w moves w down to sorted index p (the number of heaps below
// i that are <= w) and shifts a[p..i-1] up one index; the rank changes by
//   - term(i, a[i]) + term(p, w) + sum_{j=p}^{i-1} (term(j+1, a[j]) - term(j, a[j])).
// Amounts ascend, so w descends and p only moves down: the shift sum is kept
// incrementally and each child costs one table read.
template <class Visit>
inline void for_each_amount_of_heap(const Universe& u, const uint32_t* list, size_t size,
                                    const uint32_t* a, unsigned i, uint64_t base, Visit&& visit) {
    const uint32_t v = a[i];
    unsigned p = i;
    for (size_t m = 0; m < size; ++m) {
        const uint32_t s = list[m];
        if (s > v) break;
        const uint32_t w = v - s;
        while (p > 0 && a[p - 1] > w) {
            base += u.term(p, a[p - 1]) - u.term(p - 1, a[p - 1]);
            --p;
        }
        visit(s, base + u.term(p, w));
    }
}

// Calls visit(heap_size, amount, child_rank) for every child of the sorted,
// padded position `a` of rank `rank`, each once (among equal heaps only the
// first is lowered). ALL: every amount is allowed (Nim), and the amount is
// the loop counter itself.
template <bool ALL, class Visit>
inline void for_each_take_child(const Universe& u, const TakeAmounts& amounts, const uint32_t* a,
                                uint64_t rank, Visit&& visit) {
    const unsigned k = u.max_heaps();
    for (unsigned i = 0; i < k; ++i) {
        const uint32_t v = a[i];
        if (v == 0 || (i > 0 && a[i - 1] == v)) continue;
        uint64_t base = rank - u.term(i, v);
        if constexpr (ALL) {
            // Every w from v-1 down to 0, in runs of constant p: within a run
            // the children are base + term(p, w), one branch-free loop each.
            unsigned p = i;
            int64_t w = int64_t{v} - 1;
            while (w >= 0) {
                while (p > 0 && a[p - 1] > w) {
                    base += u.term(p, a[p - 1]) - u.term(p - 1, a[p - 1]);
                    --p;
                }
                const int64_t lo = p > 0 ? a[p - 1] : 0;
                const uint64_t* row = u.term_row(p);
                for (int64_t x = w; x >= lo; --x) {
                    visit(v, static_cast<uint32_t>(v - x), base + row[x]);
                }
                w = lo - 1;
            }
        } else {
            for_each_amount_of_heap(u, amounts.list.data(), amounts.list.size(), a, i, base,
                                    [&](uint32_t s, uint64_t c) { visit(v, s, c); });
        }
    }
}

// Lines. In a box, the children of a take rule that lower one heap of size v
// lie on one line: the positions q + {w}, w = 0..H, where q is the position
// without that heap. Where the rule allows every amount above `lag` (up to
// H), the children w < v - lag are a prefix of the line, which a solver can
// summarise once per line instead of visiting each child; the amounts `near`
// (allowed, below lag) it visits one by one. Nim has lag 0 and nothing near;
// allbut:1,2 has lag 2; subtract:1-3 in a box of H = 10 has lag 10 (no
// prefix at all: its children are all near).
struct LineShape {
    uint32_t lag = 0;            // the largest forbidden amount up to H; 0 when none is
    std::vector<uint32_t> near;  // the allowed amounts below lag, ascending
};

// The lines of `rule` in `u`: a take rule in a box has them; other families
// (their moves leave a heap's line or touch several heaps) and total-bounded
// universes (a line's points pass the bound) do not.
std::optional<LineShape> line_shape(const Rule& rule, const Universe& u);

// Calls visit(child) for every move of `heaps` (any order, empty heaps
// allowed) under `rule`. `child` is the position after the move in the same
// order, a split's other parts appended; it is valid during the call only.
// Among equal heaps, one-heap moves touch only the first.
template <class Visit>
void for_each_child(const Rule& rule, std::span<const uint32_t> heaps, Visit&& visit);

// A move of one heap in words, the one wording every answer uses (tables,
// quotients, proven periods): "take 2 from the 5", "take 5 from the 5",
// "split 7 into 3 and 4", "take 1 from the 7, leaving 2 and 4", "take 1 from
// the 9, leaving 2, 3 and 3": what is left, non-empty, in ascending order.
std::string move_phrase(uint64_t heap, std::vector<uint64_t> leaves);

// A move in words, from the position before and after it (as for_each_child
// writes them), naming heaps by their sizes as a person sees them: "take 2
// from the 5", "split 7 into 3 and 4", "take 1 from the 7, leaving 2 and 4",
// "take 3 from the 5 and from the 8", "take 1 from the 3 and 2 from the 5".
std::string describe_move(std::span<const uint32_t> before, std::span<const uint32_t> after);

// The rank of a child written as for_each_child writes it: sorts `child` in
// place and ranks its non-empty heaps. The child must lie in the universe.
uint64_t rank_child(const Universe& u, Heaps& child);

// Throws InputError when a move of `rule` could leave `u` (a split where all
// K heaps are used, or a split in a box), naming the universe that fits.
void check_closed(const Rule& rule, const Universe& u);

// ---- implementation of for_each_child ----

namespace detail {

// Visits child[i] = h - s for every allowed amount s of a take family.
template <class Visit>
void take_from(const Rule& rule, Heaps& child, size_t i, uint32_t h, Visit& visit) {
    for (uint32_t s = 1; s <= h; ++s) {
        if (!rule.allows(s)) continue;
        child[i] = h - s;
        visit(static_cast<const Heaps&>(child));
    }
    child[i] = h;
}

// Visits child[i] = x and new heaps y, left - x - y for 1 <= x <= y <= left - x - y.
template <class Visit>
void split_in_three(Heaps& child, size_t i, uint32_t left, uint32_t h, Visit& visit) {
    for (uint32_t x = 1; 3 * x <= left; ++x) {
        for (uint32_t y = x; x + 2 * y <= left; ++y) {
            child[i] = x;
            child.push_back(y);
            child.push_back(left - x - y);
            visit(static_cast<const Heaps&>(child));
            child.pop_back();
            child.pop_back();
        }
    }
    child[i] = h;
}

// Visits child[i] = x and a new heap h - x for x = 1 .. (h-1)/2 or h/2
// (`unequal`: the two parts must differ).
template <class Visit>
void split(Heaps& child, size_t i, uint32_t left, uint32_t h, bool unequal, Visit& visit) {
    const uint32_t last = unequal ? (left - 1) / 2 : left / 2;
    for (uint32_t x = 1; x <= last; ++x) {
        child[i] = x;
        child.push_back(left - x);
        visit(static_cast<const Heaps&>(child));
        child.pop_back();
    }
    child[i] = h;
}

// Moore's Nim: positive amounts from heaps chosen[0..], then from heaps
// after index `from`, while fewer than k are chosen.
template <class Visit>
void moore(Heaps& child, std::span<const uint32_t> heaps, size_t from, unsigned left, bool any,
           Visit& visit) {
    if (any) visit(static_cast<const Heaps&>(child));
    if (left == 0) return;
    for (size_t i = from; i < heaps.size(); ++i) {
        for (uint32_t s = 1; s <= heaps[i]; ++s) {
            child[i] = heaps[i] - s;
            moore(child, heaps, i + 1, left - 1, true, visit);
        }
        child[i] = heaps[i];
    }
}

}  // namespace detail

template <class Visit>
void for_each_child(const Rule& rule, std::span<const uint32_t> heaps, Visit&& visit) {
    Heaps child(heaps.begin(), heaps.end());
    child.reserve(heaps.size() + 2);
    auto first_of_its_size = [&](size_t i) {
        for (size_t j = 0; j < i; ++j) {
            if (heaps[j] == heaps[i]) return false;
        }
        return true;
    };
    if (rule.kind() == RuleKind::moore) {
        detail::moore(child, heaps, 0, rule.moore_k(), false, visit);
        return;
    }
    for (size_t i = 0; i < heaps.size(); ++i) {
        const uint32_t h = heaps[i];
        if (h == 0 || !first_of_its_size(i)) continue;
        switch (rule.kind()) {
            case RuleKind::nim:
            case RuleKind::subtract:
            case RuleKind::allbut:
            case RuleKind::wythoff:
                detail::take_from(rule.kind() == RuleKind::wythoff ? Rule::nim() : rule, child, i,
                                  h, visit);
                break;
            case RuleKind::lasker:
                detail::take_from(Rule::nim(), child, i, h, visit);
                detail::split(child, i, h, h, false, visit);
                break;
            case RuleKind::grundy:
                detail::split(child, i, h, h, true, visit);
                break;
            case RuleKind::octal:
            case RuleKind::hexadecimal: {
                const std::vector<uint8_t>& d = rule.code_digits();
                if (d[0] & 4) detail::split(child, i, h, h, false, visit);
                if (d[0] & 8) detail::split_in_three(child, i, h, h, visit);
                for (uint32_t k = 1; k < d.size() && k <= h; ++k) {
                    const uint32_t left = h - k;
                    if (left == 0 && (d[k] & 1)) {
                        child[i] = 0;
                        visit(static_cast<const Heaps&>(child));
                        child[i] = h;
                    }
                    if (left >= 1 && (d[k] & 2)) {
                        child[i] = left;
                        visit(static_cast<const Heaps&>(child));
                        child[i] = h;
                    }
                    if (left >= 2 && (d[k] & 4)) detail::split(child, i, left, h, false, visit);
                    if (left >= 3 && (d[k] & 8)) detail::split_in_three(child, i, left, h, visit);
                }
                break;
            }
            case RuleKind::moore:
                break;
        }
    }
    if (rule.kind() == RuleKind::wythoff) {
        // The same amount from two heaps (any two, equal ones included).
        for (size_t i = 0; i < heaps.size(); ++i) {
            for (size_t j = i + 1; j < heaps.size(); ++j) {
                if (heaps[i] == 0 || heaps[j] == 0) continue;
                for (uint32_t s = 1; s <= std::min(heaps[i], heaps[j]); ++s) {
                    child[i] = heaps[i] - s;
                    child[j] = heaps[j] - s;
                    visit(static_cast<const Heaps&>(child));
                }
                child[i] = heaps[i];
                child[j] = heaps[j];
            }
        }
    }
}

}  // namespace nimtb::engine
