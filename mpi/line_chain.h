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
// process holds its pieces' lines in use (touched, and given back after the
// last level that touches them: LineChain::done_after), the arrivals of
// about two levels, a round's runs and, unless it streams, its positions.
// With a lag, a line takes the point v - lag, not p itself, and the near
// children are read too: both are children of p, fetched in pages round by
// round as the brute-force kernel's are (ChainChildren); Nim reads none.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "engine/base/memory.h"
#include "engine/base/sanitizers.h"
#include "engine/game/moves.h"
#include "engine/game/universe.h"
#include "engine/solve/line_kernel.h"
#include "mpi/deal.h"

namespace nimtb::mpi {

// Aggregates as they travel and wait, in the home store's layout: a run of
// n aggregates is their n bitsets of W words, then their n pairs of
// remoteness (the largest, and R_MAX minus the smallest of value 0; none
// without remoteness). So an aggregate is 8 W + 2 sizeof(R) bytes (Nim's
// with remoteness of 16 bits: 12), and a run is swept as home lines are.
struct AggregateShape {
    unsigned w = 1;          // bitset words
    unsigned rem_bytes = 0;  // bytes of a remoteness, 0 without
    uint64_t words(uint64_t n) const { return n * w + (n * 2 * rem_bytes + 7) / 8; }
    uint64_t bytes() const { return uint64_t{8} * w + 2 * rem_bytes; }  // of one
    uint64_t rem_bytes_of(uint64_t n) const { return n * 2 * rem_bytes; }
};

// Where a run of aggregates is: its bitsets, and its remoteness pairs (of
// the array's width R). A run of room for n at word p: {p, p + n W}.
struct AggregatesAt {
    uint64_t* set = nullptr;
    void* rem = nullptr;
    static AggregatesAt of(uint64_t* p, uint64_t n, const AggregateShape& shape) {
        return {p, p + n * shape.w};
    }
};

// The two chains an aggregate travels by: to the position with its largest
// heap raised by one, or its second largest (below the largest) raised by one.
enum Chain : unsigned { LARGEST = 0, SECOND = 1, CHAINS = 2 };

// The chain by which the line of heap a[i] arrives for a position of sorted
// heaps a whose three largest are m3 <= m2 <= m, in a piece whose m2 run
// starts at `first` (CHAINS: none, the line is at home); and by which the
// line of a heap v leaves with it, p its last point in the group (CHAINS:
// none): the lines of m and of m2 (< m), where `last` ends the piece's run.
inline Chain arrives_by(unsigned i, unsigned k, uint32_t m, uint32_t m2, uint32_t m3,
                        uint32_t first) {
    if (i == k - 1 && m2 < m) return LARGEST;
    if (i == k - 2 && m3 < first) return SECOND;
    return CHAINS;
}
inline Chain leaves_by(uint32_t v, uint32_t m, uint32_t m2, uint32_t m3, uint32_t first,
                       uint32_t last) {
    if (v == m) return LARGEST;
    if (v == m2 && (m2 == last || m3 < first)) return SECOND;
    return CHAINS;
}

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
// points to read. Nim's sweep, without them, runs run by run in the one
// process's kernel (LineKernel::sweep_runs), told where the travelling lines
// are (ChainKernel::Travelling); universes of 2 or 3 heaps, whose run
// varies a heap that decides which lines travel, go position by position.
template <unsigned W, bool LAG, bool REM, class V, class R, class Store>
struct ChainKernel {
    static constexpr R R_MAX = std::numeric_limits<R>::max();
    static constexpr uint32_t VALUE_LIMIT =
        std::min<uint32_t>(W * 64, uint32_t{std::numeric_limits<V>::max()} + 1);
    static constexpr uint64_t NONE = UINT64_MAX;
    using Lines = engine::LineKernel<W, false, REM, V, R>;

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
    using Runs = std::array<AggregatesAt, CHAINS>;

    // A line's aggregate: its values seen and its remoteness pair.
    struct Place {
        uint64_t* set;
        R* rem;
    };
    static Place place(const AggregatesAt& run, uint64_t at) {
        return {run.set + at * W, REM ? static_cast<R*>(run.rem) + 2 * at : nullptr};
    }
    Place home_place(uint64_t line, const GroupPiece& piece) const {
        const uint64_t l = line + piece.home;
        return {seen + l * W, REM ? line_remoteness + 2 * l : nullptr};
    }
    // Copies n aggregates from `from` to `to`.
    static void copy(Place from, Place to, uint64_t n) {
        std::copy_n(from.set, n * W, to.set);
        if constexpr (REM) std::copy_n(from.rem, 2 * n, to.rem);
    }

