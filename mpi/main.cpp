// nimtb-mpi: the distributed solve. `nimtb solve` run under mpirun checks
// its arguments and hands the solve to this program (apps/cmd_solve.cpp),
// which every process of the job runs:
//
//   nimtb-mpi --request JSON
//
// JSON holds the request (service/request/solve_request.h: one definition
// for every front end) and how to present the solve ("quiet", "progress").

#include <fmt/core.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "mpi/distributed_solver.h"
#include "mpi/mpi_context.h"
#include "mpi/parallel_writer.h"
#include "service/request/interrupt.h"
#include "service/request/progress_bar.h"
#include "service/request/solve_report.h"
#include "service/request/solve_request.h"
#include "service/request/words.h"

namespace {

using nimtb::mpi::Comm;
using nimtb::mpi::Share;

// An exception that ends in std::terminate (out of a destructor, a
// noexcept function or a thread): said as an error line, then the job
// stopped (abort_all).
[[noreturn]] void on_terminate() {
    std::string what = "unexpected failure";
    try {
        if (const std::exception_ptr e = std::current_exception()) std::rethrow_exception(e);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    nimtb::mpi::abort_all(nimtb::service::command_line_words(what));
}

// A developer's knob: the whole number in the environment variable `name`,
// from lo to hi; 0 when it is not set.
uint64_t knob(const char* name, uint64_t lo, uint64_t hi) {
    const char* text = std::getenv(name);
    if (!text) return 0;
    uint64_t x = 0;
    const char* end = text + std::strlen(text);
    const auto [at, ec] = std::from_chars(text, end, x);
    if (ec != std::errc() || at != end || x < lo || x > hi)
        throw nimtb::InputError(
            fmt::format("{}={} is not a whole number from {} to {}", name, text, lo, hi));
    return x;
}

// `--stats FILE`: the levels as one process writes them, with what each
// process sent and received in each; and what each process held: its
// positions and the line chain's aggregates it kept at home.
nlohmann::json stats_json(const Comm& comm, const nimtb::service::SolveReport& report,
                          const Share& share) {
    const size_t levels = share.traffic.size();
    std::vector<uint8_t> mine(levels * sizeof(nimtb::mpi::LevelTraffic));
    std::memcpy(mine.data(), share.traffic.data(), mine.size());
    const std::vector<uint8_t> all = comm.gather(mine);
    const std::vector<uint64_t> positions = comm.all_gather(share.layout.local_positions);
    const std::vector<uint64_t> home_lines = comm.all_gather(share.home_lines);
    const std::vector<uint64_t> held = comm.all_gather(share.home_lines_held);
    nlohmann::json j = nimtb::service::stats_json(report);
    if (comm.rank != 0) return j;
    j["process_positions"] = positions;
    j["process_home_lines"] = home_lines;
    j["process_home_lines_held"] = held;
    const auto* traffic = reinterpret_cast<const nimtb::mpi::LevelTraffic*>(all.data());
    for (size_t l = 0; l < levels; ++l) {
        nlohmann::json sent = nlohmann::json::array(), received = nlohmann::json::array(),
                       rounds = nlohmann::json::array();
        for (int p = 0; p < comm.size; ++p) {
            const nimtb::mpi::LevelTraffic& t = traffic[size_t(p) * levels + l];
            sent.push_back(t.sent);
            received.push_back(t.received);
            rounds.push_back(t.rounds);
        }
        j["levels"][l]["sent"] = sent;
        j["levels"][l]["received"] = received;
        j["levels"][l]["rounds"] = rounds;
    }
    return j;
}

int run(const Comm& comm, const nlohmann::json& handed) {
    using namespace nimtb;
    const service::SolveRequest request = service::solve_request_from_json(handed.at("request"));
    request.check();  // whoever wrote the JSON
    const bool quiet = handed.at("quiet").get<bool>();
    // Its rank tables (5.6 MB under a total of 70) go once solved: the
    // table is written from the processes' shares alone.
    auto u = std::make_unique<engine::Universe>(request.bounds());
    service::SolveReport report{
        request, u->describe(),
        engine::Solution{
            request.rule, request.convention, request.bounds(), request.method, {}, {}}};
    mpi::DistributedOptions o;
    o.solve = request.solve_options();
    o.checkpoint = request.checkpoint;
    o.table = request.output;
    o.write = request.write_options();
    o.say = [&](const std::string& line) {
        if (comm.rank == 0 && !quiet) std::fprintf(stderr, "%s\n", line.c_str());
    };
    o.checkpoint_every =
        std::chrono::milliseconds(static_cast<int64_t>(request.checkpoint_every * 1000));
    // Developers' knobs (docs/CLUSTER.md): a round's page budget in bytes,
    // the line chain's round in words, and the top heaps of the solve
    // order's blocks.
    o.page_budget = knob("NIMTB_PAGE_BUDGET", 1, uint64_t{1} << 40);
    if (const uint64_t words = knob("NIMTB_CHAIN_ROUND_WORDS", 1, uint64_t{1} << 40))
        o.chain_round_words = words;
    o.solve.block_heaps =
        static_cast<unsigned>(knob("NIMTB_BLOCK_HEAPS", 2, nimtb::engine::Universe::MAX_HEAPS));
    service::stop_on_signals();
    o.solve.cancel = &service::interrupted();
    service::ProgressBar bar(
        fmt::format("solving {} {}", request.rule.canonical(),
                    engine::to_string(request.convention)),
        comm.rank == 0 && !quiet &&
            (handed.at("progress").get<bool>() || service::stderr_is_terminal()));
    o.solve.progress = [&](uint64_t done, uint64_t total) { bar.update(done, total); };

    const auto t0 = std::chrono::steady_clock::now();
    Share share = mpi::solve_distributed(comm, request.rule, *u, o);
    bar.finish();
    u.reset();
    const auto t1 = std::chrono::steady_clock::now();
    mpi::write_table_parallel(comm, request.output, service::table_header(share.solution), share,
                              o.write);
    if (share.checkpoint) {
        if (share.chain_checkpoint) share.chain_checkpoint->remove();
        share.checkpoint->remove();
        comm.barrier();
        std::error_code ec;
        if (comm.rank == 0) std::filesystem::remove(request.checkpoint, ec);  // only when empty
    }
    const auto t2 = std::chrono::steady_clock::now();
    // Each process's peak resident memory (bytes): what a cluster's
    // scheduler must grant it.
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    report.peak_bytes = comm.all_gather(static_cast<uint64_t>(usage.ru_maxrss) * 1024);
    report.figures = std::move(share.solution);
    report.figures.value = {};
    report.figures.remoteness = {};
    report.remoteness_stored = share.remoteness;
    report.distributed = true;
    report.processes = static_cast<unsigned>(comm.size);
    report.solve_seconds = std::chrono::duration<double>(t1 - t0).count();
    report.write_seconds = std::chrono::duration<double>(t2 - t1).count();
    if (!request.stats.empty()) {
        const nlohmann::json stats = stats_json(comm, report, share);
        if (comm.rank == 0) service::write_json_file(request.stats, stats);
    }
    if (comm.rank == 0 && !quiet) std::cout << service::summary(report);
    return 0;
}

// A failure every process met alike: said once, by process 0.
int said_once(const Comm& comm, const std::exception& e) {
    const nimtb::service::Failure failure = nimtb::service::command_line_failure(e);
    if (comm.rank == 0) std::fprintf(stderr, "%s\n", failure.line.c_str());
    return failure.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
    // Buffers of a round (pages, pieces of the table) come and go by the
    // megabyte: mapped and unmapped each time, they leave nothing behind,
    // where glibc's default (a threshold that rises to the largest block
    // freed) keeps them in the heap and the process grows round by round.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    nimtb::mpi::MpiSession session(&argc, &argv);
    const Comm comm = Comm::world();
    std::set_terminate(on_terminate);
    if (argc != 3 || std::string(argv[1]) != "--request") {
        if (comm.rank == 0) {
            std::fprintf(
                stderr,
                "nimtb-mpi: run by `nimtb solve` under mpirun (mpirun -np R nimtb solve ...), "
                "not by hand\n");
        }
        return 2;
    }
    try {
        return run(comm, nlohmann::json::parse(argv[2]));
    } catch (const nimtb::mpi::SharedError& e) {
        if (comm.rank == 0 && *e.what()) std::fprintf(stderr, "nimtb: error: %s\n", e.what());
        return e.code();
    } catch (const nimtb::InputError& e) {
        // From the arguments alone: every process throws it.
        return said_once(comm, e);
    } catch (const nimtb::ResourceError& e) {
        // From the arguments, or a value beyond 16 bits that all processes met.
        return said_once(comm, e);
    } catch (const std::exception& e) {
        nimtb::mpi::abort_all(nimtb::service::command_line_words(e.what()));
    }
}
