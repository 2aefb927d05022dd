#pragma once
// Solving a universe in one line, for the tests.

#include "engine/solve/solver.h"

namespace nimtb::test {

// Solves every position of at most `k` heaps of at most `h` tokens under the
// rule text `rule` and convention `c`; other options as given in `o`.
inline engine::Solution solve(const char* rule, engine::Convention c, unsigned k, uint32_t h,
                              engine::SolveOptions o = {}) {
    o.convention = c;
    return engine::solve(engine::Rule::parse(rule), engine::Universe(k, h), o);
}

}  // namespace nimtb::test
