#pragma once
// The line kernel (engine/solve/line_kernel.h) across processes, for the take
// rules in a box (nim, allbut:, subtract: with long runs): a position's
// children along a line are the prefix below v - lag, summarised by the
// line's aggregate, and its near children v - s, read one by one.
//
// Blocks go to processes by their group, the two largest heaps m2 <= m, in
// pieces: runs of m2 of one m (deal.h: chain_deal deals them evenly), for
// the whole solve. A line is a position q of K - 1 heaps, its points
// q + {w}; with Q2 <= Q1 the two largest heaps of q, the points w <= Q1 lie
// in the groups (max(w, Q2), Q1) of the row of Q1, and each point above in
// the group (Q1, w) of another row. A line lives at home, in the store of
// the process of the piece that holds Q2 (the lines of a piece are one run
// of indices), while its points are that piece's, and travels from there
// on: the point q + {w} hands "the line with itself joined" to q + {w + 1},
// one level later. For a position p = q + {v} of a piece whose m2 run
// starts at `first`, with m3 its third largest heap (0 if none):
//   - v = m alone (m2 < m): the line arrives by the LARGEST chain, from
//     q + {m - 1};
//   - v = m2 and m3 < first (m2 = m too: two heaps m): it arrives by the
//     SECOND chain, from q + {v - 1}, whose second largest heap was v - 1;
//   - else q's Q2 is in p's piece, and the line is at home.
// Every position passes its line of m on by the LARGEST chain (to m + 1,
// when m < H) and, when m2 < m, its line of m2 by the SECOND chain (to
// m2 + 1) if m2 ends the piece or the line arrived by that chain. A whole
// block passes to one block by each chain (the same lower heaps, ranks
// shifted by a constant; the SECOND chain from and to the first positions
// of a block of 2 top heaps, those whose third largest heap is below the
// piece's first m2), so aggregates travel as runs, a header per block and
// chain, batched in one MPI_Alltoallv per round of a level (Nim's; once a
// level with a lag) into the slots of the successors' level (Arrivals); a
// process holds its pieces' lines, the arrivals of about two levels, a
// round's runs and, unless it streams, its positions. With a
// lag, a line takes the point v - lag, not p itself, and the near children
// are read too: both are children of p, fetched in pages round by round as
// the brute-force kernel's are (ChainChildren); Nim reads none.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "engine/base/memory.h"
#include "engine/game/moves.h"
#include "engine/game/universe.h"
#include "engine/solve/line_kernel.h"
#include "mpi/deal.h"

namespace nimtb::mpi {

// An aggregate as it travels: W words of values seen, then one word with
// the largest remoteness (low 32 bits) and R_MAX minus the smallest
// remoteness of value 0 (high 32 bits).
template <unsigned W>
inline constexpr unsigned AGGREGATE_WORDS = W + 1;

// The two chains an aggregate travels by: to the position with its largest
// heap raised by one, or its second largest (below the largest) raised by one.
enum Chain : unsigned { LARGEST = 0, SECOND = 1, CHAINS = 2 };

// The children a position reads besides its lines' aggregates: for each
// distinct heap, its near children and its line's joining point (the
// point v - lag): what a round of the distributed solve fetches.
struct ChainChildren {
    const engine::Universe& u;
    const uint32_t* amounts;  // near, then lag, ascending
    size_t count;
    template <class F>
    void operator()(const uint32_t* a, uint64_t rank, F&& f) const {
        for (unsigned i = 0; i < u.max_heaps(); ++i) {
            if (a[i] == 0 || (i > 0 && a[i - 1] == a[i])) continue;
            engine::for_each_amount_of_heap(u, amounts, count, a, i, rank - u.term(i, a[i]),
                                            [&](uint32_t, uint64_t c) { f(c); });
        }
    }
};

// LAG: the rule has forbidden amounts (lag > 0): near children and joining
// points to read. Nim's sweep, without them, is compiled apart.
template <unsigned W, bool LAG, bool REM, class V, class R, class Store>
struct ChainKernel {
    static constexpr R R_MAX = std::numeric_limits<R>::max();
    static constexpr uint32_t VALUE_LIMIT =
        std::min<uint32_t>(W * 64, uint32_t{std::numeric_limits<V>::max()} + 1);
    static constexpr unsigned A = AGGREGATE_WORDS<W>;
    static constexpr uint64_t NONE = UINT64_MAX;

