// The plan of a solve (plan.h, solver.h): the widths the arrays start at,
// the kernel, whether the line kernel streams and in which groups, the
// memory and its check, the blocks and levels. Read top-down: the parts,
// then plan_without_order, which puts them together.
#include "engine/solve/plan.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <string>

#include "engine/base/memory.h"
#include "engine/base/names.h"
#include "engine/game/moves.h"
#include "engine/solve/line_kernel.h"
#include "engine/solve/solve_order.h"

namespace nimtb::engine {

namespace {
constexpr Named<Kernel> KERNELS[] = {
    {Kernel::automatic, "auto"}, {Kernel::brute, "brute"}, {Kernel::lines, "lines"}};
constexpr Named<SolveMethod> METHODS[] = {{SolveMethod::brute, "brute"},
                                          {SolveMethod::sprague_grundy, "sprague-grundy"},
                                          {SolveMethod::sprague_grundy, "sg"}};
}  // namespace

const char* to_string(Kernel kernel) {
    return name_of(KERNELS, kernel);
}
Kernel parse_kernel(std::string_view text) {
    return parse_name(KERNELS, text, "kernel");
}
const char* to_string(SolveMethod method) {
    return name_of(METHODS, method);
}
SolveMethod parse_method(std::string_view text) {
    return parse_name(METHODS, text, "method");
}

unsigned bits_for(uint64_t bound, const char* what) {
    if (bound <= std::numeric_limits<uint8_t>::max()) return 8;
    if (bound <= std::numeric_limits<uint16_t>::max()) return 16;
    throw ResourceError(std::string(what) + " of this universe could reach " +
                        std::to_string(bound) +
                        ", beyond the 16-bit limit of the table format; choose fewer heaps or "
                        "smaller ones");
}

uint64_t line_seen_bytes(const Universe& u) {
    return line_count(u) * line_words(u) * 8;
}

uint64_t line_remoteness_bytes(const Universe& u, const ArrayWidths& w) {
    return line_count(u) * 2 * (w.remoteness_bits / 8);
}

namespace {

// The longest game: in a box each move takes a token; under a total a move
// takes a token or splits a heap, and there are at most N heaps.
uint64_t longest_game(const Universe& u) {
    return u.is_box() ? uint64_t{u.max_heaps()} * u.max_heap_size() : 2 * uint64_t{u.max_total()};
}

// The widths a solve starts with. Remoteness is at most the length of the
// longest game, each move taking at least one token, so K*H bounds it; a
// value is a mex, at most the number of children. Both bounds are loose (Nim
// misere with 5 heaps of 63 has values below 64 and remoteness up to 252), so
// both start at 8 bits unless a single heap alone has 256 moves, and the solve
// widens an array in place when a level meets a larger number (the memory
// planned counts remoteness at the width its bound may need: plan_memory).
ArrayWidths widths(const Rule& rule, const Universe& u, const SolveOptions& options) {
    const uint64_t h = u.max_heap_size();
    const uint64_t longest = longest_game(u);
    if (options.method == SolveMethod::sprague_grundy) {
        // Single-heap values are at most H (a heap has at most H moves); the
        // XOR of values below 2^b stays below 2^b.
        return {bits_for(std::bit_ceil(h + 1) - 1, "values"), 0};
    }
    if (options.remoteness) bits_for(longest, "remoteness");  // refuses what 16 bits cannot hold
    const uint64_t per_heap = rule.amounts_up_to(static_cast<uint32_t>(h)).size();
    const unsigned value_bits = options.value_bits ? options.value_bits
                                : per_heap > std::numeric_limits<uint8_t>::max() ? 16u
                                                                                 : 8u;
    return {value_bits, options.remoteness ? 8u : 0u};
}

// Bytes the plan needs: the arrays (every position, or a streamed solve's
// two windows) at their starting widths, remoteness at the width the longest game
// may need (widened in place, the peak is the wider array alone), the line
// store and a streamed solve's sink. A value array widened past 8 bits (a
// value of 256 or more, which needs as many moves) needs its 8 bits more.
uint64_t plan_memory(const Universe& u, const SolvePlan& plan, const SolveOptions& o) {
    const ArrayWidths& w = plan.widths;
    const unsigned rem_bits = w.remoteness_bits && longest_game(u) > 0xff ? 16 : w.remoteness_bits;
    uint64_t bytes = (plan.streamed ? 2 * plan.window : u.size()) * ((w.value_bits + rem_bits) / 8);
    if (plan.kernel == Kernel::lines) bytes += line_store_bytes(u, w);
    if (plan.streamed) bytes += o.sink->memory(w.value_bits, w.remoteness_bits);
    return bytes;
}

// Positions a streamed solve's window holds at most: 2^27 (384 MiB at 8-bit
// values and 16-bit remoteness), beside K=8 H=63's line store of 13.4 GiB.
constexpr uint64_t WINDOW_LIMIT = uint64_t{1} << 27;

// Whether the line kernel's solve streams (SolvePlan::streamed), and then
// its groups and blocks: the fewest top heaps p whose group (K - p heaps
// below p heaps of H) fits the window, and blocks of p + 2 top heaps, so
// that a level has many blocks; at most K - 1 of them, so that a block is
// more than one position.
void plan_streaming(const Universe& u, const SolveOptions& o, SolvePlan& plan) {
    const unsigned k = u.max_heaps();
    const uint64_t h = u.max_heap_size();
    if (!o.sink || o.levels || plan.lines.lag > 0 || !u.is_box() || k < 3) return;
    // A streamed solve cannot hand a level to brute force: it streams only
    // where the bitset holds every value Nim's can take, below the power of
    // two above H (a XOR of heaps; misere values too). Were one larger, the
    // solve would stop with an error, never a wrong table.
    if (uint64_t{line_words(u)} * 64 < std::bit_ceil(h + 1)) return;
    const uint64_t limit = o.memory_limit ? o.memory_limit : available_memory();
    if (!o.stream && u.size() < STREAM_FROM && (limit == 0 || plan_memory(u, plan, o) <= limit))
        return;
    unsigned p = 1;
    while (p + 1 < k && binomial(h + k - p, k - p) > WINDOW_LIMIT) ++p;
    plan.streamed = true;
    plan.group_heaps = p;
    plan.window = binomial(h + k - p, k - p);
    plan.block_heaps = o.block_heaps > p ? std::min(o.block_heaps, k) : std::min(p + 2, k - 1);
}

// The kernel and widths of a brute-force solve: the line kernel where the
// rule has lines and they pay (or --kernel lines says so), brute force
// otherwise; and whether the line kernel streams.
void choose_kernel(const Rule& rule, const Universe& u, const SolveOptions& o, SolvePlan& plan) {
    if (o.method != SolveMethod::brute || o.kernel == Kernel::brute) return;
    std::optional<LineShape> shape = line_shape(rule, u);
    if (!shape) {
        if (o.kernel == Kernel::lines) {
            throw InputError(
                "the line kernel needs a rule that takes from one heap (nim, "
                "subtract:, allbut:) in a universe of at most K heaps of at most H; " +
                rule.canonical() + " in " + u.describe() + " has no lines: use " +
                mention(Option::kernel_brute));
        }
        return;
    }
    if (o.kernel == Kernel::automatic && !lines_pay(*shape, u)) return;
    SolvePlan lines = plan;
    lines.kernel = Kernel::lines;
    lines.lines = std::move(*shape);
    // Remoteness starts wide enough for the longest game (line_remoteness_bits);
    // the solve narrows it at the end.
    if (lines.widths.remoteness_bits) lines.widths.remoteness_bits = line_remoteness_bits(u);
    plan_streaming(u, o, lines);
    // Automatic: where the store would not fit in memory but the arrays
    // alone would, brute force still solves the universe (where neither
    // fits, the refusal gives the line kernel's figure, the smaller).
    if (o.kernel == Kernel::automatic) {
        const uint64_t limit = o.memory_limit ? o.memory_limit : available_memory();
        if (limit != 0 && plan_memory(u, lines, o) > limit && plan_memory(u, plan, o) <= limit)
            return;
    }
    plan = std::move(lines);
}

}  // namespace

// The plan but its order of blocks, which takes time and memory in
// proportion to the blocks: enough to tell whether the arrays fit. Their
// memory is the arrays' at their starting widths and the line kernel's
// store; an array widened during the solve needs its 8 bits more per
// position then, and a failure to get them is reported as out of memory.
SolvePlan plan_without_order(const Rule& rule, const Universe& u, const SolveOptions& options) {
    if (options.method == SolveMethod::sprague_grundy && options.convention != Convention::normal) {
        throw InputError(
            "the sprague-grundy method holds for normal play only; use the brute method for "
            "misere");
    }
    if (options.method == SolveMethod::sprague_grundy && !rule.one_heap()) {
        throw InputError("the sprague-grundy method needs moves that touch one heap, which " +
                         rule.canonical() + " does not have; use the brute method");
    }
    check_closed(rule, u);
    SolvePlan plan;
    plan.method = options.method;
    plan.widths = widths(rule, u, options);
    choose_kernel(rule, u, options, plan);
    if (options.stream && !plan.streamed) {
        throw InputError(
            mention(Option::stream) +
            " needs a solve by one process whose line kernel reads no solved position back "
            "(nim) in a box of 3 heaps or more, without " +
            mention(Option::checkpoint) + "; " + rule.canonical() + " in " + u.describe() +
            " is solved in memory");
    }
    plan.memory = plan_memory(u, plan, options);
    if (options.method == SolveMethod::brute && !plan.streamed) {
        plan.block_heaps = options.block_heaps ? std::min(options.block_heaps, u.max_heaps())
                                               : choose_block_heaps(u);
    }
    return plan;
}

// The plan's order of blocks: brute force's levels (engine/solve/solve_order.h).
void add_order(const Universe& u, SolvePlan& plan) {
    if (plan.method == SolveMethod::brute)
        plan.order = make_order(u, plan.block_heaps, plan.streamed ? plan.group_heaps : 0);
}

// Refuses (ResourceError) a plan whose memory is more than the solve may
// hold (options.memory_limit, else what the machine has available), naming
// what would fit instead: a solve without its checkpoint streams.
void refuse_past_memory(const Rule& rule, const Universe& u, const SolvePlan& plan,
                        const SolveOptions& options) {
    const uint64_t needed = plan.memory;
    const uint64_t limit = options.memory_limit ? options.memory_limit : available_memory();
    if (limit != 0 && needed > limit) {
        // A checkpoint keeps the arrays in memory; without one, it may stream.
        std::string instead = "choose fewer heaps or smaller ones";
        if (options.levels) {
            SolveOptions unsaved = options;
            unsaved.levels = nullptr;
            const SolvePlan streamed = plan_without_order(rule, u, unsaved);
            if (streamed.streamed && streamed.memory <= limit) {
                instead = "without " + mention(Option::checkpoint) + " it streams to disk in " +
                          format_bytes(streamed.memory);
            }
        }
        throw MemoryShortfall("solving " + std::to_string(u.size()) + " positions needs " +
                              format_bytes(needed) + " of memory, but only " + format_bytes(limit) +
                              " is available; " + instead);
    }
}

void check_fits(const Rule& rule, const Universe& u, const SolveOptions& options) {
    refuse_past_memory(rule, u, plan_without_order(rule, u, options), options);
}

SolvePlan plan_solve(const Rule& rule, const Universe& u, const SolveOptions& options) {
    SolvePlan plan = plan_without_order(rule, u, options);
    add_order(u, plan);
    return plan;
}

uint64_t estimate_memory(const Rule& rule, const Universe& u, const SolveOptions& options) {
    return plan_without_order(rule, u, options).memory;
}

std::string SolvePlan::key(unsigned process, unsigned processes) const {
    const std::string runner = processes > 1 ? fmt::format("kernel {}, process {} of {}",
                                                           to_string(kernel), process, processes)
                                             : fmt::format("kernel {}", to_string(kernel));
    return fmt::format(
        "{}, blocks of the top {} heaps, {} blocks in {} levels, values from {} bits, "
        "remoteness from {} bits",
        runner, block_heaps, order.blocks.size(), order.levels(), widths.value_bits,
        widths.remoteness_bits);
}

}  // namespace nimtb::engine
