#pragma once
// The retrograde solve spread over the processes of an MPI job.
//
// Every process holds the blocks of the solve order (engine/solve/solve_order.h)
// that it solves, and only those: each level's blocks are dealt out by
// size, largest first, to the process with the least work in that level, so
// every process works in every level. A block is swept by one process, so a
// child inside its own block is at hand; every other child lies in a lower
// level, solved by some process, and is fetched before the sweep. The
// fetches go in rounds: a round takes up to P positions of the process's
// blocks of the level, marks the pages (2^b consecutive ranks) that hold
// their outside children, asks each page's owners for it with one
// MPI_Alltoallv, gets the pages back with another, then sweeps its positions
// with the engine's brute-force kernel reading those pages. P halves when a
// round's pages would pass the page budget and doubles when they stay far
// below it, so a process holds its blocks and at most that budget of pages.
//
// Take rules in a box run the line chain instead (line_chain.h) where one
// process would run its line kernel: blocks dealt by their group of two
// largest heaps, in pieces, for the whole solve (deal.h: chain_deal), one or
// two aggregates passed on a position, exchanged round by round within a
// level (and the pages of the near children and joining points, for a rule
// with a lag). Either way the tables are bit-identical to one process's.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/solve/solver.h"
#include "io/table_writer.h"
#include "mpi/chain_checkpoint.h"
#include "mpi/chunk_encoder.h"
#include "mpi/deal.h"
#include "mpi/mpi_context.h"
#include "mpi/spill.h"
#include "service/request/checkpoint.h"

namespace nimtb::mpi {

// What one process moved in one level: bytes out and in (page requests and
// pages), and the rounds it took.
struct LevelTraffic {
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t rounds = 0;
    uint64_t pages = 0;
};

struct DistributedOptions {
    engine::SolveOptions solve;  // convention, remoteness, threads, progress (process 0), cancel
    std::string checkpoint;      // a folder, or empty
    std::chrono::milliseconds checkpoint_every{1000};
    // Bytes of fetched pages per round; 0: a sixteenth of the process's own
    // arrays, from 1 MB to 64 MB. A round holds about twice this at its peak.
    uint64_t page_budget = 0;
    // Words of aggregates a round of the line chain passes on (by both
    // chains; a block is never cut). Nim's are sent round by round, and the
    // arrivals of the blocks swept are given back to the system, so that a
    // process holds a level's arrivals not yet swept, the next one's and a
    // round's outbox rather than a level's whole outbox. 0: an eighth
    // of the most words arriving for one level of a process, from 2^16 to
    // 2^20 (8 MiB): a round's buffers stay a small part of what it holds.
    uint64_t chain_round_words = 0;
    // The table's path. Each process streams its solved positions to disk
    // beside it (mpi/spill.h; into the checkpoint's folder when there is
    // one: chain_checkpoint.h) where one process's solve would stream (the
    // line kernel without a lag, its bitsets holding every value:
    // engine/solve/plan.cpp). Empty: in memory. The table's chunks a
    // streamed process holds whole are encoded beside the solve as `write`
    // says (chunk_encoder.h).
    std::string table;
    io::WriteOptions write;
    // Says a line to the user (process 0's are shown): the plan, before the solve.
    std::function<void(const std::string&)> say;
};

// One process's part of a solved universe.
struct Share {
    // The arrays hold this process's blocks in the layout's order (empty
    // when the process streamed them to `spilled`); the figures (positions,
    // P-positions, largest value and remoteness, child look-ups, levels)
    // are the whole universe's.
    engine::Solution solution;
    // A streamed process's positions, in the same order: value and, when
    // stored, remoteness.
    std::unique_ptr<Spill> spilled[2];
    // The chunks a streamed process holds whole, per array, encoded (or
    // being encoded, by its encoders) beside the solve from its spills.
    std::unique_ptr<EncodedPart> encoded[2];
    std::unique_ptr<ChunkEncoder> encoders[2];
    // Whether remoteness is stored (not solution.remoteness.empty(): a
    // process may hold no position at all).
    bool remoteness;
    Layout layout;
    // The line chain's aggregates this process keeps at home (0 without the
    // chain, or when a resumed solve finishes by brute force).
    uint64_t home_lines = 0;
    // The most of them it holds at once: touched, not yet given back
    // (Solver::schedule_home_lines).
    uint64_t home_lines_held = 0;
    std::vector<LevelTraffic> traffic;  // this process's, per level
    // This process's part of the checkpoint (when there is one): removed
    // once the table is written, a streamed process's spills and states
    // (chain_checkpoint) first.
    std::unique_ptr<service::Checkpoint> checkpoint;
    std::unique_ptr<ChainCheckpoint> chain_checkpoint;
};

// Solves `universe` with every process of `comm`, each with
// options.solve.threads threads. Collective. Throws SharedError (on every
// process alike: a checkpoint refused, a value beyond 16 bits, Ctrl-C) and
// InputError or ResourceError (the same on every process: they depend on
// the arguments alone).
Share solve_distributed(const Comm& comm, const engine::Rule& rule,
                        const engine::Universe& universe, const DistributedOptions& options);

}  // namespace nimtb::mpi
