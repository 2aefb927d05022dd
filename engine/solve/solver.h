#pragma once
// The retrograde solver: value and remoteness of every position of a universe.
//
// Brute force (the default) derives both from the rule's moves alone, as
// docs/FORMAT.md defines them; it never uses the XOR theorem, which `verify` tests.
// The Sprague-Grundy method is theorem-based: normal play only, values only,
// each position's value the XOR of its single heaps' brute-force values.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "engine/base/quantity_array.h"
#include "engine/game/moves.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "engine/solve/solve_order.h"

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

struct Solution;

// Where a brute-force solve keeps its finished levels, so that a solve that
// stops (a crash, a kill, Ctrl-C) resumes at the first unfinished level and
// ends with the same arrays. The engine only calls it; service/request/checkpoint.h keeps
// the levels in files.
class LevelStore {
  public:
    virtual ~LevelStore() = default;
    // Called once before any level is solved, with the arrays allocated at
    // their starting widths. `plan` describes the solve's choices (kernel,
    // blocks, levels) in words: a store saved under another plan must refuse.
    // Fills the positions of the levels saved before (widening an array too
    // narrow for them), sets s.brute_from_level as it was saved, and returns
    // how many levels, from level 0, are done.
    virtual size_t restore(const std::string& plan_key, const SolveOrder& plan, Solution& s) = 0;
    // Level `level` of `plan` is solved (every level below it too): keep it.
    virtual void save(const SolveOrder& plan, size_t level, const Solution& s) = 0;
};

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
};

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
    unsigned max_heaps;
    uint32_t max_heap_size;
    SolveMethod method;
    QuantityArray value;
    QuantityArray remoteness;  // empty when not computed
    uint64_t positions = 0;
    uint64_t p_positions = 0;
    uint32_t max_value = 0;
    uint32_t max_remoteness = 0;
    uint64_t child_lookups = 0;     // brute force only
    Kernel kernel = Kernel::brute;  // the plan's (SolvePlan::kernel)
    // The level from which the brute-force kernel took over from the line
    // kernel (a value its bitset could not hold); 0 when it did not.
    size_t brute_from_level = 0;
    uint32_t max_total = 0;  // N of a total-bounded universe; 0 for a box
    // The brute method: one entry per level of the solve order.
    std::vector<LevelStats> levels = {};
    // The universe the arrays are indexed by.
    Universe universe() const {
        return max_total ? Universe::total_bounded(max_total, max_heaps)
                         : Universe(max_heaps, max_heap_size);
    }
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
    SolveOrder order;          // blocks by level (brute method)
    uint64_t memory = 0;       // bytes of the arrays at their starting widths, and the line store
    // What a checkpoint is saved under: a store saved under another plan
    // refuses to restore. It names the kernel and, in a distributed solve of
    // `processes`, which process saved it.
    std::string key(unsigned process = 0, unsigned processes = 1) const;
};

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
};
ArraySummary summarise(const QuantityArray& value, const QuantityArray& remoteness);

// Bytes a solve would allocate for its arrays: plan_solve(...).memory.
uint64_t estimate_memory(const Rule& rule, const Universe& universe, const SolveOptions& options);

// Solves every position of `universe` under `rule`. Results are bit-identical
// for every thread count. Throws ResourceError, Cancelled, InputError.
Solution solve(const Rule& rule, const Universe& universe, const SolveOptions& options);

}  // namespace nimtb::engine
