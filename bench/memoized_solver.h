#pragma once
// The baseline the solver is measured against: a plain memoized recursive
// solver, single-threaded, values only, with a hash map keyed by the sorted
// heaps. It is what one writes first; the brute-force solver must beat it by
// two orders of magnitude.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::bench {

class MemoizedSolver {
  public:
    MemoizedSolver(engine::Rule rule, engine::Convention convention)
        : rule_(std::move(rule)), convention_(convention) {}
    // The value of a position (any heap order).
    uint32_t value(engine::Heaps heaps);
    // Solves every position of a universe; returns the number of P-positions.
    uint64_t solve_all(const engine::Universe& u);
    // Solves positions of `u` in rank order for about `seconds`; returns how
    // many it solved (all of them when it finished in time).
    uint64_t solve_for(const engine::Universe& u, double seconds);

  private:
    struct Hash {
        size_t operator()(const engine::Heaps& h) const;
    };
    engine::Rule rule_;
    engine::Convention convention_;
    std::unordered_map<engine::Heaps, uint32_t, Hash> memo_;
};

}  // namespace nimtb::bench
