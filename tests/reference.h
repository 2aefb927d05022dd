#pragma once
// Plain references for the tests: obviously correct, slow, and independent of
// the engine's incremental ranking and solve order.

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::test {

using engine::Heaps;

// Every child of `heaps` (any order) as its sorted non-empty heaps, written
// straight from each family's definition (one heap replaced by what the
// family allows it to become; wythoff's equal amounts from two heaps;
// moore's lowering of 1 to k heaps), independent of the engine's generators.
std::set<Heaps> reference_children(const engine::Rule& rule, const Heaps& heaps);

struct ReferenceResult {
    uint32_t value;
    uint32_t remoteness;
};

// Value and remoteness by their definitions (docs/FORMAT.md), by memoized recursion.
class ReferenceSolver {
  public:
    ReferenceSolver(engine::Rule rule, engine::Convention convention)
        : rule_(std::move(rule)), convention_(convention) {}
    ReferenceResult solve(Heaps heaps);

  private:
    engine::Rule rule_;
    engine::Convention convention_;
    std::map<Heaps, ReferenceResult> memo_;
};

}  // namespace nimtb::test
