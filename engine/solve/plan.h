#pragma once
// The plan of a solve (plan.cpp), as the run (solver.cpp) takes it: what
// solver.h's plan_solve and solve() are made of. Everything a plan decides
// is decided here, before any array exists: the starting widths, the
// kernel, whether the line kernel streams, the memory and its check, the
// blocks; the run only carries it out.

#include <cstdint>

#include "engine/solve/solver.h"

namespace nimtb::engine {

// The plan but its order of blocks, which takes time and memory in
// proportion to the blocks: enough to tell whether the arrays fit. Throws
// what plan_solve throws.
SolvePlan plan_without_order(const Rule& rule, const Universe& u, const SolveOptions& options);
// Refuses (ResourceError) a plan that needs more memory than the solve may hold.
void refuse_past_memory(const Rule& rule, const Universe& u, const SolvePlan& plan,
                        const SolveOptions& options);
// The plan's order of blocks (brute force's levels).
void add_order(const Universe& u, SolvePlan& plan);

// 8 or 16: the width of an array whose numbers reach `bound`; ResourceError
// past 16 bits (`what`: "values", "remoteness").
unsigned bits_for(uint64_t bound, const char* what);
// Bytes of the line kernel's aggregates (the run's LineStore) at widths
// `w`: the values seen on every line, and its two remoteness numbers.
uint64_t line_seen_bytes(const Universe& u);
uint64_t line_remoteness_bytes(const Universe& u, const ArrayWidths& w);
inline uint64_t line_store_bytes(const Universe& u, const ArrayWidths& w) {
    return line_seen_bytes(u) + line_remoteness_bytes(u, w);
}

}  // namespace nimtb::engine
