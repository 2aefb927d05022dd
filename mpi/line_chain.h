#pragma once
// The line kernel (engine/solve/line_kernel.h) across processes, for the take
// rules in a box (nim, allbut:, subtract: with long runs): a position's
// children along a line are the prefix below v - lag, summarised by the
// line's aggregate, and its near children v - s, read one by one.
//
// Blocks go to processes by their largest heap m, for the whole solve. A
// position p = q + {v} reads the aggregate of the line of q for each of its
// distinct heaps v:
//   - v is not p's only largest heap: q still holds m, every point q + {w}
//     (w < v) has largest heap m, and the line lives at home, in the store
//     of the process that owns m (lines of one largest heap are one run of
//     indices: engine::line_indices);
//   - v = m is p's only largest heap: the line's points w < m lie with
//     every process. Its aggregate travels instead: the position
//     q + {m - 1} (the line's point just below, which joined it) hands
//     "its line with itself joined" to q + {m}, one level later.
// So each position whose largest heap is below H passes one aggregate on,
// to the position with that heap raised by one: its travelling line with
// itself joined when the largest is alone, else its home line of the
// largest, which no later position of the home process touches. A whole
// block passes to one block (top heaps with the largest raised by one, the
// same lower heaps, ranks shifted by a constant), so aggregates travel as
// runs, a header per block, batched per level in one MPI_Alltoallv, and a
// process holds its positions, its home lines and a level's aggregates in
// flight. With a lag, a line takes the point v - lag, not p itself, and the
// near children are read too: both are children of p, fetched in pages
// round by round as the brute-force kernel's are (ChainChildren); Nim reads
// none.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/game/moves.h"
#include "engine/game/universe.h"
#include "engine/solve/line_kernel.h"

namespace nimtb::mpi {

// An aggregate as it travels: W words of values seen, then one word with
// the largest remoteness (low 32 bits) and R_MAX minus the smallest
// remoteness of value 0 (high 32 bits).
template <unsigned W>
inline constexpr unsigned AGGREGATE_WORDS = W + 1;

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

    // Sweeps ranks [first, first + count) of one block, every one of
    // largest heap m: the store reads children and keeps answers (the
    // distributed solve's PagedStore). `home` maps a line index of largest
    // heap m to its place in this process's store; `in` holds the arriving
    // aggregates of these positions (when m is alone at the top), `out`
    // receives the ones they pass on (when m < H). Returns the children
    // read.
    uint64_t sweep(uint64_t first, uint64_t count, const Store& store, uint64_t home,
                   const uint64_t* in, uint64_t* out) const {
        const unsigned k = u.max_heaps();
        uint32_t a[engine::Universe::MAX_HEAPS];
        uint64_t line[engine::Universe::MAX_HEAPS];
        uint64_t joining[engine::Universe::MAX_HEAPS];  // the rank of the point v - lag
        uint64_t lookups = 0;
        u.unrank(first, a);
        for (uint64_t at = 0; at < count; ++at) {
            const uint64_t rank = first + at;
            engine::line_indices(u, a, line);
            const bool alone = a[k - 2] < a[k - 1];  // the largest heap, distinct
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
                const uint64_t* s;
                R top = 0, neg = 0;
                if (alone && i == k - 1) {
                    s = in + at * A;
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
            // line in place, the travelling one on its way out; the home line
            // of a largest heap that is not alone is complete once it took
            // its point, and goes out.
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
                if (alone && i == k - 1) {
                    if (!out) continue;
                    const uint64_t* s = in + at * A;
                    uint64_t* o = out + at * A;
                    for (unsigned w = 0; w < W; ++w) o[w] = s[w];
                    R top = static_cast<R>(s[W]), n = static_cast<R>(s[W] >> 32);
                    if (joins) {
                        o[jv >> 6] |= uint64_t{1} << (jv & 63);
                        if constexpr (REM) top = std::max(top, jr);
                        if (jv == 0) n = std::max<R>(n, R_MAX - jr);
                    }
                    o[W] = uint64_t{top} | uint64_t{n} << 32;
                    continue;
                }
                const uint64_t l = line[i] + home;
                if (joins) engine::join_line<W, REM>(seen, line_remoteness, l, jv, jr);
                if (out && !alone && a[i] == a[k - 1]) {
                    uint64_t* o = out + at * A;
                    for (unsigned w = 0; w < W; ++w) o[w] = seen[l * W + w];
                    o[W] = 0;
                    if constexpr (REM)
                        o[W] = uint64_t{line_remoteness[2 * l]} |
                               uint64_t{line_remoteness[2 * l + 1]} << 32;
                }
            }
            u.next(a);
        }
        return lookups;
    }
};

// The line chain (line_chain.h) on this process: its home lines, and the
// aggregates that arrived for blocks of later levels.
struct LineChain {
    unsigned bitset_words = 1;      // W
    std::vector<uint32_t> amounts;  // near, then lag (when lag > 0)
    size_t near_count = 0;
    uint32_t lag = 0;
    std::vector<uint64_t> home;  // per largest heap: home line minus line index (mod 2^64)
    std::vector<uint64_t> seen;  // home line * W + word
    std::vector<uint64_t> remoteness_words;  // home line * 2 remoteness of the array's width
    // By the block's offset in this process's arrays: its aggregates, in a
    // buffer that one exchange filled (freed with its last block's).
    struct Arrived {
        std::shared_ptr<const uint64_t[]> buffer;
        const uint64_t* data;
        uint64_t count;
    };
    std::unordered_map<uint64_t, Arrived> pending;
    // Takes the runs of `size` words at `buffer`: a header (the block's
    // offset here, its positions), then their aggregates, run after run.
    void arrive(const std::shared_ptr<const uint64_t[]>& buffer, uint64_t size, unsigned a) {
        for (uint64_t at = 0; at < size;) {
            const uint64_t count = buffer[at + 1];
            pending[buffer[at]] = {buffer, buffer.get() + at + 2, count};
            at += 2 + count * a;
        }
    }

    // The home lines of the largest heaps `owner_of` gives this process.
    LineChain(const engine::Universe& u, const engine::LineShape& shape,
              const std::vector<int>& owner_of, int rank, unsigned remoteness_bytes)
        : bitset_words(engine::line_words(u)),
          amounts(shape.near),
          near_count(shape.near.size()),
          lag(shape.lag),
          home(u.max_heap_size() + 1, 0) {
        if (lag > 0) amounts.push_back(lag);
        const uint64_t k = u.max_heaps();
        uint64_t lines = 0;
        for (uint32_t m = 0; m <= u.max_heap_size(); ++m) {
            if (owner_of[m] != rank) continue;
            home[m] = lines - engine::binomial(m + k - 2, k - 1);  // lines of largest m start there
            lines += engine::binomial(m + k - 2, k - 2);
        }
        seen.assign(lines * bitset_words, 0);
        remoteness_words.assign((lines * 2 * remoteness_bytes + 7) / 8, 0);
    }
};

}  // namespace nimtb::mpi
