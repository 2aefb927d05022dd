#pragma once
// The line kernel: the solver's kernel for take rules in a box, which
// summarises a position's children along lines instead of visiting each.
//
// A position p = q + {v} has, for each distinct heap v, the line of q: the
// positions q + {w}, w = 0..H (moves.h, LineShape). Its children that lower v
// are the line's points w < v - lag (a prefix) and the points v - s for the
// near amounts s. The kernel keeps one aggregate per line, over the points of
// its prefix solved so far:
//   - the set of their values, a bitset of W words (to take the mex of);
//   - the largest remoteness among them;
//   - the smallest remoteness among those of value 0.
// A position's answer combines the aggregates of its K lines and its near
// children: O(K + near) work instead of O(K * H). After it, the point
// v - lag of each of its lines joins that line's aggregate (p itself for
// Nim).
//
// Why this is exact and race-free: along a line, w rises with rank (q + {w}
// is componentwise larger than q + {w - 1}), and the solve order sweeps ranks
// in order within a block and levels in order, so when p is solved each of
// its lines holds exactly the points below v - lag. Two positions of one
// line differ in a single heap, so within a level they lie in one block
// (solve_order.h): a line is only ever touched by one thread at a time, and
// levels are separated by the loop's barrier.
//
// Aggregates are stored flat, indexed by the colex rank of q among multisets
// of K-1 heaps of at most H: sum over j < i of C(a[j] + j, j + 1) plus sum over
// j > i of C(a[j] + j - 1, j) for p's sorted heaps a with heap i left out, the
// same term table as p's rank. The smallest P-remoteness is kept as
// R_MAX - r, so that the zero-filled store starts as "none" without a pass.
//
// A value of W * 64 or more, or too wide for V, does not fit the bitset: the
// kernel flags it, and the solver redoes that level and the rest with the
// brute-force kernel, which holds any value. Remoteness never overflows R:
// the solver picks R from the longest game before the solve.

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/game/moves.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

// Lines of a box of K heaps of at most H: C(H + K - 1, K - 1).
inline uint64_t line_count(const Universe& u) {
    return binomial(uint64_t{u.max_heap_size()} + u.max_heaps() - 1, u.max_heaps() - 1);
}

// Bitset words per line: values of a take rule in a box of heaps up to H
// mostly stay below the next power of two (Nim's do in both conventions);
// a larger one hands the solve to the brute-force kernel.
inline unsigned line_words(const Universe& u) {
    const uint32_t h = u.max_heap_size();
    return h < 64 ? 1 : h < 256 ? 4 : 16;
}

// The lines of sorted heaps a, one for each heap (used for the distinct
// ones): suffix sums of the terms from the top, then prefix sums from the
// bottom. Lines of one largest heap s are the contiguous indices
// [C(s + K - 2, K - 1), C(s + K - 1, K - 1)) (colex order).
inline void line_indices(const Universe& u, const uint32_t* a, uint64_t* line) {
    const unsigned k = u.max_heaps();
    uint64_t suffix = 0;
    for (unsigned i = k; i-- > 0;) {
        line[i] = suffix;
        if (i > 0) suffix += u.term(i - 1, a[i]);
    }
    uint64_t prefix = 0;
    for (unsigned i = 0; i < k; ++i) {
        line[i] += prefix;
        prefix += u.term(i, a[i]);
    }
}

// Automatic choice: lines pay when the prefix is most of a heap's children
// (bench_kernels, bench_solver: Nim misere K=5..7 H=63 wins 16-21x,
// allbut:1,2 K=5 H=63 about 6x - its points join their lines by a look-up
// each; a subtraction game of a few amounts is all near children, with
// nothing to summarise).
inline bool lines_pay(const LineShape& shape, const Universe& u) {
    return shape.lag * 2 <= u.max_heap_size();
}

// Remoteness cannot be widened under the line kernel (a level redone would
// meet aggregates that already hold its points), so its arrays start wide
// enough for the longest game in a box, K * H moves.
inline unsigned line_remoteness_bits(const Universe& u) {
    return uint64_t{u.max_heaps()} * u.max_heap_size() > std::numeric_limits<uint8_t>::max() ? 16
                                                                                             : 8;
}

// A point of value jv and remoteness jr joins the aggregate of `line`: W
// words of values seen at seen + line * W, and (REM) the largest remoteness
// and R_MAX minus the smallest of value 0 at line_remoteness + 2 * line.
template <unsigned W, bool REM, class R>
void join_line(uint64_t* seen, R* line_remoteness, uint64_t line, uint32_t jv, R jr) {
    seen[line * W + (jv >> 6)] |= uint64_t{1} << (jv & 63);
    if constexpr (REM) {
        R* lr = line_remoteness + 2 * line;
        lr[0] = std::max(lr[0], jr);
        if (jv == 0) lr[1] = std::max<R>(lr[1], std::numeric_limits<R>::max() - jr);
    }
}

