// The run of a solve (solver.h): the plan (plan.h, plan.cpp) carried out
// level by level with the kernel it chose, widening an array and solving a
// level again when it meets a number too wide; a streamed solve's groups
// handed to its sink; and the Sprague-Grundy method. The kernels
// themselves live in brute_kernel.h and line_kernel.h. Read bottom-up from
// solve(): its numbered steps are the plan, then the run, then the summary.
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
#include "engine/solve/plan.h"
#include "engine/solve/solve_order.h"

namespace nimtb::engine {

namespace {

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
    // The bytes the plan counted (plan.h: line_store_bytes).
    LineStore(const Universe& u, const ArrayWidths& w)
        : seen(line_seen_bytes(u)), remoteness(line_remoteness_bytes(u, w)) {}
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
                throw ResourceError(streamed_solve_outgrown());
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

std::string streamed_solve_outgrown() {
    return "a value of this universe outgrew the line kernel's bitset, and a streamed solve "
           "cannot hand its levels to the brute-force kernel; solve it with " +
           mention(Option::kernel_brute) + " and memory for every position";
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
    refuse_past_memory(rule, u, plan, options);
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
