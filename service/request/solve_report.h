#pragma once
// What a finished solve reports, in one process or many: the summary the
// command prints and the figures of every level (`--stats`), built once for
// both.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/solve/solution.h"
#include "engine/solve/solver.h"
#include "io/codec/table_format.h"
#include "io/table_writer.h"
#include "service/request/solve_request.h"

namespace nimtb::service {

struct SolveReport {
    SolveRequest request;
    std::string universe;  // as Universe::describe() says it
    // The figures of the whole universe (positions, P-positions, largest
    // value and remoteness, look-ups, levels); the arrays are released.
    engine::Solution figures;
    bool remoteness_stored = false;
    double solve_seconds = 0;
    double write_seconds = 0;
    bool distributed = false;  // by nimtb-mpi
    unsigned processes = 1;
    // A distributed solve: each process's peak resident memory, in bytes.
    std::vector<uint64_t> peak_bytes{};
    // One process: the storage lines of the table written, as `info` prints them.
    std::string storage{};
};

// What the table of a solve says about itself (its root's attributes).
io::TableHeader table_header(const engine::Solution& s);
// What the table of a solve holds: its header and `s`'s arrays (which stay
// `s`'s), as io::write_table takes them.
io::TableContents table_contents(const engine::Solution& s);

// What a plan will do, said before a long solve starts: "10639125640
// positions by the line kernel, streamed to disk as solved: 14.1 GiB of
// memory".
std::string plan_line(uint64_t positions, const engine::SolvePlan& plan);

// The summary `nimtb solve` prints.
std::string summary(const SolveReport& report);

// The summary as JSON (a solve's result event): the request, the universe,
// the counts, the largest value and remoteness, the times.
nlohmann::json summary_json(const SolveReport& report);

// The figures of every level as JSON: what `--stats` writes. A distributed
// solve adds each process's traffic to the levels.
nlohmann::json stats_json(const SolveReport& report);

// `j` written to `path` whole (or TableError naming the file).
void write_json_file(const std::string& path, const nlohmann::json& j);

// "1.2M", "340k", "12".
std::string human_count(double n);

}  // namespace nimtb::service
