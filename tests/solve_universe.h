#pragma once
// Solving a universe in one line, and writing its table, for the tests.

#include <string>

#include "engine/solve/solver.h"
#include "io/table_writer.h"
#include "service/request/solve_report.h"

namespace nimtb::test {

// Solves every position of at most `k` heaps of at most `h` tokens under the
// rule text `rule` and convention `c`; other options as given in `o`.
inline engine::Solution solve(const char* rule, engine::Convention c, unsigned k, uint32_t h,
                              engine::SolveOptions o = {}) {
    o.convention = c;
    return engine::solve(engine::Rule::parse(rule), engine::Universe(k, h), o);
}

// The table of `s` written to `path`, as `nimtb solve` writes it (link
// nimtb::io and nimtb::request).
inline void write_solution(const std::string& path, const engine::Solution& s,
                           const io::WriteOptions& o = {}) {
    io::write_table(path, service::table_contents(s), o);
}

}  // namespace nimtb::test
