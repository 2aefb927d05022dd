// nimtb-mpi: the distributed solve. `nimtb solve` run under mpirun checks
// its arguments and hands the solve to this program (apps/cmd_solve.cpp),
// which every process of the job runs:
//
//   nimtb-mpi --request JSON
//
// JSON holds the resolved request: rules, convention, max_heaps,
// max_heap_size, max_total, remoteness, threads, compression, level,
// format_version, path, checkpoint, checkpoint_every, stats, quiet, progress.

#include <fmt/core.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <filesystem>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "dist/distributed_solver.h"
#include "dist/mpi_context.h"
#include "dist/parallel_writer.h"

namespace {

using nimtb::dist::Comm;
using nimtb::dist::Share;

std::atomic<bool> interrupted{false};

// An exception where unwinding must not run (dist/parallel_writer.cpp):
// said, then the job stopped.
[[noreturn]] void on_terminate() {
    std::string what = "unexpected failure";
    try {
        if (const std::exception_ptr e = std::current_exception()) std::rethrow_exception(e);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    nimtb::dist::abort_all(what);
}

extern "C" void on_interrupt(int) {
    interrupted.store(true);
}

// Process 0's progress line, redrawn at most every half second.
class Progress {
  public:
    explicit Progress(bool on) : on_(on) {}
    void update(uint64_t done, uint64_t total) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        if (done < total && now - last_ < std::chrono::milliseconds(500)) return;
        last_ = now;
        std::fprintf(stderr, "\rsolving: %5.1f%% of %llu positions", total ? 100.0 * double(done) / double(total) : 100.0,
                     static_cast<unsigned long long>(total));
        if (done == total) std::fprintf(stderr, "\n");
        std::fflush(stderr);
    }

  private:
    bool on_;
    std::chrono::steady_clock::time_point last_{};
};

// `--stats FILE`: the levels as one process writes them, and what each
// process sent and received in each.
void write_stats(const Comm& comm, const std::string& path, const Share& share,
                 const std::string& universe, const std::vector<uint64_t>& peaks) {
    const size_t levels = share.traffic.size();
    std::vector<uint8_t> mine(levels * sizeof(nimtb::dist::LevelTraffic));
    std::memcpy(mine.data(), share.traffic.data(), mine.size());
    const std::vector<uint8_t> all = comm.gather(mine);
    if (comm.rank != 0) return;
    const auto* traffic = reinterpret_cast<const nimtb::dist::LevelTraffic*>(all.data());
    const nimtb::engine::Solution& s = share.solution;
    nlohmann::json out = nlohmann::json::array();
    for (size_t l = 0; l < levels; ++l) {
        const nimtb::engine::LevelStats& x = s.levels[l];
        nlohmann::json sent = nlohmann::json::array(), received = nlohmann::json::array(),
                       rounds = nlohmann::json::array();
        for (int p = 0; p < comm.size; ++p) {
            const nimtb::dist::LevelTraffic& t = traffic[size_t(p) * levels + l];
            sent.push_back(t.sent);
            received.push_back(t.received);
            rounds.push_back(t.rounds);
        }
        out.push_back({{"level", l},
                       {"blocks", x.blocks},
                       {"positions", x.positions},
                       {"lookups", x.lookups},
                       {"seconds", x.seconds},
                       {"kernel", nimtb::engine::to_string(x.kernel)},
                       {"restored", x.restored},
                       {"sent", sent},
                       {"received", received},
                       {"rounds", rounds}});
    }
    const nlohmann::json j = {{"rules", s.rule.canonical()},
                              {"convention", nimtb::engine::to_string(s.convention)},
                              {"universe", universe},
                              {"positions", s.positions},
                              {"processes", comm.size},
                              {"peak_bytes", peaks},
                              {"child_lookups", s.child_lookups},
                              {"levels", out}};
    std::ofstream file(path);
    file << j.dump(1) << "\n";
    file.close();
    if (!file) throw nimtb::TableError("cannot write " + path);
}

int run(const Comm& comm, const nlohmann::json& r) {
    using namespace nimtb;
    const engine::Rule rule = engine::Rule::parse(r.at("rules").get<std::string>());
    const uint32_t n = r.at("max_total").get<uint32_t>();
    const unsigned k = r.at("max_heaps").get<unsigned>();
    // Its rank tables (5.6 MB under a total of 70) go once solved: the
    // table is written from the processes' shares alone.
    auto u = std::make_unique<engine::Universe>(
        n ? engine::Universe::total_bounded(n, k) : engine::Universe(k, r.at("max_heap_size").get<uint32_t>()));
    const std::string universe = u->describe();
    dist::DistributedOptions o;
    o.solve.convention = engine::parse_convention(r.at("convention").get<std::string>());
    o.solve.remoteness = r.at("remoteness").get<bool>();
    o.solve.kernel = engine::parse_kernel(r.at("kernel").get<std::string>());
    o.solve.method = engine::parse_method(r.at("method").get<std::string>());
    o.solve.threads = r.at("threads").get<unsigned>();
    o.checkpoint = r.at("checkpoint").get<std::string>();
    o.checkpoint_every = std::chrono::milliseconds(static_cast<int64_t>(r.at("checkpoint_every").get<double>() * 1000));
    if (const char* budget = std::getenv("NIMTB_PAGE_BUDGET")) o.page_budget = std::stoull(budget);
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    o.solve.cancel = &interrupted;
    const bool quiet = r.at("quiet").get<bool>();
    Progress progress(comm.rank == 0 && !quiet && (r.at("progress").get<bool>() || isatty(2)));
    o.solve.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total); };
    io::WriteOptions wo;
    wo.compression = io::parse_compression(r.at("compression").get<std::string>());
    wo.level = r.at("level").get<int>();
    wo.format_version = r.at("format_version").get<uint64_t>();
    wo.threads = o.solve.threads;
    const std::string path = r.at("path").get<std::string>();

    const auto t0 = std::chrono::steady_clock::now();
    Share share = dist::solve_distributed(comm, rule, *u, o);
    u.reset();
    const auto t1 = std::chrono::steady_clock::now();
    dist::write_table_parallel(comm, path, share, wo);
    if (share.checkpoint) {
        const std::string folder = o.checkpoint;
        share.checkpoint->remove();
        comm.barrier();
        std::error_code ec;
        if (comm.rank == 0) std::filesystem::remove(folder, ec);  // only when empty
    }
    const auto t2 = std::chrono::steady_clock::now();
    // Each process's peak resident memory (bytes): what a cluster's
    // scheduler must grant it.
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const std::vector<uint64_t> peaks = comm.all_gather(static_cast<uint64_t>(usage.ru_maxrss) * 1024);
    if (!r.at("stats").get<std::string>().empty())
        write_stats(comm, r.at("stats").get<std::string>(), share, universe, peaks);
    if (comm.rank == 0 && !quiet) {
        const engine::Solution& s = share.solution;
        const double solve_s = std::chrono::duration<double>(t1 - t0).count();
        std::cout << fmt::format(
            "table        {}\n"
            "game         {} {}, {}\n"
            "method       brute force from the rules, {}, on {} processes\n"
            "positions    {}\n"
            "P-positions  {} ({:.2f}%)\n"
            "largest value       {}\n"
            "largest remoteness  {}\n"
            "solve time   {:.2f} s\n"
            "write time   {:.2f} s ({})\n"
            "peak memory  {} MB per process at most (process {})\n",
            path, rule.canonical(), engine::to_string(o.solve.convention), universe,
            s.kernel == engine::Kernel::lines ? "children summarised along lines" : "every child visited",
            comm.size,
            s.positions, s.p_positions, 100.0 * double(s.p_positions) / double(s.positions), s.max_value,
            !share.remoteness ? std::string("not stored") : std::to_string(s.max_remoteness), solve_s,
            std::chrono::duration<double>(t2 - t1).count(), io::to_string(wo.compression),
            *std::max_element(peaks.begin(), peaks.end()) >> 20,
            std::max_element(peaks.begin(), peaks.end()) - peaks.begin());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // Open MPI's collective I/O gathers 32 MB per writing process by
    // default, a quarter of a small process's memory; 4 MB writes as fast
    // here. A value set by the user (or mpirun --mca) wins.
    setenv("OMPI_MCA_io_ompio_bytes_per_agg", "4194304", 0);
    // Buffers of a round (pages, pieces of the table) come and go by the
    // megabyte: mapped and unmapped each time, they leave nothing behind,
    // where glibc's default (a threshold that rises to the largest block
    // freed) keeps them in the heap and the process grows round by round.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    nimtb::dist::MpiSession session(&argc, &argv);
    const Comm comm = Comm::world();
    std::set_terminate(on_terminate);
    if (argc != 3 || std::string(argv[1]) != "--request") {
        if (comm.rank == 0) {
            std::fprintf(stderr,
                         "nimtb-mpi: run by `nimtb solve` under mpirun (mpirun -np R nimtb solve ...), "
                         "not by hand\n");
        }
        return 2;
    }
    try {
        return run(comm, nlohmann::json::parse(argv[2]));
    } catch (const nimtb::dist::SharedError& e) {
        if (comm.rank == 0 && *e.what()) std::fprintf(stderr, "nimtb: error: %s\n", e.what());
        return e.code();
    } catch (const nimtb::InputError& e) {
        // From the arguments alone: every process throws it.
        if (comm.rank == 0) std::fprintf(stderr, "nimtb: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        nimtb::dist::abort_all(e.what());
    }
}
