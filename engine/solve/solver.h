#pragma once
// The retrograde solver: value and remoteness of every position of a universe
// (its result: solution.h), planned once (SolvePlan) and run level by level.
//
// Brute force (the default) derives both from the rule's moves alone, as
// docs/FORMAT.md defines them; it never uses the XOR theorem, which `verify` tests.
// The Sprague-Grundy method is theorem-based: normal play only, values only,
// each position's value the XOR of its single heaps' brute-force values.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "engine/game/moves.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "engine/solve/level_store.h"
#include "engine/solve/rank_sink.h"
#include "engine/solve/solution.h"
#include "engine/solve/solve_order.h"

namespace nimtb::engine {

struct SolveOptions {
    Convention convention = Convention::normal;
    SolveMethod method = SolveMethod::brute;
    Kernel kernel = Kernel::automatic;  // of the brute method
    bool remoteness = true;             // ignored (always false) for sprague_grundy
    unsigned threads = 0;               // 0: every core
    uint64_t memory_limit = 0;          // bytes; 0: what the system has available
    // Called on the calling thread with (positions done, total), at least once
    // per solve step and at the end.
    std::function<void(uint64_t, uint64_t)> progress = nullptr;
    // Set from any thread to stop the solve; solve() then throws Cancelled.
    const std::atomic<bool>* cancel = nullptr;
    // Top heaps that define a block of positions swept in sequence (0: choose).
    unsigned block_heaps = 0;
    // Width values start at (8 or 16; 0: choose). Values and remoteness
    // that outgrow 8 bits are widened to 16 during the solve.
    unsigned value_bits = 0;
    // Resumable solves (brute method): finished levels saved and restored here.
    LevelStore* levels = nullptr;
    // Where a streamed solve hands its positions (rank_sink.h). Given a
    // sink, the solve streams when its kernel allows (SolvePlan::streamed)
    // and then returns a Solution without arrays.
    RankSink* sink = nullptr;
    // Stream whatever the universe's size; InputError where the solve
    // cannot (its kernel reads solved positions back, or a checkpoint).
    bool stream = false;
    // Called once the plan is made and its memory found to fit, before
    // anything is allocated: what the solve will do, to say it first.
    std::function<void(const struct SolvePlan&)> planned = nullptr;
};

// The widths in bits a solve's arrays start at (remoteness 0 when it is not
// stored); a brute-force solve widens them when a level needs it.
struct ArrayWidths {
    unsigned value_bits;
    unsigned remoteness_bits;
};

// What a solve will do, decided once before anything is allocated: the
// kernel (the line kernel's shape when it runs), the widths the arrays start
// at, the blocks and levels of the solve order, and the memory the arrays
// need. One process (solve) and the distributed solve (mpi/) both run a plan
// made here, so they choose alike.
struct SolvePlan {
    SolveMethod method = SolveMethod::brute;
    Kernel kernel = Kernel::brute;  // the brute method's: brute or lines, never automatic
    LineShape lines;                // the line kernel's shape (kernel == lines)
    ArrayWidths widths{8, 0};
    unsigned block_heaps = 0;  // top heaps of a block (brute method)
    // Streamed (the line kernel of a rule whose positions read no solved
    // position back, a sink given, no checkpoint, and a universe of
    // STREAM_FROM positions or more, or one whose arrays would not fit): the
    // order comes in groups of blocks that share their top `group_heaps`
    // heaps, and the arrays are two windows of `window` positions (one
    // group solved into one while the group before it is handed over).
    bool streamed = false;
    unsigned group_heaps = 0;
    uint64_t window = 0;
    SolveOrder order;  // blocks by level (brute method)
    // Bytes of the arrays at their starting widths (a streamed solve's:
    // the window's), the line store, and a streamed solve's sink.
    uint64_t memory = 0;
    // What a checkpoint is saved under: a store saved under another plan
    // refuses to restore. It names the kernel and, in a distributed solve of
    // `processes`, which process saved it.
    std::string key(unsigned process = 0, unsigned processes = 1) const;
};

// Universes from this many positions stream when they can (SolvePlan).
inline constexpr uint64_t STREAM_FROM = uint64_t{1} << 24;

// The plan of a solve of `universe` under `rule`. Throws InputError (a method
// or kernel the rule cannot take, a universe its moves leave) and
// ResourceError (the longest game beyond 16 bits). The memory is estimated,
// not checked: solve() refuses a plan that needs more than the machine has.
SolvePlan plan_solve(const Rule& rule, const Universe& universe, const SolveOptions& options);

// After a level met a number too wide for its array: the array widened to
// 16 bits, or ResourceError when values already are.
void widen_after_overflow(bool value, bool remoteness, Solution& s);

// P-positions, the largest value and the largest remoteness of arrays
// (remoteness may be empty), counted in parallel: a solve's summary. Call
// inside the task arena that should do the work.
struct ArraySummary {
    uint64_t p_positions = 0;
    uint32_t max_value = 0;
    uint32_t max_remoteness = 0;
    // Counts `part` in: the summary of both.
    void add(const ArraySummary& part) {
        p_positions += part.p_positions;
        max_value = std::max(max_value, part.max_value);
        max_remoteness = std::max(max_remoteness, part.max_remoteness);
    }
};
// Entries [0, count) of each; count UINT64_MAX: all of them.
ArraySummary summarise(const QuantityArray& value, const QuantityArray& remoteness,
                       uint64_t count = UINT64_MAX);

// Why a streamed solve stops when a value outgrows the line kernel's
// bitsets (it cannot hand its levels to brute force), in one process or many.
std::string streamed_solve_outgrown();

// Throws the ResourceError solve() would throw for a plan that needs more
// memory than the machine has (or options.memory_limit), without solving.
void check_fits(const Rule& rule, const Universe& universe, const SolveOptions& options);

// Bytes a solve would allocate for its arrays: plan_solve(...).memory.
uint64_t estimate_memory(const Rule& rule, const Universe& universe, const SolveOptions& options);

// Solves every position of `universe` under `rule`. Results are bit-identical
// for every thread count. Throws ResourceError, Cancelled, InputError.
Solution solve(const Rule& rule, const Universe& universe, const SolveOptions& options);

}  // namespace nimtb::engine