// A position's value and remoteness from the union of its children's
// values (`set`, W words), their largest remoteness and R_MAX minus the
// smallest remoteness of a child of value 0; a position without children
// takes `terminal`. Returns false (value 0) when the value reaches `limit`.
template <unsigned W, bool REM, uint32_t LIMIT, class R>
bool line_answer(const uint64_t* set, R max_rem, R neg_min_rem_p, uint32_t terminal, uint32_t& mex,
                 R& r) {
    constexpr R R_MAX = std::numeric_limits<R>::max();
    bool any = false;
    for (unsigned w = 0; w < W; ++w) any |= set[w] != 0;
    r = 0;
    if (!any) {
        mex = terminal;
        return true;
    }
    unsigned w = 0;
    while (w < W && set[w] == ~uint64_t{0}) ++w;
    mex = w * 64 + (w < W ? static_cast<uint32_t>(std::countr_one(set[w])) : 0);
    if (mex >= LIMIT) {
        mex = 0;
        return false;
    }
    if constexpr (REM) {
        const uint32_t rem = 1 + (mex == 0 ? max_rem : R(R_MAX - neg_min_rem_p));
        assert(rem <= R_MAX);  // R holds the longest game (choose_kernel)
        r = static_cast<R>(rem);
    }
    return true;
}

// Calls f.template operator()<W, LAG>() with `words` bitset words per line
// (line_words: 1, 4 or 16) and whether the rule has a lag: the line
// kernel's instantiation, for one process (solver.cpp) and the distributed
// chain (mpi/) alike.
template <class F>
decltype(auto) with_line_kernel(unsigned words, bool lag, F&& f) {
    const auto with_words = [&]<bool LAG>() {
        switch (words) {
            case 1:
                return f.template operator()<1, LAG>();
            case 4:
                return f.template operator()<4, LAG>();
            default:
                return f.template operator()<16, LAG>();
        }
    };
    return lag ? with_words.template operator()<true>() : with_words.template operator()<false>();
}

// W: bitset words per line. LAG: the rule has forbidden amounts (shape.lag
// > 0: allbut:), so a position reads its near children and each line takes
// the point v - lag; without (Nim) a position reads no child at all and
// joins its lines itself. Built with named fields:
//   LineKernel<W, LAG, REM, V, R>{.u = u, .amounts = ..., ...}.
template <unsigned W, bool LAG, bool REM, class V, class R>
struct LineKernel {
    static constexpr R R_MAX = std::numeric_limits<R>::max();
    // Values the kernel can hold: in the bitset and in V.
    static constexpr uint32_t VALUE_LIMIT =
        std::min<uint32_t>(W * 64, uint32_t{std::numeric_limits<V>::max()} + 1);

    const Universe& u;
    const uint32_t* amounts;  // near, then lag (LAG), ascending
    size_t near_count;
    uint32_t lag;  // 0 unless LAG
    V* value;
    R* remoteness;       // unless REM: nullptr
    uint64_t base = 0;   // the rank at value[0] and remoteness[0] (a streamed solve's window)
    V terminal;          // the value of a position without moves: 1 misere, 0 normal
    uint64_t* seen;      // line * W + word
    R* line_remoteness;  // line * 2: largest, R_MAX - smallest of value 0
    std::atomic<bool>* overflow;

    // A position's heaps, in the task's own stack frame (not the heap, where
    // it could share a cache line with the other thread's: solver.cpp).
    using Scratch = std::array<uint32_t, Universe::MAX_HEAPS>;
    Scratch scratch() const { return {}; }

    // Solves ranks [first, first + count) in order; returns the child
    // look-ups (near children and the points that join a line).
    uint64_t sweep(uint64_t first, uint64_t count, Scratch& heaps) const {
        if constexpr (!LAG) {
            sweep_runs(first, count, heaps, InPlace{*this});
            return 0;
        } else {
            return sweep_positions(first, count, heaps);
        }
    }

    // Where a run's lines and answers are (sweep_runs): for each heap index
    // i, the aggregate of heap i's line at the run's first position, in a
    // store where the next position's follows it (W words of values seen,
    // and a pair of R); and where the run's values and remoteness go.
    struct RunAt {
        uint64_t* set[Universe::MAX_HEAPS];
        R* rem[Universe::MAX_HEAPS];
        V* value;
        R* remoteness;
    };