    // Sweeps ranks [first, first + count) of one block, every one of one
    // group (its two largest heaps m2 <= m): the store reads children and
    // keeps answers (the distributed solve's PagedStore). `in[c]` holds the
    // aggregates arriving by chain c for these positions (from the block's
    // first position: LARGEST when m is alone, SECOND when the third
    // largest heap is below the piece's first m2; joined in place), `out[c]`
    // receives the ones they pass on by chain c (LARGEST when m < H; SECOND
    // when m2 < m, from the positions whose line of m2 leaves the piece or
    // travels through it); `first` is the block's position `skip` (a part
    // of it). Returns the children read.
    uint64_t sweep(uint64_t first, uint64_t count, const Store& store, const GroupPiece& piece,
                   const Runs& in, const Runs& out, uint64_t skip) const {
        if constexpr (!LAG) {
            if (u.max_heaps() >= 4) {
                typename Lines::Scratch heaps{};
                lines().sweep_runs(first, count, heaps,
                                   Travelling{*this, store, piece, in, out, first, skip});
                return 0;
            }
        }
        return sweep_positions(first, count, store, piece, in, out, skip);
    }

  private:
    Lines lines() const {
        return Lines{.u = u,
                     .amounts = amounts,
                     .near_count = 0,
                     .lag = 0,
                     .value = nullptr,
                     .remoteness = nullptr,
                     .terminal = terminal,
                     .seen = seen,
                     .line_remoteness = line_remoteness,
                     .overflow = overflow};
    }

    // Where a run's lines are for the line kernel's run sweep: at home, or
    // arrived (for K >= 4 only the heaps above the smallest can travel, so
    // which do is the same all along a run); after the run, the lines that
    // leave are copied out.
    struct Travelling {
        const ChainKernel& k;
        const Store& store;
        const GroupPiece& piece;
        const Runs& in;
        const Runs& out;
        uint64_t first, skip;

        void locate(const uint32_t* a, const uint64_t* line, uint64_t rank,
                    typename Lines::RunAt& at) const {
            const unsigned n = k.u.max_heaps();
            const uint32_t m = a[n - 1], m2 = a[n - 2], m3 = a[n - 3];
            const uint64_t here = skip + (rank - first);
            for (unsigned i = 0; i < n; ++i) {
                const Chain c = arrives_by(i, n, m, m2, m3, piece.first);
                const Place p = c == CHAINS ? k.home_place(line[i], piece) : place(in[c], here);
                at.set[i] = p.set;
                at.rem[i] = p.rem;
            }
            at.value = store.value + (rank - store.block_first);
            at.remoteness = REM ? store.remoteness + (rank - store.block_first) : nullptr;
        }
        // The lines of the run that leave with it: each distinct heap's
        // stretch, heap 1's for the positions below a1, and heap 0's where
        // the run ends at a0 = a1 (the line of a1 then).
        void swept(const uint32_t* a, uint64_t rank, uint64_t len, uint64_t below_a1,
                   const typename Lines::RunAt& at) const {
            const unsigned n = k.u.max_heaps();
            const uint32_t m = a[n - 1], m2 = a[n - 2], m3 = a[n - 3];
            const uint64_t here = skip + (rank - first);
            for (unsigned i = 1; i < n; ++i) {
                if (a[i - 1] == a[i]) continue;
                const Chain c = leaves_by(a[i], m, m2, m3, piece.first, piece.last);
                if (c == CHAINS || !out[c].set) continue;
                copy({at.set[i], at.rem[i]}, place(out[c], here), i == 1 ? below_a1 : len);
            }
            if (a[0] + len - 1 == a[1]) {
                const Chain c = leaves_by(a[1], m, m2, m3, piece.first, piece.last);
                if (c != CHAINS && out[c].set)
                    copy({at.set[0], at.rem[0]}, place(out[c], here + len - 1), 1);
            }
        }
    };

