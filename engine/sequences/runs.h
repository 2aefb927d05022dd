#pragma once
// The values of a subtraction game as runs: maximal stretches of heaps of
// equal value, computed run by run, so that a game whose amounts are large
// (subtract:1000000000, whose values change every 10^9 heaps) is known, and
// its period proven, after a few runs instead of billions of heaps.
//
// g(n) = mex { g(n - s) : s in S, s <= n }. For S a union of ranges
// [a, b], the heaps a move reaches from n are the intervals [n - b, n - a],
// which slide with n; the set of their values changes only where an end of
// an interval crosses the start of a run: at n = r + a or n = r + b for a
// run starting at r. So g is constant between such events, and each run
// costs a look-up of the runs under every interval.
//
// The proof: g(n) depends only on the B = max(S) values before n. If the
// runs over [n1 - B, n1) and [n2 - B, n2), taken relative to n1 and n2,
// are the same, then g(n + p) = g(n) for every n >= n1 - B with p = n2 - n1
// (the same window gives the same next value, by induction). Windows are
// compared at the start of every run.

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::engine {

struct SubtractionRuns {
    std::vector<uint64_t>
        starts;  // ascending, starts[0] = 0: run i covers [starts[i], starts[i+1])
    std::vector<uint16_t> values;        // the value of each run
    uint64_t end = 0;                    // heaps [0, end) are known (the last run ends there)
    uint64_t preperiod = 0, period = 0;  // g(n + period) = g(n) for every n >= preperiod

    // g(h) for h < end.
    uint32_t value(uint64_t h) const;
    // The run holding h, and where it starts.
    size_t run_of(uint64_t h) const;
    uint64_t run_start(uint64_t h) const { return starts[run_of(h)]; }
    // The largest x in [lo, hi] (hi < end) with g(x) = target.
    std::optional<uint64_t> last_worth(uint64_t lo, uint64_t hi, uint32_t target) const;
};

// The runs of a subtraction game until its period is proven, computing at
// most `max_runs` runs; nullopt when no period is proven within them.
// Throws InputError for another rule, Cancelled when `cancel` is set.
std::optional<SubtractionRuns> subtraction_runs(const Rule& rule, uint64_t max_runs,
                                                const std::atomic<bool>* cancel = nullptr);

}  // namespace nimtb::engine
