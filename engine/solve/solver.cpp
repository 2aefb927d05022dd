// The solver (solver.h): the plan of a solve and its run, level by level,
// with the kernel the plan chose, widening an array and solving a level
// again when it meets a number too wide; and the Sprague-Grundy method.
// One concept, a little over 500 lines: the kernels themselves live in
// brute_kernel.h and line_kernel.h.
#include "engine/solve/solver.h"

#include <fmt/core.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <chrono>
#include <limits>
#include <optional>
#include <vector>

#include "engine/base/names.h"
#include "engine/base/parallel.h"
#include "engine/game/moves.h"
#include "engine/game/total_children.h"
#include "engine/sequences/reference_values.h"
#include "engine/solve/brute_kernel.h"
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

namespace {

unsigned bits_for(uint64_t bound, const char* what) {
    if (bound <= std::numeric_limits<uint8_t>::max()) return 8;
    if (bound <= std::numeric_limits<uint16_t>::max()) return 16;
    throw ResourceError(std::string(what) + " of this universe could reach " +
                        std::to_string(bound) +
                        ", beyond the 16-bit limit of the table format; choose fewer heaps or "
                        "smaller ones");
}

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

// How far a pass got: every level below `level` is solved; when `value` or
// `remoteness` overflowed, level `level` must be solved again (with that
// array widened, or by the brute-force kernel after the line kernel).
struct Pass {
    uint64_t lookups = 0;
    size_t level = 0;
    bool value = false;
    bool remoteness = false;
    bool complete() const { return !value && !remoteness; }
};

bool cancelled(const SolveOptions& o) {
    return o.cancel && o.cancel->load(std::memory_order_relaxed);
}

void report(const SolveOptions& o, uint64_t done, uint64_t total) {
    if (o.progress) o.progress(done, total);
}

// Solves levels [first_level, end_level) of `plan` with `kernel`, until all
// are done or a level meets a number that does not fit (`overflow`, which the
// kernel sets). Each level done is saved in o.levels, when there is one, and
// its positions counted in `done`, the progress reported.
template <class LevelKernel>
Pass run_levels(const Universe& u, const LevelKernel& kernel, const SolveOrder& plan,
                size_t first_level, size_t end_level, uint64_t& done, const Overflow& overflow,
                Solution& s, const SolveOptions& o) {
    Pass pass;
    for (size_t level = first_level; level < end_level; ++level) {
        const size_t lo = plan.level_start[level], hi = plan.level_start[level + 1];
        const auto start = std::chrono::steady_clock::now();
        std::atomic<uint64_t> lookups{0};
        // One task per block, largest first (solve_order.h): blocks differ
        // in size by orders of magnitude, and the level's barrier waits for
        // the last; the auto_partitioner's larger ranges left a thread idle
        // there (Nim misere K=6 H=63, 2 threads: see bench_kernels).
        sync_parallel_for_with(
            tbb::blocked_range<size_t>(lo, hi, 1),
            [&](const tbb::blocked_range<size_t>& r) {
                auto scratch = kernel.scratch();
                uint64_t local = 0;
                for (size_t b = r.begin(); b != r.end(); ++b) {
                    if (cancelled(o)) return;
                    local += kernel.sweep(plan.blocks[b].first, plan.blocks[b].count, scratch);
                }
                lookups.fetch_add(local, std::memory_order_relaxed);
            },
            tbb::simple_partitioner());
        pass.lookups += lookups.load();
        if (cancelled(o)) throw Cancelled();
        LevelStats& stats = s.levels[level];
        stats.lookups = lookups.load();
        stats.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        stats.kernel =
            s.kernel == Kernel::lines && s.brute_from_level == 0 ? Kernel::lines : Kernel::brute;
        if (overflow.value || overflow.remoteness) {
            pass.level = level;
            pass.value = overflow.value;
            pass.remoteness = overflow.remoteness;
            break;
        }
        if (o.levels) o.levels->save(plan, level, s);
        done += stats.positions;
        report(o, done, u.size());
    }
    return pass;
}

// The line kernel's aggregates of the levels below `end_level`, solved
// before a resumed solve began: each position joins its lines again, level
// by level (a line is touched by one block of a level at a time).
template <class Lines>
void rejoin_levels(const Lines& kernel, const SolveOrder& plan, size_t end_level) {
    for (size_t level = 0; level < end_level; ++level) {
        sync_parallel_for_with(
            tbb::blocked_range<size_t>(plan.level_start[level], plan.level_start[level + 1], 1),
            [&](const tbb::blocked_range<size_t>& r) {
                auto scratch = kernel.scratch();
                for (size_t b = r.begin(); b != r.end(); ++b)
                    kernel.rejoin(plan.blocks[b].first, plan.blocks[b].count, scratch);
            },
            tbb::simple_partitioner());
    }
}

template <class Children, bool REM, class V, class R>
Pass run_brute(const Universe& u, const Children& children, const SolveOrder& plan,
               size_t first_level, Solution& s, const SolveOptions& o) {
    Overflow overflow;
    const BruteKernel<Children, REM, V, R> kernel{
        .u = u,
        .children_of = children,
        .store = {s.value.data<V>(), REM ? s.remoteness.data<R>() : nullptr},
        .terminal = static_cast<V>(o.convention == Convention::misere ? 1 : 0),
        .overflow = &overflow};
    uint64_t done = plan.positions_below(first_level);
    report(o, done, u.size());
    return run_levels(u, kernel, plan, first_level, plan.levels(), done, overflow, s, o);
}

// The line kernel's aggregates: per line, W words of values seen and (when
// remoteness is stored) two remoteness numbers of the array's width.
struct LineStore {
    static uint64_t seen_bytes(const Universe& u) { return line_count(u) * line_words(u) * 8; }
    static uint64_t remoteness_bytes(const Universe& u, const ArrayWidths& w) {
        return line_count(u) * 2 * (w.remoteness_bits / 8);
    }
    static uint64_t bytes(const Universe& u, const ArrayWidths& w) {
        return seen_bytes(u) + remoteness_bytes(u, w);
    }
    LineStore(const Universe& u, const ArrayWidths& w)
        : seen(seen_bytes(u)), remoteness(remoteness_bytes(u, w)) {}
    LargeBuffer seen;
    LargeBuffer remoteness;
};

template <unsigned W, bool LAG, bool REM, class V, class R>
LineKernel<W, LAG, REM, V, R> line_kernel(const Universe& u, const LineShape& shape,
                                          const std::vector<uint32_t>& amounts, LineStore& store,
                                          uint64_t base, Overflow& overflow,
                                          const QuantityArray& value,
                                          const QuantityArray& remoteness, const SolveOptions& o) {
    return {.u = u,
            .amounts = amounts.data(),
            .near_count = shape.near.size(),
            .lag = shape.lag,
            .value = value.data<V>(),
            .remoteness = REM ? remoteness.data<R>() : nullptr,
            .base = base,
            .terminal = static_cast<V>(o.convention == Convention::misere ? 1 : 0),
            .seen = static_cast<uint64_t*>(store.seen.data()),
            .line_remoteness = static_cast<R*>(store.remoteness.data()),
            .overflow = &overflow.value};
}

template <unsigned W, bool LAG, bool REM, class V, class R>
Pass run_lines(const Universe& u, const LineShape& shape, LineStore& store, const SolveOrder& plan,
               size_t first_level, Solution& s, const SolveOptions& o) {
    std::vector<uint32_t> amounts = shape.near;
    if constexpr (LAG) amounts.push_back(shape.lag);
    Overflow overflow;
    const auto kernel = line_kernel<W, LAG, REM, V, R>(u, shape, amounts, store, 0, overflow,
                                                       s.value, s.remoteness, o);
    if (first_level > 0) rejoin_levels(kernel, plan, first_level);
    uint64_t done = plan.positions_below(first_level);
    report(o, done, u.size());
    return run_levels(u, kernel, plan, first_level, plan.levels(), done, overflow, s, o);
}

// A streamed solve: the line kernel group by group, its arrays two windows
// of one group each (the kernel reads no solved position back: it is
// planned only without a lag). A group is solved into one window while the
// group before it, in the other, is handed to the sink and summarised, so
// the sink's work fills the cores a level of few blocks leaves idle; the
// sink is still called in rank order, one group at a time.
template <unsigned W, bool LAG, bool REM, class V, class R>
void run_streamed(const Universe& u, const LineShape& shape, LineStore& store,
                  const SolveOrder& plan, Solution& s, const SolveOptions& o) {
    static_assert(!LAG);
    const std::vector<uint32_t> amounts = shape.near;
    struct Window {
        QuantityArray value, remoteness;
    };
    Window windows[2] = {{std::move(s.value), std::move(s.remoteness)}, {}};
    windows[1].value = QuantityArray(windows[0].value.size(), windows[0].value.bits());
    if (!windows[0].remoteness.empty())
        windows[1].remoteness =
            QuantityArray(windows[0].remoteness.size(), windows[0].remoteness.bits());
    Overflow overflow;
    ArraySummary total;
    uint64_t done = 0;
    report(o, done, u.size());
    tbb::task_group handing;
    try {
        for (size_t g = 0; g < plan.groups.size(); ++g) {
            const Group& group = plan.groups[g];
            const Window& window = windows[g % 2];
            const size_t end_level =
                g + 1 < plan.groups.size() ? plan.groups[g + 1].first_level : plan.levels();
            const auto kernel =
                line_kernel<W, LAG, REM, V, R>(u, shape, amounts, store, group.first, overflow,
                                               window.value, window.remoteness, o);
            const Pass pass =
                run_levels(u, kernel, plan, group.first_level, end_level, done, overflow, s, o);
            s.child_lookups += pass.lookups;
            if (!pass.complete()) {
                throw ResourceError(
                    "a value of this universe outgrew the line kernel's bitset, and a streamed "
                    "solve cannot hand its levels to the brute-force kernel; solve it with " +
                    mention(Option::kernel_brute) + " and memory for every position");
            }
            // The group before is handed over (its window is the next group's).
            sync_wait(handing);
            sync_run(handing, [&o, &total, &window, first = group.first, count = group.count] {
                o.sink->take(first, count, window.value, window.remoteness);
                total.add(summarise(window.value, window.remoteness, count));
            });
        }
        sync_wait(handing);
    } catch (...) {
        // The hand-over reads a window: it ends before the windows do.
        try {
            handing.wait();
        } catch (...) {  // the first error is the one reported
        }
        throw;
    }
    s.p_positions = total.p_positions;
    s.max_value = total.max_value;
    s.max_remoteness = total.max_remoteness;
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
    if (plan.kernel == Kernel::lines) bytes += LineStore::bytes(u, w);
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

// Runs `plan`'s levels from `level` on with `kernel`, at the widths the
// arrays have now: the one dispatch of a kernel and its instantiation.
Pass run_kernel(const Rule& rule, const Universe& u, const SolvePlan& plan, Kernel kernel,
                LineStore* store, size_t level, Solution& s, const SolveOptions& o) {
    const unsigned rem_bits = s.remoteness.empty() ? 0 : s.remoteness.bits();
    switch (kernel) {
        case Kernel::lines:
            return with_widths(s.value.bits(), rem_bits, [&]<bool REM, class V, class R>() {
                return with_line_kernel(line_words(u), plan.lines.lag > 0,
                                        [&]<unsigned W, bool LAG>() {
                                            return run_lines<W, LAG, REM, V, R>(
                                                u, plan.lines, *store, plan.order, level, s, o);
                                        });
            });
        case Kernel::brute:
        case Kernel::automatic:  // never planned
            break;
    }
    const TakeAmounts amounts(rule, u.max_heap_size());
    return with_children(rule, u, amounts, [&]<class Children>(const Children& children) {
        return with_widths(s.value.bits(), rem_bits, [&]<bool REM, class V, class R>() {
            return run_brute<Children, REM, V, R>(u, children, plan.order, level, s, o);
        });
    });
}

// A streamed solve's run: its arrays are the window, the summary is made
// group by group, and the arrays are let go at the end.
void solve_streamed(const Universe& u, const SolvePlan& plan, Solution& s, const SolveOptions& o) {
    LineStore store(u, plan.widths);
    const unsigned rem_bits = s.remoteness.empty() ? 0 : s.remoteness.bits();
    with_widths(s.value.bits(), rem_bits, [&]<bool REM, class V, class R>() {
        with_line_kernel(line_words(u), false, [&]<unsigned W, bool LAG>() {
            if constexpr (!LAG)
                run_streamed<W, false, REM, V, R>(u, plan.lines, store, plan.order, s, o);
        });
    });
    s.value = {};
    s.remoteness = {};
    s.streamed = true;
}

// Retrograde analysis of the whole universe with the plan's kernel. The
// line kernel runs until a value outgrows its bitset, and brute force takes
// over at that level; brute force widens an array and solves a level again
// whenever the level meets a number too wide for it.
void solve_retrograde(const Rule& rule, const Universe& u, const SolvePlan& plan, Solution& s,
                      const SolveOptions& o) {
    const SolveOrder& order = plan.order;
    const uint64_t entries = plan.streamed ? plan.window : u.size();
    s.value = QuantityArray(entries, plan.widths.value_bits);
    if (plan.widths.remoteness_bits) {
        s.remoteness = QuantityArray(entries, plan.widths.remoteness_bits);
    }
    s.kernel = plan.kernel;
    // A resumed solve starts at its first unfinished level, under the same
    // plan: the same kernel, blocks and starting widths.
    s.levels.assign(order.levels(), LevelStats{});
    for (size_t l = 0; l < order.levels(); ++l) {
        s.levels[l].blocks = order.level_start[l + 1] - order.level_start[l];
        s.levels[l].positions = order.positions_in(l);
    }
    if (plan.streamed) return solve_streamed(u, plan, s, o);
    size_t level = 0;
    if (o.levels) {
        level = o.levels->restore(plan.key(), order, s);
        for (size_t l = 0; l < level; ++l) s.levels[l].restored = true;
    }
    if (level == order.levels()) return;  // every level was saved
    // The line kernel, unless a resumed solve had left it for brute force.
    if (plan.kernel == Kernel::lines && s.brute_from_level == 0) {
        LineStore store(u, plan.widths);
        const Pass pass = run_kernel(rule, u, plan, Kernel::lines, &store, level, s, o);
        s.child_lookups += pass.lookups;
        if (pass.complete()) return;
        assert(!pass.remoteness);  // R holds the longest game
        level = pass.level;
        s.brute_from_level = level;
    }
    for (;;) {
        const Pass pass = run_kernel(rule, u, plan, Kernel::brute, nullptr, level, s, o);
        s.child_lookups += pass.lookups;
        if (pass.complete()) return;
        widen_after_overflow(pass.value, pass.remoteness, s);
        level = pass.level;
    }
}

// Theorem-based values: the XOR of the single heaps' brute-force values.
template <class V>
void run_sprague_grundy(const Universe& u, const std::vector<uint32_t>& single, Solution& s,
                        const SolveOptions& o) {
    V* value = s.value.data<V>();
    const uint64_t total = u.size();
    // Slices bound the time between progress reports and cancellation checks.
    const uint64_t slice = std::max<uint64_t>(uint64_t{1} << 22, total / 64);
    report(o, 0, total);
    for (uint64_t start = 0; start < total; start += slice) {
        const uint64_t end = std::min(total, start + slice);
        sync_parallel_for(tbb::blocked_range<uint64_t>(start, end, 1 << 14),
                          [&](const tbb::blocked_range<uint64_t>& r) {
                              std::vector<uint32_t> heaps(u.max_heaps());
                              u.unrank(r.begin(), heaps.data());
                              for (uint64_t rank = r.begin(); rank != r.end(); ++rank) {
                                  uint32_t x = 0;
                                  for (uint32_t a : heaps) x ^= single[a];
                                  value[rank] = static_cast<V>(x);
                                  u.next(heaps.data());
                              }
                          });
        if (cancelled(o)) throw Cancelled();
        report(o, end, total);
    }
}

}  // namespace

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

namespace {

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

void add_order(const Universe& u, SolvePlan& plan) {
    if (plan.method == SolveMethod::brute)
        plan.order = make_order(u, plan.block_heaps, plan.streamed ? plan.group_heaps : 0);
}

}  // namespace

SolvePlan plan_solve(const Rule& rule, const Universe& u, const SolveOptions& options) {
    SolvePlan plan = plan_without_order(rule, u, options);
    add_order(u, plan);
    return plan;
}

uint64_t estimate_memory(const Rule& rule, const Universe& u, const SolveOptions& options) {
    return plan_without_order(rule, u, options).memory;
}

void widen_after_overflow(bool value, bool remoteness, Solution& s) {
    if (value) {
        if (s.value.bits() == 16) {
            throw ResourceError(
                "values of this universe exceed 65535, beyond the 16-bit "
                "limit of the table format; choose smaller heaps");
        }
        s.value.widen();
    }
    if (remoteness) s.remoteness.widen();  // the longest game < 65536 was checked
}

namespace {

// Entries [first, end) of the typed arrays (remoteness null: not stored).
template <class V, class R>
ArraySummary summarise_slice(const V* value, const R* remoteness, uint64_t first, uint64_t end) {
    ArraySummary acc;
    uint64_t p = 0;
    V max_value = 0;
    for (uint64_t i = first; i != end; ++i) {
        p += value[i] == 0;
        max_value = std::max(max_value, value[i]);
    }
    acc.p_positions = p;
    acc.max_value = max_value;
    if (remoteness) {
        R max_remoteness = 0;
        for (uint64_t i = first; i != end; ++i)
            max_remoteness = std::max(max_remoteness, remoteness[i]);
        acc.max_remoteness = max_remoteness;
    }
    return acc;
}

}  // namespace

// Each slice of 64 Ki positions counts into its own slot; the slots are
// combined in order afterwards.
ArraySummary summarise(const QuantityArray& value, const QuantityArray& remoteness,
                       uint64_t count) {
    constexpr uint64_t SLICE = uint64_t{1} << 16;
    const uint64_t n = std::min(count, value.size());
    std::vector<ArraySummary> slices((n + SLICE - 1) / SLICE);
    const unsigned remoteness_bits = remoteness.empty() ? 0 : remoteness.bits();
    with_widths(value.bits(), remoteness_bits, [&]<bool, class V, class R>() {
        const V* v = value.data<V>();
        const R* r = remoteness.empty() ? nullptr : remoteness.data<R>();
        sync_parallel_for(uint64_t{0}, uint64_t{slices.size()}, [&](uint64_t slice) {
            slices[slice] =
                summarise_slice<V, R>(v, r, slice * SLICE, std::min(n, (slice + 1) * SLICE));
        });
    });
    ArraySummary total;
    for (const ArraySummary& part : slices) total.add(part);
    return total;
}

Solution solve(const Rule& rule, const Universe& u, const SolveOptions& options) {
    // 1. SolveOrder, and check that the arrays fit before allocating them, or
    // the order of blocks (a universe far too large has billions of blocks).
    SolvePlan plan = plan_without_order(rule, u, options);
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
        throw ResourceError("solving " + std::to_string(u.size()) + " positions needs " +
                            format_bytes(needed) + " of memory, but only " + format_bytes(limit) +
                            " is available; " + instead);
    }
    add_order(u, plan);
    if (options.planned) options.planned(plan);