    const engine::Universe& u;
    const uint32_t* amounts;  // near, then lag (when lag > 0), ascending
    size_t near_count;
    uint32_t lag;
    V terminal;
    uint64_t* seen;      // home line * W + word
    R* line_remoteness;  // home line * 2: largest, R_MAX - smallest of value 0
    std::atomic<bool>* overflow;

    // The piece (deal.h) of the block being swept: its first and last m2,
    // and where its lines are in this process's store (home line minus line
    // index, mod 2^64).
    struct GroupPiece {
        uint32_t first, last;
        uint64_t home;
    };

    // Sweeps ranks [first, first + count) of one block, every one of one
    // group (its two largest heaps m2 <= m): the store reads children and
    // keeps answers (the distributed solve's PagedStore). `in[c]` holds the
    // aggregates arriving by chain c for these positions (from the block's
    // first position: LARGEST when m is alone, SECOND when the third
    // largest heap is below the piece's first m2), `out[c]` receives the
    // ones they pass on by chain c (LARGEST when m < H; SECOND when m2 < m,
    // from the positions whose line of m2 leaves the piece or travels
    // through it); `first` is the block's position `skip` (a part of it).
    // Returns the children read.
    uint64_t sweep(uint64_t first, uint64_t count, const Store& store, const GroupPiece& piece,
                   const std::array<const uint64_t*, CHAINS>& in,
                   const std::array<uint64_t*, CHAINS>& out, uint64_t skip) const {
        const uint64_t home = piece.home;
        const unsigned k = u.max_heaps();
        uint32_t a[engine::Universe::MAX_HEAPS];
        uint64_t line[engine::Universe::MAX_HEAPS];
        uint64_t joining[engine::Universe::MAX_HEAPS];  // the rank of the point v - lag
        uint64_t lookups = 0;
        u.unrank(first, a);
        for (uint64_t at = 0; at < count; ++at) {
            const uint64_t rank = first + at;
            engine::line_indices(u, a, line);
            const uint32_t m = a[k - 1], m2 = a[k - 2], m3 = k > 2 ? a[k - 3] : 0;
            // The aggregate arriving for the line of heap a[i], if it travels.
            const uint64_t here = (skip + at) * A;  // in the block's runs
            const auto arrival = [&](unsigned i) -> const uint64_t* {
                if (i == k - 1 && m2 < m) return in[LARGEST] + here;
                if (i == k - 2 && m3 < piece.first) return in[SECOND] + here;
                return nullptr;
            };
            uint64_t set[W] = {};
            R max_rem = 0, neg_min_rem_p = 0;
            const auto take = [&](uint32_t v, R r) {
                set[v >> 6] |= uint64_t{1} << (v & 63);
                if constexpr (REM) {
                    max_rem = std::max(max_rem, r);
                    if (v == 0) neg_min_rem_p = std::max<R>(neg_min_rem_p, R_MAX - r);
                }
            };
            for (unsigned i = 0; i < k; ++i) {
                joining[i] = NONE;
                if (a[i] == 0 || (i > 0 && a[i - 1] == a[i])) continue;
                const uint64_t* s = arrival(i);
                R top = 0, neg = 0;
                if (s) {
                    top = static_cast<R>(s[W]);
                    neg = static_cast<R>(s[W] >> 32);
                } else {
                    const uint64_t l = line[i] + home;
                    s = seen + l * W;
                    if constexpr (REM)
                        top = line_remoteness[2 * l], neg = line_remoteness[2 * l + 1];
                }
                for (unsigned w = 0; w < W; ++w) set[w] |= s[w];
                if constexpr (REM) {
                    max_rem = std::max(max_rem, top);
                    neg_min_rem_p = std::max(neg_min_rem_p, neg);
                }
                if constexpr (!LAG) continue;
                // The near children, and the point that will join the line.
                engine::for_each_amount_of_heap(
                    u, amounts, near_count + 1, a, i, rank - u.term(i, a[i]),
                    [&](uint32_t x, uint64_t c) {
                        if (x == lag) {
                            joining[i] = c;
                            return;
                        }
                        ++lookups;
                        const uint32_t v = store.child_value(c);
                        if (v >= VALUE_LIMIT) {
                            overflow->store(true, std::memory_order_relaxed);
                            return;
                        }
                        take(v, REM ? store.child_remoteness(c) : R(0));
                    });
            }
            uint32_t mex = 0;
            R r = 0;
            if (!engine::line_answer<W, REM, VALUE_LIMIT>(set, max_rem, neg_min_rem_p, terminal,
                                                          mex, r))
                overflow->store(true, std::memory_order_relaxed);
            store.set(rank, static_cast<V>(mex), r);
            // Each line takes its point v - lag (p itself for Nim): a home
            // line in place, a travelling one on its way out. The lines of
            // heaps m and m2 (< m) leave the group with p, by their chains:
            // p is the last point of the group on them.
            for (unsigned i = 0; i < k; ++i) {
                if (i > 0 && a[i - 1] == a[i]) continue;
                bool joins = true;
                uint32_t jv = mex;
                R jr = r;
                if constexpr (LAG) {
                    joins = joining[i] != NONE;  // v < lag: nothing joins yet
                    if (joins) {
                        ++lookups;
                        jv = store.child_value(joining[i]);
                        if constexpr (REM) jr = store.child_remoteness(joining[i]);
                        if (jv >= VALUE_LIMIT) {
                            overflow->store(true, std::memory_order_relaxed);
                            joins = false;
                        }
                    }
                }
                uint64_t* const o = a[i] == m ? out[LARGEST]
                                    : a[i] == m2 && (m2 == piece.last || m3 < piece.first)
                                        ? out[SECOND]
                                        : nullptr;
                if (const uint64_t* s = arrival(i)) {
                    if (!o) continue;
                    uint64_t* d = o + here;
                    for (unsigned w = 0; w < W; ++w) d[w] = s[w];
                    R top = static_cast<R>(s[W]), n = static_cast<R>(s[W] >> 32);
                    if (joins) {
                        d[jv >> 6] |= uint64_t{1} << (jv & 63);
                        if constexpr (REM) top = std::max(top, jr);
                        if (jv == 0) n = std::max<R>(n, R_MAX - jr);
                    }
                    d[W] = uint64_t{top} | uint64_t{n} << 32;
                    continue;
                }
                const uint64_t l = line[i] + home;
                if (joins) engine::join_line<W, REM>(seen, line_remoteness, l, jv, jr);
                if (o) {
                    uint64_t* d = o + here;
                    for (unsigned w = 0; w < W; ++w) d[w] = seen[l * W + w];
                    d[W] = 0;
                    if constexpr (REM)
                        d[W] = uint64_t{line_remoteness[2 * l]} |
                               uint64_t{line_remoteness[2 * l + 1]} << 32;
                }
            }
            u.next(a);
        }
        return lookups;
    }
};

// The aggregates arriving for one level's blocks of this process, in the
// blocks' order: a slot of count * A words for each block and chain by which
// aggregates arrive for it. The later levels' slots fill while a level is
// swept (a block's successors lie in the levels of the next sum of top
// heaps), and the swept blocks' slots are given back to the system round by
// round, so a process holds about the larger of two sums' arrivals, not
// both.
struct Arrivals {
    static constexpr uint64_t NONE = UINT64_MAX;
    size_t b0 = 0, b1 = 0;         // the level's blocks (Layout::local_plan)
    std::vector<uint64_t> slot;    // per (block - b0) * CHAINS + chain: its first word, or NONE
    std::vector<uint64_t> filled;  // per slot: the aggregates arrived
    engine::LargeBuffer area;      // in small pages: slots fill in any order
    uint64_t given_back = 0;       // bytes

