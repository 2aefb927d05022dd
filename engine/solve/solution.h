#pragma once
// What a solve found: a solved universe in memory (its arrays and figures),
// and the names of the methods and kernels that find one. The solver
// (solver.h) makes it; service/ writes it as a table.

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/base/quantity_array.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

enum class SolveMethod { brute, sprague_grundy };

// The kernel of the brute method. `lines` summarises the children of a take
// rule in a box along lines (engine/solve/line_kernel.h), an order of magnitude
// faster for Nim and allbut:; `brute` visits every child, for every family
// (engine/solve/brute_kernel.h); `automatic`, asked for only, takes lines
// where they pay. Both give bit-identical tables. plan_solve() chooses;
// solve() dispatches on SolvePlan::kernel in one place, and the distributed
// solve (mpi/) runs the same plan. A new kernel is a value here, a branch
// of choose_kernel() and of that dispatch.
enum class Kernel { automatic, brute, lines };
const char* to_string(Kernel kernel);
Kernel parse_kernel(std::string_view text);
const char* to_string(SolveMethod method);
SolveMethod parse_method(std::string_view text);

// What one level of a brute-force solve did: its blocks and positions, the
// children it looked up (under the line kernel: near children and points
// joining lines) and its time; the figures a cost model starts from.
struct LevelStats {
    uint64_t blocks = 0;
    uint64_t positions = 0;
    uint64_t lookups = 0;
    double seconds = 0;
    Kernel kernel = Kernel::brute;
    bool restored = false;  // taken from a checkpoint, not solved by this run
};

// A solved universe, held in memory.
struct Solution {
    Rule rule;
    Convention convention;
    Bounds bounds = Bounds::box(1, 0);  // the universe the arrays are indexed by
    SolveMethod method;
    QuantityArray value;
    QuantityArray remoteness;  // empty when not computed
    // The positions went to SolveOptions::sink as they were solved: value
    // and remoteness are empty, the figures below count every position.
    bool streamed = false;
    uint64_t positions = 0;
    uint64_t p_positions = 0;
    uint32_t max_value = 0;
    uint32_t max_remoteness = 0;
    uint64_t child_lookups = 0;     // brute force only
    Kernel kernel = Kernel::brute;  // the plan's (SolvePlan::kernel)
    // The level from which the brute-force kernel took over from the line
    // kernel (a value its bitset could not hold); 0 when it did not.
    size_t brute_from_level = 0;
    // The brute method: one entry per level of the solve order.
    std::vector<LevelStats> levels = {};
};

}  // namespace nimtb::engine