    // The one process's store: every line at its index in `seen`, the
    // answers at their rank in the arrays.
    struct InPlace {
        const LineKernel& k;
        void locate(const uint32_t*, const uint64_t* line, uint64_t rank, RunAt& at) const {
            for (unsigned i = 0; i < k.u.max_heaps(); ++i) {
                at.set[i] = k.seen + line[i] * W;
                at.rem[i] = REM ? k.line_remoteness + 2 * line[i] : nullptr;
            }
            at.value = k.value + (rank - k.base);
            at.remoteness = REM ? k.remoteness + (rank - k.base) : nullptr;
        }
        // After a run of `len` positions from `rank` whose first `below_a1`
        // read heap 1's line (a: its first position's heaps).
        void swept(const uint32_t*, uint64_t, uint64_t, uint64_t, const RunAt&) const {}
    };

    // Nim's sweep (no lag: a position reads no child, only its lines), run by
    // run. A run is the positions that share their K-1 largest heaps, the
    // smallest heap a0 rising by one from rank to rank up to the next heap
    // a1. Along a run the line of heap 0 is one line, whose aggregate grows
    // by each position in turn: it is kept in registers and stored once at
    // the run's end. The line of any other heap i is a0 + c_i (term(0, a0)
    // = a0), so a run's positions read and join each of those lines as one
    // contiguous stretch of the store; heap 1's line is heap 0's once a0 =
    // a1 (a duplicate heap, left out as sweep_positions leaves it out).
    // Each stretch is prefetched PREFETCH lines ahead of the run, and a
    // run's positions are solved by solve_part, compiled for their number
    // of lines. `lines` says where each run's lines are (InPlace: the one
    // process's store; the distributed line chain keeps some apart).
    template <class Lines>
    void sweep_runs(uint64_t first, uint64_t count, Scratch& heaps, const Lines& lines) const {
        const unsigned k = u.max_heaps();
        uint32_t* a = heaps.data();
        u.unrank(first, a);
        uint64_t line[Universe::MAX_HEAPS];
        RunAt at;
        const uint64_t end = first + count;
        for (uint64_t rank = first; rank < end;) {
            const uint32_t start = a[0];
            const uint32_t a1 = k > 1 ? a[1] : u.max_heap_size();
            const uint64_t len = std::min<uint64_t>(a1 - start + 1, end - rank);
            line_indices(u, a, line);
            lines.locate(a, line, rank, at);
            // Each line's stretch from the run's first position: the distinct
            // heaps i >= 2, then heap 1's.
            uint64_t* set_at[Universe::MAX_HEAPS];
            R* rem_at[Universe::MAX_HEAPS];
            unsigned others = 0;
            const auto stretch = [&](unsigned j, unsigned i) {
                set_at[j] = at.set[i];
                rem_at[j] = at.rem[i];
            };
            for (unsigned i = 2; i < k; ++i)
                if (a[i - 1] != a[i]) stretch(others++, i);
            if (k > 1) stretch(others, 1);
            // The run's positions with a0 < a1 read and join heap 1's line too.
            const uint64_t below_a1 = k > 1 ? std::min<uint64_t>(len, a1 - start) : 0;
            for (unsigned j = 0; j < others; ++j) {
                __builtin_prefetch(set_at[j] + PREFETCH * W, 1);
                if constexpr (REM) __builtin_prefetch(rem_at[j] + 2 * PREFETCH, 1);
            }
            Own own = load_own(at.set[0], at.rem[0]);
            // The positions with a0 < a1 read heap 1's line too, the last
            // (a0 = a1) does not.
            with_lines(others + 1, below_a1 > 0, [&]<unsigned N>(unsigned n) {
                solve_part<N>(set_at, rem_at, n, 0, below_a1, own, at.value, at.remoteness);
            });
            with_lines(others, below_a1 < len, [&]<unsigned N>(unsigned n) {
                solve_part<N>(set_at, rem_at, n, below_a1, len, own, at.value, at.remoteness);
            });
            store_own(at.set[0], at.rem[0], own);
            lines.swept(a, rank, len, below_a1, at);
            rank += len;
            if (rank < end) {
                a[0] = static_cast<uint32_t>(start + len - 1);
                u.next(a);
            }
        }
    }