    uint64_t* words() const { return static_cast<uint64_t*>(area.data()); }
    // Gives back the slots of the blocks before `b` (swept).
    void swept_before(size_t b) {
        uint64_t end = area.bytes();
        for (size_t i = (b - b0) * CHAINS; i < slot.size(); ++i) {
            if (slot[i] != NONE) {
                end = slot[i] * 8;
                break;
            }
        }
        area.give_back(given_back, end);
        given_back = std::max(given_back, end);
    }
};

// The line chain (line_chain.h) on this process: its home lines, and the
// aggregates arriving for the level being swept and for later ones.
struct LineChain {
    unsigned bitset_words = 1;      // W
    std::vector<uint32_t> amounts;  // near, then lag (when lag > 0)
    size_t near_count = 0;
    uint32_t lag = 0;
    std::vector<uint64_t> home;  // per group: home line minus line index (mod 2^64)
    std::vector<uint32_t> piece_first, piece_last;  // per group: its piece's m2 run
    std::vector<uint64_t> seen;                     // home line * W + word
    std::vector<uint64_t> remoteness_words;         // home line * 2 remoteness of the array's width
    Arrivals now;
    std::map<size_t, Arrivals> later;  // by level
    // The buffers buffer() gives, in use or idle (held here alone).
    struct Spare {
        std::shared_ptr<uint64_t[]> buffer;
        uint64_t words;
    };
    std::vector<Spare> spare;

