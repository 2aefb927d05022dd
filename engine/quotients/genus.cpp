#include "engine/quotients/genus.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <set>

#include "engine/base/errors.h"
#include "engine/base/parallel.h"
#include "engine/game/moves.h"
#include "engine/game/universe.h"
#include "engine/quotients/monoid.h"

namespace nimtb::engine {

namespace {

// Single heaps (a rule whose moves leave at most one heap) and their moves,
// each heap's options as smaller heaps.
struct Closure {
    std::vector<uint64_t> first;  // options of heap h: option[first[h] .. first[h + 1])
    std::vector<uint32_t> option;
};

// Past this many moves in all (4 bytes each) the closure is refused.
constexpr uint64_t MAX_MOVES = 400'000'000;
// Past this many bytes of γ values (sums) the computation is refused.
constexpr uint64_t MAX_GENUS_BYTES = uint64_t{4} << 30;

void check_cancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

Closure closure_of(const Rule& rule, uint32_t max_heap, const GenusOptions& options) {
    Closure c;
    c.first.reserve(size_t{max_heap} + 2);
    c.first.push_back(0);
    // A take family's amounts are listed once (asking the rule of each
    // amount of each heap would cost max_heap^2 / 2 questions).
    const bool takes = rule.kind() == RuleKind::nim || rule.kind() == RuleKind::subtract ||
                       rule.kind() == RuleKind::allbut;
    const std::vector<uint32_t> amounts =
        takes ? rule.amounts_up_to(max_heap) : std::vector<uint32_t>{};
    if (takes) {
        // Heap h has a move for each amount up to h: count them first.
        const auto moves_to = [&](uint64_t top) {
            uint64_t n = 0;
            for (uint32_t s : amounts) n += s <= top ? top - s + 1 : 0;
            return n;
        };
        if (moves_to(max_heap) > MAX_MOVES) {
            uint64_t lo = 0, hi = max_heap;  // the largest heap whose moves fit
            while (lo < hi) {
                const uint64_t mid = (lo + hi + 1) / 2;
                if (moves_to(mid) <= MAX_MOVES)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            throw ResourceError(fmt::format(
                "the genus of heaps up to {} needs {} moves; at most {} are held, which reach "
                "heap {}: ask for fewer heaps",
                max_heap, moves_to(max_heap), MAX_MOVES, lo));
        }
    }
    for (uint32_t h = 0; h <= max_heap; ++h) {
        if ((h & 0xfff) == 0) check_cancel(options.cancel);
        const uint32_t heap[1] = {h};
        if (takes) {
            for (uint32_t s : amounts) {
                if (s > h) break;
                c.option.push_back(h - s);
            }
        } else {
            for_each_child(rule, std::span<const uint32_t>(heap, 1),
                           [&](std::span<const uint32_t> child) {
                               uint32_t left = 0;
                               for (uint32_t x : child) left += x;  // at most one non-empty heap
                               c.option.push_back(left);
                           });
        }
        if (c.option.size() > MAX_MOVES) {
            throw ResourceError(
                fmt::format("the genus of heaps up to {} needs more than {} moves "
                            "(the limit was passed at heap {}): ask for fewer heaps",
                            max_heap, MAX_MOVES, h));
        }
        c.first.push_back(c.option.size());
    }
    return c;
}

// The least value not in `seen` (values of one position's options).
uint16_t mex(std::vector<uint16_t>& seen) {
    uint64_t mask = 0;
    bool big = false;
    for (uint16_t v : seen) {
        if (v < 64)
            mask |= uint64_t{1} << v;
        else
            big = true;
    }
    if (~mask != 0) {
        const auto m = static_cast<uint16_t>(std::countr_one(mask));
        if (m < 64 || !big) return m;
    }
    std::sort(seen.begin(), seen.end());
    uint16_t m = 0;
    for (uint16_t v : seen) {
        if (v == m)
            ++m;
        else if (v > m)
            break;
    }
    return m;
}

// One layer: the normal values (normal), γ0 (previous null), or γn from γ(n-1).
std::vector<uint16_t> layer(const Closure& c, bool normal, const std::vector<uint16_t>* previous,
                            const std::atomic<bool>* cancel) {
    const size_t n = c.first.size() - 1;
    std::vector<uint16_t> out(n);
    std::vector<uint16_t> seen;
    for (size_t p = 0; p < n; ++p) {
        if ((p & 0xffff) == 0) check_cancel(cancel);
        seen.clear();
        for (uint64_t i = c.first[p]; i < c.first[p + 1]; ++i) seen.push_back(out[c.option[i]]);
        if (previous) {
            seen.push_back((*previous)[p]);
            seen.push_back(static_cast<uint16_t>((*previous)[p] ^ 1));
        } else if (!normal && seen.empty()) {
            out[p] = 1;  // misère: no move, the player to move wins
            continue;
        }
        const uint16_t m = mex(seen);
        if (m == std::numeric_limits<uint16_t>::max())
            throw ResourceError("a genus value passed 65534");
        out[p] = m;
    }
    return out;
}

// Where γ0 γ1 ... (given to γ(from+1)) alternate from, given that they do
// from `from`: the least s with γ(k+2) = γk for every k >= s.
template <class Gammas>
uint32_t alternating_from(const Gammas& g, uint32_t from) {
    while (from > 0 && g[from + 1] == g[from - 1]) --from;
    return from;
}

// Each heap's superscript from its γ0 γ1 ... (at least alternates_from + 2
// of them): up to the first pair of its alternating tail.
void cut_superscripts(GenusTable& t, std::vector<uint32_t> normal,
                      std::vector<std::vector<uint32_t>> gammas) {
    for (size_t h = 0; h < gammas.size(); ++h) {
        std::vector<uint32_t>& g = gammas[h];
        g.resize(alternating_from(g, t.alternates_from) + 2);
        t.heaps.push_back(Genus{normal[h], std::move(g)});
    }
}

// --- Sums of heaps, for a rule that splits them ---
//
// A heap that is, as a game, literally *0 (no move), *1 (every option made
// of *0 heaps) or *2 (options made of *0 heaps, and of *0 heaps and one *1
// heap, both kinds) is left out of the positions: a *0 changes nothing,
// γn(X + *1) = γn(X) xor 1 by the lemma, and γn(X + *2) = γ(n+1)(X) by the
// definition. The positions are then the multisets of the other heaps of
// at most max_heap tokens in all (Kayles: heaps of 3 or more, 40 million
// positions to heap 100 where every sum would be 1.6 billion).

enum class Star : uint8_t { zero, one, two, other };

// An option of a heap: its parts that are no *0, *1 or *2 (largest first),
// how many of its parts are *1 and *2, and how many tokens of the heap the
// others leave out (a sum with the option in place of the heap has that
// many fewer tokens).
struct Reduced {
    Heaps others;
    uint32_t ones = 0, twos = 0;
    uint64_t fewer = 0;
};

// γn of a position whose γ0..γK are stored: past K, by the alternation.
size_t within(size_t n, uint32_t copies) {
    return n > copies ? copies - ((n - copies) & 1) : n;
}

// The positions, ranked: those of t tokens from offset[t], each multiset
// p1 >= p2 >= ... ranked by its largest part first (fewer before more),
// then by the rest in the same way. below(s, i): the multisets of s tokens
// whose parts are all among the first i other heaps (i past those that fit
// in s: all of them).
struct Sums {
    std::vector<Star> star;                     // heaps 0..max_heap
    std::vector<uint32_t> normal;               // normal-play values of heaps 0..max_heap
    std::vector<std::vector<Reduced>> options;  // of each heap (the other heaps')
    std::vector<uint32_t> others;               // the other heaps, ascending
    std::vector<uint32_t> index;                // heap -> 1 + its index in `others` (0: a star)
    std::vector<std::vector<uint64_t>> rows;    // rows[s][i] = below(s, i), i <= others that fit
    std::vector<uint64_t> offset;               // offset[t]: positions of fewer than t tokens
    // Some move splits a heap and takes nothing (Grundy's game, 4.7): it
    // lowers the rank within one number of tokens, not the tokens.
    bool keeps_tokens = false;

    uint64_t below(uint64_t s, size_t i) const {
        const std::vector<uint64_t>& row = rows[s];
        return row[std::min(i, row.size() - 1)];
    }
    uint64_t size() const { return offset.back(); }
};

// The heaps 1..max_heap as games and their options, and the positions up to
// each heap, until they pass max_positions: then `fits` is the largest heap
// whose positions fit and the rest is left out.
Sums sums_of(const Rule& rule, uint32_t max_heap, uint64_t max_positions, uint32_t& fits,
             const std::atomic<bool>* cancel) {
    Sums u;
    u.star.push_back(Star::zero);
    u.normal.push_back(0);
    u.options.emplace_back();
    u.index.push_back(0);
    u.rows.push_back({1});
    u.offset = {0, 1};
    fits = 0;
    std::set<Heaps> children;
    std::vector<uint32_t> seen;
    for (uint32_t h = 1; h <= max_heap; ++h) {
        check_cancel(cancel);
        const uint32_t heap[1] = {h};
        children.clear();
        for_each_child(rule, std::span<const uint32_t>(heap, 1),
                       [&](std::span<const uint32_t> child) {
                           Heaps c(child.begin(), child.end());
                           std::erase(c, 0u);
                           std::sort(c.begin(), c.end(), std::greater<>());
                           children.insert(std::move(c));
                       });
        std::vector<Reduced> options;
        bool only_zeros = true, zero_or_one = true, has_zero = false, has_one = false;
        seen.clear();
        for (const Heaps& c : children) {
            Reduced r;
            uint32_t g = 0;
            for (const uint32_t part : c) {
                switch (u.star[part]) {
                    case Star::zero:
                        break;
                    case Star::one:
                        ++r.ones;
                        break;
                    case Star::two:
                        ++r.twos;
                        break;
                    case Star::other:
                        r.others.push_back(part);
                        break;
                }
                g ^= u.normal[part];
            }
            seen.push_back(g);
            r.fewer = h - engine::tokens(r.others);
            u.keeps_tokens = u.keeps_tokens || engine::tokens(c) == h;
            const bool zero = r.others.empty() && r.ones == 0 && r.twos == 0;
            const bool one = r.others.empty() && r.ones == 1 && r.twos == 0;
            only_zeros = only_zeros && zero;
            zero_or_one = zero_or_one && (zero || one);
            has_zero = has_zero || zero;
            has_one = has_one || one;
            options.push_back(std::move(r));
        }
        Star star = Star::other;
        if (children.empty())
            star = Star::zero;
        else if (only_zeros)
            star = Star::one;
        else if (zero_or_one && has_zero && has_one)
            star = Star::two;
        u.star.push_back(star);
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        uint32_t g = 0;
        while (g < seen.size() && seen[g] == g) ++g;
        u.normal.push_back(g);
        if (star == Star::other) {
            u.others.push_back(h);
            u.index.push_back(static_cast<uint32_t>(u.others.size()));
            u.options.push_back(std::move(options));
        } else {
            u.index.push_back(0);
            u.options.emplace_back();
        }
        // Row h: below(h, i) = below(h, i - 1) + below(h - others[i-1], i).
        std::vector<uint64_t> row{0};
        for (size_t i = 1; i <= u.others.size(); ++i) {
            const uint64_t add = u.below(h - u.others[i - 1], i);
            row.push_back(row.back() + add > max_positions ? max_positions + 1 : row.back() + add);
        }
        u.rows.push_back(std::move(row));
        const uint64_t total = u.offset.back() + u.rows.back().back();
        if (total > max_positions) return u;
        u.offset.push_back(total);
        fits = h;
    }
    return u;
}

// The genus of every position, γ0..γK at each (K = copies): in order of
// tokens, the positions of one number of tokens in parallel. Returns false
// when some position has γK != γ(K-2) (more copies are needed); else
// `alternates_from` is the least s with γ(n+2) = γn for n >= s everywhere.
bool sums_genus(const Sums& u, uint32_t copies, std::vector<uint8_t>& gamma,
                uint32_t& alternates_from, const GenusOptions& options) {
    const size_t width = size_t{copies} + 1;
    if (u.size() * width > MAX_GENUS_BYTES) {
        throw ResourceError(fmt::format(
            "the genus of {} positions needs γ0 to γ{} at each, more than {} GiB: ask for fewer "
            "heaps",
            u.size(), copies, MAX_GENUS_BYTES >> 30));
    }
    gamma.assign(u.size() * width, 0);
    std::atomic<bool> unsettled{false};
    std::atomic<uint32_t> from{0};
    std::atomic<bool> too_large{false};
    // The rank of `parts` (largest first) with parts[skip] left out and
    // `more` (largest first) put in, `tokens` tokens in all.
    const auto rank = [&](const Heaps& parts, size_t skip, const Heaps& more, uint64_t tokens) {
        uint64_t r = u.offset[tokens], s = tokens;
        size_t a = 0, b = 0;
        for (;;) {
            if (a == skip) ++a;
            uint32_t y;
            if (a < parts.size() && (b == more.size() || parts[a] >= more[b])) {
                y = parts[a++];
            } else if (b < more.size()) {
                y = more[b++];
            } else {
                return r;
            }
            r += u.below(s, u.index[y] - 1);
            s -= y;
        }
    };
    // One position: its values from its options' (a mex per n).
    const auto solve = [&](const Heaps& parts, uint64_t tokens, uint64_t r) {
        uint8_t* out = &gamma[r * width];
        std::array<std::array<uint64_t, 4>, MAX_GENUS_COPIES + 1> seen{};
        const auto mark = [&](size_t n, uint32_t v) { seen[n][v >> 6] |= uint64_t{1} << (v & 63); };
        for (size_t i = 0; i < parts.size(); ++i) {
            if (i > 0 && parts[i] == parts[i - 1]) continue;
            const uint32_t v = parts[i];
            for (const Reduced& o : u.options[v]) {
                const uint8_t* g = &gamma[rank(parts, i, o.others, tokens - o.fewer) * width];
                for (size_t n = 0; n < width; ++n)
                    mark(n, g[within(n + o.twos, copies)] ^ (o.ones & 1));
            }
        }
        const auto mex = [&](size_t n) {
            uint32_t m = 0;
            for (const uint64_t w : seen[n]) {
                if (~w) return m + static_cast<uint32_t>(std::countr_one(w));
                m += 64;
            }
            return m;
        };
        for (size_t n = 0; n < width; ++n) {
            if (n > 0) mark(n, out[n - 1]), mark(n, out[n - 1] ^ 1u);
            const uint32_t m = parts.empty() && n == 0 ? 1 : mex(n);  // misère: no move wins
            if (m > 254) too_large = true;
            out[n] = static_cast<uint8_t>(std::min<uint32_t>(m, 254));
        }
        if (out[copies] != out[copies - 2]) unsettled = true;
        const uint32_t s = alternating_from(out, copies - 2);
        uint32_t was = from.load(std::memory_order_relaxed);
        while (s > was && !from.compare_exchange_weak(was, s, std::memory_order_relaxed)) {
        }
    };
    solve(Heaps{}, 0, 0);
    for (uint64_t t = 1; t + 1 < u.offset.size(); ++t) {
        check_cancel(options.cancel);
        if (unsettled || too_large) break;
        // The positions of t tokens, by their largest part: each part's own
        // run of ranks, walked in rank order.
        std::vector<size_t> firsts;
        for (size_t i = 1; i <= u.others.size() && u.others[i - 1] <= t; ++i) firsts.push_back(i);
        const auto group = [&](size_t k) {
            const size_t first = firsts[k];
            uint64_t r = u.offset[t] + u.below(t, first - 1);
            Heaps parts{u.others[first - 1]};
            uint64_t count = 0;
            // Parts after the first, largest first, each at most the one before.
            const auto walk = [&](const auto& self, uint64_t s, size_t most) -> void {
                if (s == 0) {
                    if ((++count & 0xfff) == 0 && options.cancel &&
                        options.cancel->load(std::memory_order_relaxed))
                        throw Cancelled();
                    solve(parts, t, r++);
                    return;
                }
                for (size_t i = 1; i <= most && u.others[i - 1] <= s; ++i) {
                    parts.push_back(u.others[i - 1]);
                    self(self, s - u.others[i - 1], i);
                    parts.pop_back();
                }
            };
            walk(walk, t - u.others[first - 1], first);
        };
        // A move that keeps the tokens makes a smaller largest part: the
        // groups in order, then. Else each reads fewer tokens only.
        if (u.keeps_tokens) {
            for (size_t k = 0; k < firsts.size(); ++k) group(k);
        } else {
            sync_parallel_for(size_t{0}, firsts.size(), group);
        }
        if (options.progress) options.progress(u.offset[t + 1], u.size());
    }
    if (too_large) throw ResourceError("a genus value of a sum passed 254");
    alternates_from = from;
    return !unsettled;
}

GenusTable genus_of_sums(const Rule& rule, uint32_t max_heap, const GenusOptions& options) {
    uint32_t fits = 0;
    const Sums u = sums_of(rule, max_heap, options.max_positions, fits, options.cancel);
    if (fits < max_heap) {
        throw ResourceError(fmt::format(
            "the genus of heaps up to {} needs more than {} positions (sums of heaps of at most "
            "{} tokens in all); at most {} are held, which reach heap {}: ask for fewer heaps",
            max_heap, options.max_positions, max_heap, options.max_positions, fits));
    }
    std::vector<uint8_t> gamma;
    uint32_t copies = 5, from = 0;
    while (!sums_genus(u, copies, gamma, from, options)) {
        if (copies + 4 > MAX_GENUS_COPIES) {
            throw ResourceError(fmt::format(
                "the genus superscripts did not settle within {} copies of *2", copies));
        }
        copies += 4;
    }
    GenusTable t;
    t.positions = u.size();
    t.splits = true;
    t.alternates_from = from;
    t.copies = from + 2;
    const size_t width = size_t{copies} + 1;
    const auto at = [&](uint64_t r, size_t n) {
        return uint32_t{gamma[r * width + within(n, copies)]};
    };
    std::vector<std::vector<uint32_t>> gammas(max_heap + 1);
    for (uint32_t h = 0; h <= max_heap; ++h) {
        for (size_t n = 0; n <= t.copies; ++n) {
            switch (u.star[h]) {
                case Star::zero:
                    gammas[h].push_back(at(0, n));
                    break;
                case Star::one:
                    gammas[h].push_back(at(0, n) ^ 1);
                    break;
                case Star::two:
                    gammas[h].push_back(at(0, n + 1));
                    break;
                case Star::other:
                    gammas[h].push_back(at(u.offset[h] + u.below(h, u.index[h] - 1), n));
                    break;
            }
        }
    }
    cut_superscripts(t, u.normal, std::move(gammas));
    return t;
}

}  // namespace

std::string Genus::text() const {
    const bool wide =
        std::any_of(superscript.begin(), superscript.end(), [](uint32_t v) { return v > 9; });
    std::string s;
    for (size_t i = 0; i < superscript.size(); ++i)
        s += fmt::format("{}{}", wide && i ? "," : "", superscript[i]);
    return fmt::format("{}^{{{}}}", normal, s);
}

bool Genus::tame() const {
    const uint32_t g = normal;
    if (superscript == std::vector<uint32_t>{g, g ^ 2}) return true;  // a heap of two or more
    return g <= 1 && superscript == std::vector<uint32_t>{g ^ 1, g ^ 2, g};  // heaps of one
}

void check_one_heap(const Rule& rule) {
    if (!rule.one_heap())
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps; the genus is for rules whose "
                         "moves touch one heap");
}

GenusTable genus_of_heaps(const Rule& rule, uint32_t max_heap, const GenusOptions& options) {
    check_one_heap(rule);
    if (rule.adds_heaps()) return genus_of_sums(rule, max_heap, options);
    const Closure c = closure_of(rule, max_heap, options);
    GenusTable t;
    t.positions = c.first.size() - 1;
    const auto report = [&](uint64_t done) {
        if (options.progress) options.progress(done, MAX_GENUS_COPIES + 2);
    };
    const std::vector<uint16_t> normal = layer(c, true, nullptr, options.cancel);
    report(1);
    // γn of each heap for every n, and the last three layers at every heap.
    std::vector<std::vector<uint32_t>> gammas(max_heap + 1);
    std::vector<std::vector<uint16_t>> last;
    for (uint32_t n = 0;; ++n) {
        if (n > MAX_GENUS_COPIES)
            throw ResourceError(
                fmt::format("the genus superscripts did not settle within {} "
                            "copies of *2",
                            MAX_GENUS_COPIES));
        last.push_back(layer(c, false, n ? &last.back() : nullptr, options.cancel));
        report(n + 2);
        for (uint32_t h = 0; h <= max_heap; ++h) gammas[h].push_back(last.back()[h]);
        if (n >= 2 && last.back() == last[last.size() - 3]) {
            t.copies = n;
            t.alternates_from = n - 2;
            break;
        }
        if (last.size() > 3) last.erase(last.begin());
    }
    cut_superscripts(t, std::vector<uint32_t>(normal.begin(), normal.end()), std::move(gammas));
    return t;
}

}  // namespace nimtb::engine