    // The general sweep (a rule with a lag): position by position, each
    // reading its near children and the points that join its lines.
    uint64_t sweep_positions(uint64_t first, uint64_t count, Scratch& heaps) const {
        const unsigned k = u.max_heaps();
        uint32_t* a = heaps.data();
        u.unrank(first, a);
        uint64_t lookups = 0;
        uint64_t line[Universe::MAX_HEAPS];     // the line of heap i (distinct heaps only)
        uint64_t joining[Universe::MAX_HEAPS];  // the rank of its point v - lag (lag > 0)
        for (uint64_t rank = first; rank < first + count; ++rank) {
            // 1. The lines of the distinct heaps.
            line_indices(u, a, line);
            // 2. Combine the lines' aggregates (a heap of 0 has no prefix).
            uint64_t set[W] = {};
            R max_rem = 0, neg_min_rem_p = 0;
            for (unsigned i = 0; i < k; ++i) {
                if (a[i] == 0 || (i > 0 && a[i - 1] == a[i])) continue;
                const uint64_t* s = seen + line[i] * W;
                for (unsigned w = 0; w < W; ++w) set[w] |= s[w];
                if constexpr (REM) {
                    max_rem = std::max(max_rem, line_remoteness[2 * line[i]]);
                    neg_min_rem_p = std::max(neg_min_rem_p, line_remoteness[2 * line[i] + 1]);
                }
            }
            // 3. The near children, and the points that will join the lines.
            if constexpr (LAG) {
                for (unsigned i = 0; i < k; ++i) {
                    joining[i] = UINT64_MAX;
                    if (a[i] == 0 || (i > 0 && a[i - 1] == a[i])) continue;
                    const uint64_t emptied = rank - u.term(i, a[i]);  // heap i at 0
                    for_each_amount_of_heap(
                        u, amounts, near_count + 1, a, i, emptied, [&](uint32_t s, uint64_t c) {
                            assert(c < rank);
                            if (s == lag) {
                                joining[i] = c;
                                return;
                            }
                            ++lookups;
                            const uint32_t v = value[c - base];
                            if (v >= VALUE_LIMIT) {
                                overflow->store(true, std::memory_order_relaxed);
                                return;
                            }
                            set[v >> 6] |= uint64_t{1} << (v & 63);
                            if constexpr (REM) {
                                const R r = remoteness[c - base];
                                max_rem = std::max(max_rem, r);
                                if (v == 0) neg_min_rem_p = std::max<R>(neg_min_rem_p, R_MAX - r);
                            }
                        });
                }
            }
            // 4. The position's value and remoteness.
            uint32_t mex = 0;
            R r = 0;
            if (!line_answer<W, REM, VALUE_LIMIT>(set, max_rem, neg_min_rem_p, terminal, mex, r))
                overflow->store(true, std::memory_order_relaxed);
            value[rank - base] = static_cast<V>(mex);
            if constexpr (REM) remoteness[rank - base] = r;
            // 5. Each line takes its point v - lag: p itself for Nim.
            for (unsigned i = 0; i < k; ++i) {
                if (i > 0 && a[i - 1] == a[i]) continue;
                uint32_t jv = mex;
                R jr = r;
                if constexpr (LAG) {
                    if (joining[i] == UINT64_MAX) continue;  // v < lag: nothing joins yet
                    ++lookups;
                    jv = value[joining[i] - base];
                    if constexpr (REM) jr = remoteness[joining[i] - base];
                    if (jv >= VALUE_LIMIT) {
                        overflow->store(true, std::memory_order_relaxed);
                        continue;
                    }
                }
                join(line[i], jv, jr);
            }
            u.next(a);
        }
        return lookups;
    }

    // The positions [first, first + count), solved before a resumed solve
    // began, join their lines' aggregates as step 5 of sweep made them.
    void rejoin(uint64_t first, uint64_t count, Scratch& heaps) const {
        const unsigned k = u.max_heaps();
        uint32_t* a = heaps.data();
        u.unrank(first, a);
        uint64_t line[Universe::MAX_HEAPS];
        for (uint64_t rank = first; rank < first + count; ++rank) {
            line_indices(u, a, line);
            for (unsigned i = 0; i < k; ++i) {
                if (i > 0 && a[i - 1] == a[i]) continue;
                uint64_t point = rank;  // Nim: p itself
                if constexpr (LAG) {
                    point = UINT64_MAX;
                    if (a[i] == 0) continue;
                    for_each_amount_of_heap(u, amounts, near_count + 1, a, i,
                                            rank - u.term(i, a[i]), [&](uint32_t s, uint64_t c) {
                                                if (s == lag) point = c;
                                            });
                    if (point == UINT64_MAX) continue;  // v < lag: nothing joins yet
                }
                const uint32_t jv = value[point - base];
                R jr = 0;
                if constexpr (REM) jr = remoteness[point - base];
                if (jv < VALUE_LIMIT) join(line[i], jv, jr);
            }
            u.next(a);
        }
    }