    Solution s{rule, options.convention, u.bounds(), options.method, {}, {}};
    s.positions = u.size();

    // 2. Fill the arrays inside an arena of the requested size.
    tbb::task_arena arena(options.threads ? static_cast<int>(options.threads)
                                          : tbb::task_arena::automatic);
    arena.execute([&] {
        if (options.method == SolveMethod::brute) {
            solve_retrograde(rule, u, plan, s, options);
        } else {
            const std::vector<uint32_t> g = grundy_sequence(rule, u.max_heap_size());
            const uint32_t max_g = *std::max_element(g.begin(), g.end());
            s.value =
                QuantityArray(u.size(), bits_for(std::bit_ceil(uint64_t{max_g} + 1) - 1, "values"));
            if (s.value.bits() == 8) {
                run_sprague_grundy<uint8_t>(u, g, s, options);
            } else {
                run_sprague_grundy<uint16_t>(u, g, s, options);
            }
        }
        // 3. Summaries for the report (a streamed solve made its own).
        if (s.streamed) return;
        const ArraySummary stats = summarise(s.value, s.remoteness);
        s.p_positions = stats.p_positions;
        s.max_value = stats.max_value;
        s.max_remoteness = stats.max_remoteness;
        // A remoteness array the line kernel started wide is stored at the
        // smallest width that holds it, like every other.
        if (s.remoteness.bits() == 16 && s.max_remoteness <= std::numeric_limits<uint8_t>::max()) {
            s.remoteness.narrow();
        }
    });
    return s;
}

}  // namespace nimtb::engine
