#include "mpi/distributed_solver.h"

#include <fmt/core.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/task_arena.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "engine/base/memory.h"
#include "engine/base/parallel.h"
#include "engine/solve/brute_kernel.h"
#include "engine/solve/line_kernel.h"
#include "engine/solve/plan.h"
#include "engine/solve/solve_order.h"
#include "io/table_layout.h"
#include "mpi/chain_checkpoint.h"
#include "mpi/chunk_encoder.h"
#include "mpi/deal.h"
#include "mpi/level_solver.h"
#include "mpi/line_chain.h"
#include "mpi/page_store.h"
#include "mpi/parallel_writer.h"
#include "service/request/checkpoint.h"

namespace nimtb::mpi {

namespace {

namespace fs = std::filesystem;
using engine::Block;
using engine::SolveOrder;
using engine::Universe;

// What writing the table adds to a process (parallel_writer.cpp): a
// round's traded pieces (sent, received, in order: three times
// write_round_bytes, counted as four), a chunk raw and encoded, the
// compressor's context (6.6 MB for zstd's level 7) and, on process 0, HDF5
// and io::write_table's buffers: misere Kayles N <= 70 at -np 4 (rounds of
// 1 MiB) peaked 5 MB above its solve's figure.
uint64_t write_bytes(const Universe& u, int processes) {
    return 4 * write_round_bytes(u.size(), processes) + (uint64_t{12} << 20);
}

// The checkpoint of process `rank`: DIR/process-<rank>. A folder holding a
// one-process checkpoint, or more processes' than this job has, is refused.
std::unique_ptr<service::Checkpoint> open_checkpoint(const Comm& comm, const engine::Rule& rule,
                                                     const Universe& u,
                                                     const DistributedOptions& o) {
    if (o.checkpoint.empty()) return nullptr;
    std::error_code ec;
    if (fs::exists(fs::path(o.checkpoint) / "manifest.json", ec)) {
        throw TableError(o.checkpoint +
                         " holds the checkpoint of a solve by one process; this one runs " +
                         std::to_string(comm.size) +
                         " processes: run it as before, or remove the folder to start again");
    }
    for (const auto& e : fs::directory_iterator(o.checkpoint, ec)) {
        const std::string name = e.path().filename().string();
        unsigned k = 0;
        int used = 0;
        if (std::sscanf(name.c_str(), "process-%u%n", &k, &used) == 1 &&
            static_cast<size_t>(used) == name.size() && k >= unsigned(comm.size)) {
            throw TableError(fmt::format(
                "{} holds the checkpoint of a solve by more processes (it has {}); this one runs "
                "{}: "
                "run it with as many processes as before, or remove the folder to start again",
                o.checkpoint, name, comm.size));
        }
    }
    fs::create_directories(o.checkpoint, ec);
    // Flushes are decided together (solve_distributed), so that the
    // processes' files end at the same levels.
    return std::make_unique<service::Checkpoint>(
        (fs::path(o.checkpoint) / fmt::format("process-{}", comm.rank)).string(),
        service::CheckpointIdentity{rule.canonical(), engine::to_string(o.solve.convention),
                                    u.describe(), "brute", o.solve.remoteness,
                                    static_cast<unsigned>(comm.size)},
        std::chrono::hours(24 * 365));
}

}  // namespace

Share solve_distributed(const Comm& comm, const engine::Rule& rule, const Universe& u,
                        const DistributedOptions& o) {
    if (o.solve.method != engine::SolveMethod::brute)
        throw InputError(
            "a distributed solve uses the brute method; --method sprague-grundy runs in one "
            "process");
    // The plan one process would run, with the line kernel as the line
    // chain (line_chain.h): its store is spread over the processes, so no
    // machine's memory decides against it, and it needs 2 heaps or more.
    engine::SolveOptions planned = o.solve;
    planned.memory_limit = UINT64_MAX;
    const bool one_heap = u.max_heaps() < 2;
    if (one_heap && o.solve.kernel == engine::Kernel::lines) {
        throw InputError("the line kernel across processes needs a universe of at least 2 heaps; " +
                         u.describe() + " has one: use " + mention(Option::kernel_brute));
    }
    if (one_heap) planned.kernel = engine::Kernel::brute;
    engine::SolvePlan solve_plan = engine::plan_without_order(rule, u, planned);
    const bool chain = solve_plan.kernel == engine::Kernel::lines;
    if (chain && !o.solve.block_heaps) solve_plan.block_heaps = chain_block_heaps(u);
    engine::add_order(u, solve_plan);
    const engine::ArrayWidths widths = solve_plan.widths;
    const SolveOrder& plan = solve_plan.order;

    const ChainDeal chain_pieces = chain ? chain_deal(u, comm.size) : ChainDeal{};
    const std::vector<int>& by_group = chain_pieces.owner;
    if (chain && comm.rank == 0) {
        // A group is never split: with more processes than the groups can
        // share out, one process holds more than its part.
        std::vector<uint64_t> held(static_cast<size_t>(comm.size), 0);
        for (uint32_t m = 0; m <= u.max_heap_size(); ++m)
            for (uint32_t m2 = 0; m2 <= m; ++m2)
                held[static_cast<size_t>(by_group[chain_group(u, m2, m)])] +=
                    chain_group_positions(u, m2);
        const double busiest =
            double(*std::max_element(held.begin(), held.end())) / double(u.size());
        if (busiest * comm.size > 1.5) {
            std::fprintf(stderr,
                         "solve: note: the line chain deals whole groups of positions (those "
                         "sharing their two largest heaps), so one of the %d processes holds "
                         "%.0f %% of the positions (an even share: %.0f %%); --kernel brute "
                         "spreads them evenly, at the price of trading pages\n",
                         comm.size, 100 * busiest, 100.0 / comm.size);
        }
    }
    Layout layout = deal(plan, comm.rank, comm.size, u, by_group);
    std::vector<LevelTraffic> traffic(plan.levels());
    engine::Solution s{rule, o.solve.convention, u.bounds(), engine::SolveMethod::brute, {}, {}};
    s.positions = u.size();
    s.kernel = solve_plan.kernel;
    const uint64_t n = layout.local_positions;
    // A streamed process (DistributedOptions::table) solves each level into
    // a window of its largest level's positions, then spills the level.
    const bool streamed =
        !o.table.empty() && chain && solve_plan.lines.lag == 0 &&
        uint64_t{engine::line_words(u)} * 64 >= std::bit_ceil(uint64_t{u.max_heap_size()} + 1);
    const SolveOrder& lp = layout.local_plan;
    const auto level_first = [&](size_t l) {
        return lp.level_start[l] < lp.blocks.size() ? lp.blocks[lp.level_start[l]].first : n;
    };
    const auto level_count = [&](size_t l) { return level_first(l + 1) - level_first(l); };
    uint64_t largest_level = 0;
    for (size_t l = 0; l < plan.levels(); ++l)
        largest_level = std::max(largest_level, level_count(l));
    const uint64_t window = streamed ? largest_level : n;
    s.value = engine::QuantityArray(window, widths.value_bits);
    if (o.solve.remoteness) s.remoteness = engine::QuantityArray(window, widths.remoteness_bits);
    s.levels.assign(plan.levels(), engine::LevelStats{});
    for (size_t l = 0; l < plan.levels(); ++l) {
        s.levels[l].blocks = plan.level_start[l + 1] - plan.level_start[l];
        s.levels[l].positions = plan.positions_in(l);
    }

    tbb::task_arena arena(o.solve.threads ? static_cast<int>(o.solve.threads)
                                          : tbb::task_arena::automatic);
    Solver solver{comm,
                  u,
                  o,
                  layout,
                  s,
                  traffic,
                  {rule, u.max_heap_size()},
                  {},
                  {},
                  {},
                  uint64_t{1} << 16,
                  o.page_budget ? o.page_budget
                                : std::clamp<uint64_t>(
                                      n * (widths.value_bits + widths.remoteness_bits) / 8 / 16,
                                      uint64_t{1} << 20, uint64_t{64} << 20)};
    solver.pages.bits = page_bits(u);
    const uint64_t universe_pages = (u.size() >> solver.pages.bits) + 1;
    solver.pages.slot.assign(universe_pages, -1);
    solver.pages.marks.assign((universe_pages + 63) / 64, 0);

    // 5. From the checkpoint: every process resumes at the first level that
    // all of them saved. A process that refuses its part says why (the first of them, so that
    // the reason is said once); then all stop together, leaving no folder
    // that this run made - unless the solve has begun (`solving`): a
    // checkpoint then keeps what it saved (a full disk: freed, the job resumes).
    std::unique_ptr<service::Checkpoint> checkpoint;
    std::string refused;
    const std::string own =
        o.checkpoint.empty()
            ? ""
            : (fs::path(o.checkpoint) / fmt::format("process-{}", comm.rank)).string();
    std::error_code ec;
    const bool existed = !own.empty() && fs::exists(own, ec);
    const auto stop_if_refused = [&](bool solving = false) {
        const uint64_t first =
            comm.min(refused.empty() ? uint64_t(comm.size) : uint64_t(comm.rank));
        if (first == uint64_t(comm.size)) return;
        if (first == uint64_t(comm.rank))
            std::fprintf(stderr, "nimtb: error: %s\n", refused.c_str());
        checkpoint.reset();
        if (!existed && !solving) fs::remove_all(own, ec);
        throw SharedError("");
    };
    // Said by process 0 once every process has restored `common` > 0 levels.
    const auto say_resuming = [&](uint64_t common) {
        if (comm.rank != 0 || common == 0) return;
        std::fprintf(stderr,
                     "solve: resuming from the checkpoint in %s (%llu levels saved by all %d "
                     "processes)\n",
                     o.checkpoint.c_str(), static_cast<unsigned long long>(common), comm.size);
    };
    try {
        checkpoint = open_checkpoint(comm, rule, u, o);
    } catch (const std::exception& e) {
        refused = e.what();
    }
    stop_if_refused();
    size_t level = 0;
    if (checkpoint) {
        // A streamed process saves no levels (its spills and the chain's
        // state instead: chain_checkpoint.h), so its plan is another.
        const std::string key =
            solve_plan.key(static_cast<unsigned>(comm.rank), static_cast<unsigned>(comm.size)) +
            (streamed ? ", streamed" : "");
        try {
            level = checkpoint->restore(key, layout.local_plan, s);
        } catch (const std::exception& e) {
            refused = e.what();
        }
        stop_if_refused();
        const size_t common = comm.min(level);
        say_resuming(common);
        if (common < level) checkpoint->forget_from(common);
        level = common;
        if (comm.any(s.value.bits() == 16)) s.value.widen();
        if (o.solve.remoteness && comm.any(s.remoteness.bits() == 16)) s.remoteness.widen();
        for (size_t l = 0; l < level; ++l) s.levels[l].restored = true;
    }
    // The chain's aggregates of the levels a checkpoint in memory restored
    // are not saved: a resumed solve finishes by brute force (the same
    // table). A streamed process saves them with its spills.
    std::optional<LineChain> lines;
    uint64_t home_held = 0;  // home lines held at once, at most
    if (chain && level == 0) {
        lines.emplace(u, solve_plan.lines, chain_pieces, comm.rank,
                      o.solve.remoteness ? widths.remoteness_bits / 8 : 0);
        home_held = solver.schedule_home_lines(*lines, solve_plan.block_heaps);
    }
    // The process's peak so far, before a resumed process restores its
    // home lines and arrivals (counted in the plan below as the solve's).
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::unique_ptr<ChainCheckpoint> chain_checkpoint;
    ChainStateHead resumed;
    if (streamed && checkpoint) {
        // Every process resumes at the newest state all of them hold (a
        // process keeps the one before until all have written the next).
        chain_checkpoint = std::make_unique<ChainCheckpoint>(checkpoint->dir());
        const std::vector<uint64_t> held = chain_checkpoint->levels();
        const uint64_t common = comm.min(held.empty() ? 0 : held.back());
        if (common > 0 && !std::binary_search(held.begin(), held.end(), common)) {
            refused = fmt::format(
                "{} holds no state of the line chain at level {}, where the other processes' "
                "checkpoints meet: remove {} to start the solve again",
                chain_checkpoint->dir(), common, o.checkpoint);
        } else if (common > plan.levels()) {
            refused = fmt::format(
                "{} holds a state beyond this solve's levels: remove {} to start "
                "the solve again",
                chain_checkpoint->dir(), o.checkpoint);
        } else if (common > 0) {
            try {
                resumed = chain_checkpoint->restore(
                    common, *lines, [&](size_t l) { return solver.arrivals_for(*lines, l); });
                const uint64_t spilled = level_first(common);
                if (resumed.spilled[0] != spilled ||
                    resumed.spilled[1] != (o.solve.remoteness ? spilled : 0))
                    throw TableError(fmt::format(
                        "{} is damaged (its spills' lengths are not its levels'); remove {} to "
                        "start the solve again",
                        chain_checkpoint->dir(), o.checkpoint));
            } catch (const std::exception& e) {
                refused = e.what();
            }
        }
        stop_if_refused();
        say_resuming(common);
        chain_checkpoint->keep_only(common);  // a later one is solved again
        level = static_cast<size_t>(common);
        for (size_t l = 0; l < level; ++l) {
            s.levels[l].restored = true;
            lines->done_with(l);
        }
    }
    std::unique_ptr<Spill> spilled[2];
    if (streamed) {
        try {
            for (unsigned a = 0; a < (o.solve.remoteness ? 2u : 1u); ++a) {
                const unsigned bits = a == 0 ? widths.value_bits : widths.remoteness_bits;
                const std::string what =
                    o.table + (a == 0 ? ": dataset /value" : ": dataset /remoteness");
                spilled[a] = chain_checkpoint
                                 ? std::make_unique<Spill>(chain_checkpoint->spill_path(a), bits,
                                                           what, resumed.spilled[a])
                                 : std::make_unique<Spill>(o.table, bits, what);
            }
        } catch (const std::exception& e) {
            refused = e.what();
        }
        stop_if_refused();
    }
    // A streamed process's chunks of the table that it holds whole, encoded
    // beside the solve, each once solved (chunk_encoder.h): at the spill's
    // width, the widest the solve may need.
    std::vector<std::vector<uint64_t>> whole_chunks;
    std::unique_ptr<EncodedPart> encoded[2];
    std::unique_ptr<ChunkEncoder> encoders[2];
    uint64_t encoders_hold = 0;  // bytes
    if (streamed) {
        const uint64_t chunk = io::dataset_layout(u.size(), 0, o.write).chunk;
        whole_chunks = whole_chunks_by_level(layout, u.size(), chunk, level);
        try {
            for (unsigned a = 0; a < 2 && spilled[a]; ++a) {
                const unsigned bits = spilled[a]->bits();
                const io::DatasetLayout guess = io::guessed_layout(bits, u.size(), o.write);
                encoded[a] = std::make_unique<EncodedPart>(
                    o.table, o.table + (a == 0 ? ": dataset /value" : ": dataset /remoteness"));
                encoders[a] = std::make_unique<ChunkEncoder>(
                    *spilled[a], *encoded[a],
                    io::EncodedChunks{.file_bits = bits,
                                      .chunk = chunk,
                                      .compression = o.write.compression,
                                      .level = guess.level,
                                      .transform = io::Transform::none,
                                      .transform_chosen = false,
                                      .read = {}},
                    guess.transformed);
                encoders_hold +=
                    ChunkEncoder::memory(bits, chunk, o.write.compression, guess.level);
            }
        } catch (const std::exception& e) {
            refused = e.what();
        }
        stop_if_refused();
    }
    engine::ArraySummary streamed_summary{resumed.p_positions,
                                          static_cast<uint32_t>(resumed.max_value),
                                          static_cast<uint32_t>(resumed.max_remoteness)};
    // What each process holds, said before the solve as one process says its
    // plan: what it holds already (the program, MPI, the deal: its peak so
    // far), the most home lines it holds at once (touched as first used,
    // given back after their last level: LineChain), its arrays (a streamed
    // process's two windows, not yet touched: one solved into while its
    // spill writes the other), its encoders' buffers, and the aggregates arriving for
    // two levels (8 W + 2 sizeof(R) bytes each: a level's being swept, a
    // later one's filling) and a round's sent and received, or its rounds'
    // pages; and what writing the table adds (write_bytes).
    uint64_t arriving = 0;  // words
    if (lines) {
        for (size_t l = level; l < plan.levels(); ++l)
            arriving = std::max(arriving, solver.arriving_count(*lines, l));
        arriving = lines->shape.words(arriving);
        solver.chain_round_words = o.chain_round_words
                                       ? o.chain_round_words
                                       : std::clamp<uint64_t>(comm.max(arriving) / 8,
                                                              uint64_t{1} << 16, uint64_t{1} << 20);
    }
    const uint64_t held =
        static_cast<uint64_t>(usage.ru_maxrss) * 1024 +
        (lines ? home_held * lines->shape.bytes() : 0) +
        (streamed ? 2 : 1) * window *
            (widths.value_bits + (o.solve.remoteness ? widths.remoteness_bits : 0)) / 8 +
        (lines ? 2 * arriving * 8 + 2 * solver.chain_round_words * 8 : 2 * solver.page_budget) +
        encoders_hold + write_bytes(u, comm.size);
    const uint64_t most = comm.max(held);
    if (o.say && u.size() >= engine::STREAM_FROM) {
        o.say(
            fmt::format("solve: {} positions by the {} on {} processes, {}: at most {} of memory "
                        "a process",
                        u.size(), lines ? "line chain" : "brute-force kernel", comm.size,
                        streamed ? "each streamed to disk as solved" : "each held in memory",
                        engine::format_bytes(most)));
    }

    // 6. The levels, in order; a level that meets a number too wide for
    // its array is solved again, by every process, with the array widened.
    const auto report = [&](uint64_t done) {
        if (o.solve.progress) o.solve.progress(done, u.size());
    };
    uint64_t done = plan.positions_below(level);
    report(done);
    auto last_flush = std::chrono::steady_clock::now();
    // A streamed process's state after `next` levels, with its spills
    // flushed to disk; the one before is removed once all have written it.
    // Its writes take at most a tenth of the time: each waits nine times
    // the last one's (the slowest process's) duration, and the interval.
    std::chrono::microseconds chain_write{0};
    size_t chain_saved = level;
    const auto save_chain = [&](size_t next) {
        const auto start = std::chrono::steady_clock::now();
        try {
            for (const auto& spill : spilled)
                if (spill) spill->sync();
            chain_checkpoint->save({next,
                                    {spilled[0]->size(), spilled[1] ? spilled[1]->size() : 0},
                                    streamed_summary.p_positions,
                                    streamed_summary.max_value,
                                    streamed_summary.max_remoteness},
                                   *lines);
        } catch (const std::exception& e) {
            refused = e.what();
        }
        stop_if_refused(true);
        chain_checkpoint->keep_only(next);
        chain_saved = next;
        const auto took = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - start);
        chain_write = std::chrono::microseconds(comm.max(static_cast<uint64_t>(took.count())));
    };
    while (level < plan.levels()) {
        const auto start = std::chrono::steady_clock::now();
        engine::Overflow overflow;
        uint64_t lookups = 0;
        if (lines) {
            solver.window_first = streamed ? level_first(level) : 0;
            arena.execute([&] { lookups = solver.chain_dispatch(*lines, level, overflow); });
            // A value beyond the lines' bitsets: this level again, and the
            // rest, by brute force.
            if (comm.any(overflow.value.load())) {
                if (streamed) throw ResourceError(engine::streamed_solve_outgrown());
                lines.reset();
                continue;
            }
        } else {
            arena.execute([&] {
                lookups = with_children(rule, u, solver.amounts, [&](const auto& children) {
                    return solver.dispatch(children, level, overflow);
                });
            });
        }
        const bool value_over = comm.any(overflow.value.load());
        const bool remoteness_over = comm.any(overflow.remoteness.load());
        if (value_over || remoteness_over) {
            // A streamed solve's widths hold every value and remoteness it
            // can meet (plan.cpp); were one wider, it stops, never a wrong table.
            if (streamed) throw ResourceError(engine::streamed_solve_outgrown());
            // Every process alike: a ResourceError is thrown by all of them.
            engine::widen_after_overflow(value_over, remoteness_over, s);
            continue;
        }
        if (streamed) {
            const uint64_t count = level_count(level);
            arena.execute(
                [&] { streamed_summary.add(engine::summarise(s.value, s.remoteness, count)); });
            try {
                spilled[0]->append(s.value, count);
                if (spilled[1]) spilled[1]->append(s.remoteness, count);
                for (const uint64_t c : whole_chunks[level])
                    for (const auto& encoder : encoders)
                        if (encoder) encoder->add(layout, u.size(), c);
            } catch (const std::exception& e) {
                refused = e.what();
            }
            stop_if_refused(true);
        }
        engine::LevelStats& stats = s.levels[level];
        stats.lookups = comm.sum(lookups);
        stats.seconds = comm.max(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        stats.kernel = lines ? engine::Kernel::lines : engine::Kernel::brute;
        s.child_lookups += stats.lookups;
        const bool cancelled = comm.any(o.solve.cancel && o.solve.cancel->load());
        if (chain_checkpoint) {
            // Process 0's clock decides for all; Ctrl-C keeps what is solved.
            const std::chrono::microseconds wait =
                std::max<std::chrono::microseconds>(o.checkpoint_every, 9 * chain_write);
            uint8_t flush = cancelled || std::chrono::steady_clock::now() - last_flush >= wait;
            comm.broadcast(&flush, 1);
            if (flush) {
                save_chain(level + 1);
                last_flush = std::chrono::steady_clock::now();
            }
        }
        if (cancelled) throw SharedError("interrupted", 130);
        if (checkpoint && !chain_checkpoint) {
            checkpoint->save(layout.local_plan, level, s);
            // Process 0's clock decides for all.
            uint8_t flush = std::chrono::steady_clock::now() - last_flush >= o.checkpoint_every;
            comm.broadcast(&flush, 1);
            if (flush) {
                checkpoint->flush();
                last_flush = std::chrono::steady_clock::now();
            }
        }
        done += stats.positions;
        report(done);
        ++level;
    }
    if (checkpoint) checkpoint->flush();
    // Every entry spilled in its file before the table's writer reads it.
    try {
        for (const auto& spill : spilled)
            if (spill) spill->flush(true);
    } catch (const std::exception& e) {
        refused = e.what();
    }
    stop_if_refused(true);
    // Solved: a job killed while it writes the table resumes at the write.
    if (chain_checkpoint && chain_saved < plan.levels()) save_chain(plan.levels());

    // 7. The whole universe's figures.
    engine::ArraySummary mine = streamed_summary;
    if (streamed) {
        s.value = {};
        s.remoteness = {};
        s.streamed = true;
    } else {
        arena.execute([&] { mine = engine::summarise(s.value, s.remoteness); });
    }
    s.p_positions = comm.sum(mine.p_positions);
    s.max_value = static_cast<uint32_t>(comm.max(uint64_t{mine.max_value}));
    s.max_remoteness = static_cast<uint32_t>(comm.max(uint64_t{mine.max_remoteness}));
    const uint64_t home_lines = lines ? lines->lines : 0;
    return Share{std::move(s),
                 {std::move(spilled[0]), std::move(spilled[1])},
                 {std::move(encoded[0]), std::move(encoded[1])},
                 {std::move(encoders[0]), std::move(encoders[1])},
                 o.solve.remoteness,
                 std::move(layout),
                 home_lines,
                 lines ? home_held : 0,
                 std::move(traffic),
                 std::move(checkpoint),
                 std::move(chain_checkpoint)};
}

}  // namespace nimtb::mpi
