#pragma once
// The line kernel (engine/line_kernel.h) across processes, for a box whose
// lines have no lag (Nim: every amount may be taken, so a position's
// children along a line are the whole prefix below it and nothing else).
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
// runs, a header per block, batched per level in one MPI_Alltoallv; nothing
// is fetched per position, and a process holds its positions, its home
// lines and a level's aggregates in flight.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

#include "engine/line_kernel.h"
#include "engine/universe.h"

namespace nimtb::dist {

// An aggregate as it travels: W words of values seen, then one word with
// the largest remoteness (low 32 bits) and R_MAX minus the smallest
// remoteness of value 0 (high 32 bits).
template <unsigned W>
inline constexpr unsigned AGGREGATE_WORDS = W + 1;

template <unsigned W, bool REM, class V, class R>
struct ChainKernel {
    static constexpr R R_MAX = std::numeric_limits<R>::max();
    static constexpr uint32_t VALUE_LIMIT =
        std::min<uint32_t>(W * 64, uint32_t{std::numeric_limits<V>::max()} + 1);
    static constexpr unsigned A = AGGREGATE_WORDS<W>;

    const engine::Universe& u;
    V terminal;
    uint64_t* seen;      // home line * W + word
    R* line_remoteness;  // home line * 2: largest, R_MAX - smallest of value 0
    std::atomic<bool>* overflow;

    // Sweeps one block: ranks [first, first + count), every one of largest
    // heap m. `value`/`remoteness` at the block's first position; `home`
    // maps a line index of largest heap m to its place in this process's
    // store; `in` holds the block's arriving aggregates (when m is alone at
    // the top), `out` receives the ones it passes on (when m < H).
    void sweep(uint64_t first, uint64_t count, V* value, R* remoteness, uint64_t home,
               const uint64_t* in, uint64_t* out) const {
        const unsigned k = u.max_heaps();
        uint32_t a[engine::Universe::MAX_HEAPS];
        uint64_t line[engine::Universe::MAX_HEAPS];
        u.unrank(first, a);
        for (uint64_t at = 0; at < count; ++at) {
            engine::line_indices(u, a, line);
            const bool alone = a[k - 2] < a[k - 1];  // the largest heap, distinct
            uint64_t set[W] = {};
            R max_rem = 0, neg_min_rem_p = 0;
            for (unsigned i = 0; i < k; ++i) {
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
            }
            uint32_t mex = 0;
            R r = 0;
            if (!engine::line_answer<W, REM, VALUE_LIMIT>(set, max_rem, neg_min_rem_p, terminal,
                                                          mex, r))
                overflow->store(true, std::memory_order_relaxed);
            value[at] = static_cast<V>(mex);
            if constexpr (REM) remoteness[at] = r;
            // p joins each of its lines: the home ones in place, the
            // travelling one on its way out; the home line of a largest heap
            // that is not alone is complete once p joined it, and goes out.
            const uint64_t bit = uint64_t{1} << (mex & 63);
            const R neg = mex == 0 ? R(R_MAX - r) : R(0);
            for (unsigned i = 0; i < k; ++i) {
                if (i > 0 && a[i - 1] == a[i]) continue;
                if (alone && i == k - 1) {
                    if (!out) continue;
                    const uint64_t* s = in + at * A;
                    uint64_t* o = out + at * A;
                    for (unsigned w = 0; w < W; ++w) o[w] = s[w];
                    o[mex >> 6] |= bit;
                    const R top = std::max(static_cast<R>(s[W]), REM ? r : R(0));
                    const R n = std::max(static_cast<R>(s[W] >> 32), neg);
                    o[W] = uint64_t{top} | uint64_t{n} << 32;
                    continue;
                }
                const uint64_t l = line[i] + home;
                seen[l * W + (mex >> 6)] |= bit;
                if constexpr (REM) {
                    R* lr = line_remoteness + 2 * l;
                    lr[0] = std::max(lr[0], r);
                    lr[1] = std::max(lr[1], neg);
                }
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
    }
};

}  // namespace nimtb::dist