    uint64_t sweep_positions(uint64_t first, uint64_t count, const Store& store,
                             const GroupPiece& piece, const Runs& in, const Runs& out,
                             uint64_t skip) const {
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
            const uint64_t here = skip + at;  // in the block's runs
            // Where the line of heap a[i] is: arrived, or at home.
            const auto where = [&](unsigned i) {
                const Chain c = arrives_by(i, k, m, m2, m3, piece.first);
                return c == CHAINS ? home_place(line[i], piece) : place(in[c], here);
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
                const Place p = where(i);
                for (unsigned w = 0; w < W; ++w) set[w] |= p.set[w];
                if constexpr (REM) {
                    max_rem = std::max(max_rem, p.rem[0]);
                    neg_min_rem_p = std::max(neg_min_rem_p, p.rem[1]);
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
            // Each line takes its point v - lag (p itself for Nim), in place
            // (at home or arrived); the lines of heaps m and m2 (< m) leave
            // the group with p, by their chains: p is the last point of the
            // group on them.
            for (unsigned i = 0; i < k; ++i) {
                if (i > 0 && a[i - 1] == a[i]) continue;
                uint32_t jv = mex;
                R jr = r;
                bool joins = true;
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
                const Place p = where(i);
                if (joins) engine::join_line<W, REM>(p.set, p.rem, 0, jv, jr);
                const Chain c = leaves_by(a[i], m, m2, m3, piece.first, piece.last);
                if (c != CHAINS && out[c].set) copy(p, place(out[c], here), 1);
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
// heaps): a process holds its level's area and the next sum's, and the
// areas of levels swept, idle until the next levels' take them
// (LineChain::take_area). Areas are in huge pages: a page fault every 4 KiB
// cost a third of a -np 2 job's system time.
struct Arrivals {
    static constexpr uint64_t NONE = UINT64_MAX;
    size_t b0 = 0, b1 = 0;         // the level's blocks (Layout::local_plan)
    std::vector<uint64_t> slot;    // per (block - b0) * CHAINS + chain: its first word, or NONE
    std::vector<uint64_t> filled;  // per slot: the aggregates arrived
    uint64_t bytes = 0;            // of the slots
    engine::LargeBuffer area;      // at least `bytes`

    uint64_t* words() const { return static_cast<uint64_t*>(area.data()); }
};

// The line chain (line_chain.h) on this process: its home lines, and the
// aggregates arriving for the level being swept and for later ones.
struct LineChain {
    AggregateShape shape;           // of the aggregates, at home and travelling (W: shape.w)
    std::vector<uint32_t> amounts;  // near, then lag (when lag > 0)
    size_t near_count = 0;
    uint32_t lag = 0;
    std::vector<uint64_t> home;  // per group: home line minus line index (mod 2^64)
    std::vector<uint32_t> piece_first, piece_last;  // per group: its piece's m2 run
    // The home lines' aggregates, in small pages touched as first used and
    // given back once no position of this process touches them again
    // (done_after): seen holds home line * W + word, remoteness home line *
    // 2 remoteness of the array's width.
    uint64_t lines = 0;
    engine::LargeBuffer seen, remoteness;
    // Per level: the runs of home lines [first, end) no later level touches.
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> done_after;
    Arrivals now;
    std::map<size_t, Arrivals> later;  // by level
    // The buffers buffer() gives, in use or idle (held here alone).
    struct Spare {
        std::shared_ptr<uint64_t[]> buffer;
        uint64_t words;
    };
    std::vector<Spare> spare;
    // Areas of levels swept (Arrivals::area), for the next levels: a slot
    // is read only once its aggregates are written, so an area is reused as
    // it is, where a new one is zeroed by the system first (nim misere K=7
    // H=63 at -np 2: 12 GiB of new huge pages, 11 % of the samples of a
    // process in clear_page at K=8). At most IDLE_AREAS are kept, smallest
    // first.
    static constexpr size_t IDLE_AREAS = 2;
    std::vector<engine::LargeBuffer> idle_areas;

    // An area of at least `bytes`: the smallest idle one that holds them,
    // else the largest grown (mremap keeps its pages), else a new one.
    engine::LargeBuffer take_area(uint64_t bytes) {
        if (bytes == 0) return {};
        if (idle_areas.empty()) return engine::LargeBuffer(bytes);
        auto it = std::find_if(idle_areas.begin(), idle_areas.end(),
                               [&](const engine::LargeBuffer& a) { return a.bytes() >= bytes; });
        if (it == idle_areas.end()) --it;  // none holds them: the largest
        engine::LargeBuffer area = std::move(*it);
        idle_areas.erase(it);
        area.grow(bytes);
        // Under the address sanitizer, what a level before left is made
        // garbage: a slot read before it is written shows in the MPI tests'
        // tables (tests/e2e/test_mpi.py, identical to one process's).
        if constexpr (engine::ADDRESS_SANITIZER) std::memset(area.data(), 0xA5, area.bytes());
        return area;
    }
    // Keeps the area of arrivals swept for take_area (the smallest idle one
    // let go when more than IDLE_AREAS would be).
    void retire(Arrivals& x) {
        if (!x.area.empty()) {
            const auto at = std::upper_bound(
                idle_areas.begin(), idle_areas.end(), x.area.bytes(),
                [](size_t bytes, const engine::LargeBuffer& a) { return bytes < a.bytes(); });
            idle_areas.insert(at, std::move(x.area));
            if (idle_areas.size() > IDLE_AREAS) idle_areas.erase(idle_areas.begin());
        }
        x = {};
    }

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
    LineChain(const engine::Universe& u, const engine::LineShape& line_shape, const ChainDeal& deal,
              int rank, unsigned remoteness_bytes)
        : shape{engine::line_words(u), remoteness_bytes},
          amounts(line_shape.near),
          near_count(line_shape.near.size()),
          lag(line_shape.lag),
          home(deal.owner.size(), 0),
          piece_first(deal.first),
          piece_last(deal.last) {
        if (lag > 0) amounts.push_back(lag);
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
        seen = engine::LargeBuffer(lines * shape.w * 8, false);
        remoteness = engine::LargeBuffer(lines * 2 * remoteness_bytes, false);
    }

    uint64_t* seen_words() const { return static_cast<uint64_t*>(seen.data()); }
    // Gives back the home lines no level after `level` touches.
    void done_with(size_t level) {
        if (level >= done_after.size()) return;
        for (const auto& [first, end] : done_after[level]) {
            seen.give_back(first * shape.w * 8, end * shape.w * 8);
            remoteness.give_back(first * 2 * shape.rem_bytes, end * 2 * shape.rem_bytes);
        }
        done_after[level] = {};
    }
};

}  // namespace nimtb::mpi
