#pragma once
// A solve as every front end asks for it: what to solve (rule, convention,
// universe), how (method, kernel, threads), where the table goes and how it is
// stored, and whether the solve can be resumed. The command builds it from
// its options, the Python module from keyword arguments, `play` and `serve`
// for their solves on the spot; it travels to nimtb-mpi as JSON. One
// definition, checked in one place.

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
    // The universe: at most max_heaps heaps of at most max_heap_size tokens
    // (a box), or with max_total every position of at most that many tokens
    // (on at most max_heaps heaps when max_heaps is not 0).
    unsigned max_heaps = 0;
    uint32_t max_heap_size = 0;
    std::optional<uint32_t> max_total;

    engine::SolveMethod method = engine::SolveMethod::brute;
    engine::Kernel kernel = engine::Kernel::automatic;
    bool remoteness = true;  // stored (the brute method only)
    unsigned threads = 0;    // 0: every core

    io::Compression compression = io::Compression::zstd;
    std::optional<int> level;  // 1-9; none: the compression's default
    uint64_t format_version = io::FORMAT_VERSION;
    std::string output;  // the table's path
    bool overwrite = false;

    std::string checkpoint;         // a folder that makes the solve resumable, or empty
    double checkpoint_every = 1.0;  // seconds between the checkpoint's writes
    std::string stats;              // a JSON file for the figures of every level, or empty

    engine::Universe universe() const;
    engine::SolveOptions solve_options() const;  // without hooks
    io::WriteOptions write_options() const;      // without hooks

    // Throws InputError for a request no solve can run: a universe the
    // rule's moves leave, a level or version out of range, a checkpoint or
    // statistics with a method that has no levels.
    void check() const;
};

// The request as JSON (the hand-over to nimtb-mpi), and back; a malformed
// object is an InputError.
nlohmann::json to_json(const SolveRequest& request);
SolveRequest solve_request_from_json(const nlohmann::json& j);

}  // namespace nimtb::service
