#pragma once
// A solve as every front end asks for it: what to solve (rule, convention,
// universe), how (method, kernel, threads, memory), where the table goes and
// how it is stored, and whether the solve can be resumed. The command builds
// it from its options; Python's keywords, and the hand-over to nimtb-mpi,
// are its JSON, read by solve_request_from_json; `play` and `serve` build it
// for their solves on the spot. One definition (the fields below, each
// named once in solve_request.cpp's list), checked in one place (check()).
//
// A new option: a field here, its line in FIELDS (its JSON name, which is
// Python's keyword), its use in solve_options() or write_options(), and its
// wording in the command (apps/cmd_solve.cpp) and in Python's signature
// (python/nimtb/_tables.py).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "engine/solve/solver.h"
#include "io/codec/table_format.h"
#include "io/table_writer.h"

namespace nimtb::service {

struct SolveRequest {
    engine::Rule rule = engine::Rule::nim();
    engine::Convention convention = engine::Convention::normal;
    std::optional<engine::Bounds> universe;  // none: check() refuses the request

    engine::SolveMethod method = engine::SolveMethod::brute;
    engine::Kernel kernel = engine::Kernel::automatic;
    bool remoteness = true;  // stored (the brute method only)
    unsigned threads = 0;    // 0: every core
    uint64_t memory = 0;     // bytes the solve may hold; 0: what the machine has available
    bool stream = false;     // to disk as solved, whatever the size (engine::SolveOptions)

    io::Compression compression = io::Compression::zstd;
    std::optional<int> level;  // 1-9; none: the compression's default
    uint64_t format_version = io::FORMAT_VERSION;
    std::string output;  // the table's path
    bool overwrite = false;

    std::string checkpoint;         // a folder that makes the solve resumable, or empty
    double checkpoint_every = 1.0;  // seconds between the checkpoint's writes
    std::string stats;              // a JSON file for the figures of every level, or empty

    // The universe's bounds (check() first: a request without one throws).
    const engine::Bounds& bounds() const;
    engine::SolveOptions solve_options() const;  // without hooks
    io::WriteOptions write_options() const;      // without hooks

    // Throws InputError (ResourceError) for a request no solve can run,
    // before any work: no universe; whatever the plan refuses (a method the
    // convention or rule has not, a universe the rule's moves leave, a
    // kernel the universe cannot take; streaming is the driver's plan's to
    // refuse); a level, version or
    // interval out of range; a level for a codec without levels; a kernel,
    // a checkpoint, statistics or no remoteness with a method that has
    // none; no output.
    void check() const;
};

// The request as JSON, and back. The keys are Python's keywords: `rules`,
// `convention` ("normal" or "misere"), the universe as `heaps` and
// `max_heap` (a box) or `max_total` (and `heaps`), then one key per field
// (FIELDS in solve_request.cpp). Reading, a key left out keeps its
// default; an unknown key, a value of the wrong type or out of range is an
// InputError that names the key.
nlohmann::json to_json(const SolveRequest& request);
SolveRequest solve_request_from_json(const nlohmann::json& j);

}  // namespace nimtb::service
