#include "service/solve.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "io/output_path.h"
#include "io/run_file.h"
#include "io/table_reader.h"
#include "io/table_writer.h"
#include "service/request/checkpoint.h"
#include "service/tables.h"

namespace nimtb::service {

namespace {

// A streamed solve's positions, spilled to run files beside the table as
// the groups are solved, already encoded as the table's chunks (as far as
// the table's options and the arrays' widths tell), then handed to the
// table writer.
class RunFiles : public engine::RankSink {
  public:
    RunFiles(std::string table, uint64_t positions, const io::WriteOptions& options,
             unsigned threads)
        : table_(std::move(table)), positions_(positions), options_(options), threads_(threads) {}

    // The run files' buffers, and the table writer's that reads them back.
    uint64_t memory(unsigned value_bits, unsigned remoteness_bits) const override {
        auto run = [&](unsigned bits) {
            return io::RunFile::memory(bits, threads_, positions_, options_);
        };
        return run(value_bits) + (remoteness_bits ? run(remoteness_bits) : 0) +
               io::write_memory(threads_);
    }

    void take(uint64_t, uint64_t count, const engine::QuantityArray& value,
              const engine::QuantityArray& remoteness) override {
        if (!value_) {
            value_.emplace(table_, value.bits(), positions_, options_, table_ + ": dataset /value");
            if (!remoteness.empty())
                remoteness_.emplace(table_, remoteness.bits(), positions_, options_,
                                    table_ + ": dataset /remoteness");
        }
        value_->append(value, count);
        if (remoteness_) remoteness_->append(remoteness, count);
    }

    // The table's contents, from the run files once every group is in.
    io::TableContents contents(const engine::Solution& s) {
        value_->finish();
        if (remoteness_) remoteness_->finish();
        return {table_header(s), value_->entries(),
                remoteness_ ? remoteness_->entries() : io::Entries{}, s.max_value,
                s.max_remoteness};
    }

  private:
    std::string table_;
    uint64_t positions_;
    io::WriteOptions options_;
    unsigned threads_;
    std::optional<io::RunFile> value_, remoteness_;
};

}  // namespace

void check_destination(const SolveRequest& request) {
    io::check_output(request.output, request.write_options());
    io::check_distinct(
        request.stats, request.output,
        mention(Option::stats) + " and " + mention(Option::table_path) + " name the same file");
}

void check_solve(const SolveRequest& request) {
    request.check();
    check_destination(request);
}

SolveReport solve_table(const SolveRequest& request, const Hooks& hooks) {
    // 1. What would fail late is refused now.
    check_solve(request);
    const engine::Universe universe(request.bounds());
    engine::SolveOptions so = request.solve_options();
    io::WriteOptions wo = request.write_options();
    so.progress = hooks.progress;
    so.cancel = hooks.cancel;
    wo.cancel = hooks.cancel;

    // 2. From a checkpoint's levels when there are some.
    std::unique_ptr<service::Checkpoint> checkpoint;
    if (!request.checkpoint.empty()) {
        checkpoint = std::make_unique<service::Checkpoint>(
            request.checkpoint,
            service::CheckpointIdentity{request.rule.canonical(), engine::to_string(so.convention),
                                        universe.describe(), engine::to_string(so.method),
                                        so.remoteness, 1},
            std::chrono::milliseconds(static_cast<int64_t>(request.checkpoint_every * 1000)));
        checkpoint->on_restored = [&](size_t levels) {
            hooks.say(fmt::format("solve: resuming from the checkpoint in {} ({} levels saved)",
                                  checkpoint->dir(), levels));
        };
        so.levels = checkpoint.get();
    }
    RunFiles runs(request.output, universe.size(), wo,
                  so.threads ? so.threads : std::max(1u, std::thread::hardware_concurrency()));
    so.sink = &runs;
    // A solve of seconds or more says first how it will run.
    so.planned = [&](const engine::SolvePlan& plan) {
        if (universe.size() >= engine::STREAM_FROM)
            hooks.say("solve: " + plan_line(universe.size(), plan));
    };

    // 3. Solve; write under a temporary name, then rename; the checkpoint is done with.
    const auto t0 = std::chrono::steady_clock::now();
    SolveReport report{request, universe.describe(), engine::solve(request.rule, universe, so)};
    // A streamed solve's arrays went to the run files.
    report.remoteness_stored =
        report.figures.streamed ? so.remoteness : !report.figures.remoteness.empty();
    const auto t1 = std::chrono::steady_clock::now();
    const engine::Solution& s = report.figures;
    // The storage lines as `info` prints them, from what the writer wrote.
    report.storage = storage_lines(
        io::write_table(request.output, s.streamed ? runs.contents(s) : table_contents(s), wo));
    if (checkpoint) checkpoint->remove();
    report.figures.value = {};
    report.figures.remoteness = {};
    if (!request.stats.empty()) write_json_file(request.stats, stats_json(report));
    const auto t2 = std::chrono::steady_clock::now();
    report.solve_seconds = std::chrono::duration<double>(t1 - t0).count();
    report.write_seconds = std::chrono::duration<double>(t2 - t1).count();
    return report;
}

}  // namespace nimtb::service
