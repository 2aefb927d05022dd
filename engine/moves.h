#pragma once
// Moves: the children of a whole position under a rule.
//
// The rules so far take tokens from one heap, so a child is "lower heap value v
// to v - s". Children are produced as ranks, computed incrementally from the
// parent's rank, and each child exactly once: among equal heaps only the first
// is lowered (5 5 has one child per amount, not two). Distinct (heap value,
// amount) pairs always give distinct multisets, so no further de-duplication
// is needed. Rules that touch several heaps at once will add their own
// generator beside this one; the solver is written against the callback shape,
// not against the independence of heaps.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/rules.h"
#include "engine/universe.h"

namespace nimtb::engine {

// One move of a position: take `amount` tokens from a heap of `heap_size`.
struct Move {
    uint32_t heap_size;
    uint32_t amount;
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

// Calls visit(heap_size, amount, child_rank) for every child of the sorted,
// padded position `a` of rank `rank`. ALL: every amount is allowed (Nim).
//
// Lowering a[i] to w moves w down to sorted index p (the number of heaps below
// i that are <= w) and shifts a[p..i-1] up one index; the rank changes by
//   - term(i, a[i]) + term(p, w) + sum_{j=p}^{i-1} (term(j+1, a[j]) - term(j, a[j])).
// Amounts ascend, so w descends and p only moves down: the shift sum is kept
// incrementally and each child costs one table read.
template <bool ALL, class Visit>
inline void for_each_take_child(const Universe& u, const TakeAmounts& amounts, const uint32_t* a,
                                uint64_t rank, Visit&& visit) {
    const unsigned k = u.max_heaps();
    const uint32_t* list = amounts.list.data();
    const size_t list_size = amounts.list.size();
    for (unsigned i = 0; i < k; ++i) {
        const uint32_t v = a[i];
        if (v == 0 || (i > 0 && a[i - 1] == v)) continue;
        uint64_t base = rank - u.term(i, v);
        unsigned p = i;
        if constexpr (ALL) {
            // Every w from v-1 down to 0, in runs of constant p: within a run
            // the children are base + term(p, w), one branch-free loop each.
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
            for (size_t m = 0; m < list_size; ++m) {
                const uint32_t s = list[m];
                if (s > v) break;
                const uint32_t w = v - s;
                while (p > 0 && a[p - 1] > w) {
                    base += u.term(p, a[p - 1]) - u.term(p - 1, a[p - 1]);
                    --p;
                }
                visit(v, s, base + u.term(p, w));
            }
        }
    }
}

// A move in words, naming the heap by its size as a person sees the
// position: "take 2 from the 5". Among equal heaps any one gives the same
// position, so the size names the move exactly.
std::string describe_take(uint32_t heap_size, uint32_t amount);

// Every move of a position (sorted, padded heaps of the universe), in the
// order: heaps ascending, amounts ascending.
class MoveGenerator {
  public:
    MoveGenerator(const Rule& rule, const Universe& universe)
        : universe_(universe), amounts_(rule, universe.max_heap_size()) {}

    void moves(std::span<const uint32_t> sorted, std::vector<Move>& out) const;
    std::vector<Move> moves(std::span<const uint32_t> sorted) const {
        std::vector<Move> out;
        moves(sorted, out);
        return out;
    }

    const TakeAmounts& amounts() const { return amounts_; }
    const Universe& universe() const { return universe_; }

  private:
    const Universe& universe_;
    TakeAmounts amounts_;
};

}  // namespace nimtb::engine