    // A buffer of at least `words` words for a round's runs (sent or
    // arrived), one used before when it is idle: buffers allocated afresh
    // each level cost a quarter of a process's time in page faults and
    // zeroing (perf, nim misere K=6 H=63 at -np 2). Idle buffers too small
    // are let go when a larger one is made, so no more are held than a
    // round uses at once.
    std::shared_ptr<uint64_t[]> buffer(uint64_t words) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < spare.size(); ++i) {
            if (spare[i].buffer.use_count() == 1 && spare[i].words >= words &&
                (best == SIZE_MAX || spare[i].words < spare[best].words))
                best = i;
        }
        if (best != SIZE_MAX) return spare[best].buffer;
        std::erase_if(spare, [](const Spare& x) { return x.buffer.use_count() == 1; });
        spare.push_back({std::shared_ptr<uint64_t[]>(new uint64_t[std::max<uint64_t>(words, 1)]),
                         words});
        return spare.back().buffer;
    }

    // The home lines of the groups `deal` gives this process (deal.h).
    LineChain(const engine::Universe& u, const engine::LineShape& shape, const ChainDeal& deal,
              int rank, unsigned remoteness_bytes)
        : bitset_words(engine::line_words(u)),
          amounts(shape.near),
          near_count(shape.near.size()),
          lag(shape.lag),
          home(deal.owner.size(), 0),
          piece_first(deal.first),
          piece_last(deal.last) {
        if (lag > 0) amounts.push_back(lag);
        uint64_t lines = 0;
        for (uint32_t m = 0; m <= u.max_heap_size(); ++m) {
            for (uint32_t m2 = 0; m2 <= m; ++m2) {
                const size_t g = chain_group(u, m2, m);
                if (deal.owner[g] != rank) continue;
                // A piece's lines in one run: the same offset for its groups.
                home[g] = m2 == deal.first[g] ? lines - chain_group_first_line(u, m2, m)
                                              : home[chain_group(u, deal.first[g], m)];
                lines += chain_group_lines(u, m2);
            }
        }
        seen.assign(lines * bitset_words, 0);
        remoteness_words.assign((lines * 2 * remoteness_bytes + 7) / 8, 0);
    }
};

}  // namespace nimtb::mpi
