#pragma once
// Where a resumable solve keeps its finished levels: the interface the
// solver calls; service/request/checkpoint.h keeps them in files.

#include <cstddef>
#include <string>

#include "engine/solve/solution.h"
#include "engine/solve/solve_order.h"

namespace nimtb::engine {

// A brute-force solve that stops (a crash, a kill, Ctrl-C) resumes at the
// first unfinished level and ends with the same arrays.
class LevelStore {
  public:
    virtual ~LevelStore() = default;
    // Called once before any level is solved, with the arrays allocated at
    // their starting widths. `plan_key` describes the solve's choices
    // (kernel, blocks, levels: SolvePlan::key) in words: a store saved under
    // another plan must refuse.
    // Fills the positions of the levels saved before (widening an array too
    // narrow for them), sets s.brute_from_level as it was saved, and returns
    // how many levels, from level 0, are done.
    virtual size_t restore(const std::string& plan_key, const SolveOrder& order, Solution& s) = 0;
    // Level `level` of `order` is solved (every level below it too): keep it.
    virtual void save(const SolveOrder& order, size_t level, const Solution& s) = 0;
};

}  // namespace nimtb::engine