  private:
    // Lines ahead of a run's first that each of its stretches prefetches
    // (the next runs read on from where this one ends).
    static constexpr uint64_t PREFETCH = 64;

    // Heap 0's line along a run: its values seen and its remoteness pair.
    struct Own {
        uint64_t set[W];
        R rem[2];
    };

    // Calls f.template operator()<N>(lines) with N = lines where it is small
    // enough to be unrolled (0 otherwise: a loop over `lines`), when `any`.
    template <class F>
    static void with_lines(unsigned lines, bool any, F&& f) {
        if (!any) return;
        switch (lines) {
            case 0:
                return f.template operator()<0>(lines);
            case 1:
                return f.template operator()<1>(lines);
            case 2:
                return f.template operator()<2>(lines);
            case 3:
                return f.template operator()<3>(lines);
            case 4:
                return f.template operator()<4>(lines);
            case 5:
                return f.template operator()<5>(lines);
            case 6:
                return f.template operator()<6>(lines);
            case 7:
                return f.template operator()<7>(lines);
            default:
                return f.template operator()<0>(lines);
        }
    }

    // Positions t0..t1-1 of a run, each reading and joining `lines` lines
    // (N of them, N > 0 known when compiled) at set_at[j] + t * W and
    // rem_at[j] + 2 * t, and heap 0's line `own`.
    template <unsigned N>
    void solve_part(uint64_t* const* set_at_run, R* const* rem_at_run, unsigned lines_run,
                    uint64_t t0, uint64_t t1, Own& own, V* out_value, R* out_remoteness) const {
        const unsigned lines = N ? N : lines_run;
        constexpr unsigned SLOTS = N ? N : Universe::MAX_HEAPS;
        uint64_t* set_at[SLOTS];
        R* rem_at[SLOTS];
        for (unsigned j = 0; j < lines; ++j) {
            set_at[j] = set_at_run[j];
            rem_at[j] = rem_at_run[j];
        }
        const V none = terminal;
        for (uint64_t t = t0; t < t1; ++t) {
            uint64_t set[W];
            for (unsigned w = 0; w < W; ++w) set[w] = own.set[w];
            R max_rem = own.rem[0], neg_min_rem_p = own.rem[1];
            for (unsigned j = 0; j < lines; ++j) {
                for (unsigned w = 0; w < W; ++w) set[w] |= set_at[j][t * W + w];
                if constexpr (REM) {
                    max_rem = std::max(max_rem, rem_at[j][2 * t]);
                    neg_min_rem_p = std::max(neg_min_rem_p, rem_at[j][2 * t + 1]);
                }
            }
            uint32_t mex = 0;
            R r = 0;
            if (!line_answer<W, REM, VALUE_LIMIT>(set, max_rem, neg_min_rem_p, none, mex, r))
                overflow->store(true, std::memory_order_relaxed);
            out_value[t] = static_cast<V>(mex);
            // What each line takes: the value's bit, the remoteness, and
            // R_MAX minus it where the value is 0 (0, which max leaves as it
            // was, elsewhere).
            const unsigned word = mex >> 6;
            const uint64_t bit = uint64_t{1} << (mex & 63);
            const R neg = mex == 0 ? R(R_MAX - r) : R(0);
            for (unsigned j = 0; j < lines; ++j) {
                set_at[j][t * W + word] |= bit;
                if constexpr (REM) {
                    rem_at[j][2 * t] = std::max(rem_at[j][2 * t], r);
                    rem_at[j][2 * t + 1] = std::max(rem_at[j][2 * t + 1], neg);
                }
            }
            own.set[word] |= bit;
            if constexpr (REM) {
                out_remoteness[t] = r;
                own.rem[0] = std::max(own.rem[0], r);
                own.rem[1] = std::max(own.rem[1], neg);
            }
        }
    }

    static Own load_own(const uint64_t* set, const R* rem) {
        Own own;
        for (unsigned w = 0; w < W; ++w) own.set[w] = set[w];
        own.rem[0] = own.rem[1] = 0;
        if constexpr (REM) {
            own.rem[0] = rem[0];
            own.rem[1] = rem[1];
        }
        return own;
    }
    static void store_own(uint64_t* set, R* rem, const Own& own) {
        for (unsigned w = 0; w < W; ++w) set[w] = own.set[w];
        if constexpr (REM) {
            rem[0] = own.rem[0];
            rem[1] = own.rem[1];
        }
    }

    void join(uint64_t line, uint32_t jv, R jr) const {
        join_line<W, REM>(seen, line_remoteness, line, jv, jr);
    }
};

}  // namespace nimtb::engine
