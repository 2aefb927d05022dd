// The solver's kernels side by side on one universe, in one run: the line
// kernel, the brute-force kernel and the memoized baseline, with the median
// of several solves each (these machines are shared and noisy).
//
//   build/bench/bench_kernels                       # nim misere, K = 6 and 7, H = 63
//   build/bench/bench_kernels --heaps 6 --repetitions 5
//   build/bench/bench_kernels --rules allbut:1,2 --heaps 5 --max-heap 63
//   build/bench/bench_kernels --heaps 6 --brute-repetitions 0   # the line kernel alone
//
// The memoized baseline would need hours and more memory than the machine
// has for these universes, so it runs for a fixed time on the universe's
// lowest ranks; its rate there is an upper bound (higher ranks have more
// children), so the whole-universe time it implies is a lower bound.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/solve/solver.h"
#include "memoized_solver.h"

namespace {

using nimtb::engine::Convention;
using nimtb::engine::Kernel;
using nimtb::engine::Rule;
using nimtb::engine::Solution;
using nimtb::engine::SolveOptions;
using nimtb::engine::Universe;

struct Args {
    std::string rules = "nim";
    Convention convention = Convention::misere;
    std::vector<unsigned> heaps;
    uint32_t max_heap = 63;
    unsigned repetitions = 3;
    unsigned brute_repetitions = 1;
    double memoized_seconds = 30;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median seconds of `reps` solves; the last solution is kept in `out` so
// that the kernels' tables can be compared.
double time_solve(const Rule& rule, const Universe& u, SolveOptions o, unsigned reps,
                  std::optional<Solution>& out) {
    std::vector<double> seconds;
    for (unsigned i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        out.reset();  // one table in memory at a time
        out.emplace(nimtb::engine::solve(rule, u, o));
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(seconds);
}

bool same(const nimtb::engine::QuantityArray& a, const nimtb::engine::QuantityArray& b) {
    return a.bits() == b.bits() && a.size() == b.size() &&
           (a.empty() || std::memcmp(a.raw(), b.raw(), a.size() * (a.bits() / 8)) == 0);
}

void row(const char* what, unsigned threads, double s, uint64_t positions, double brute_s,
         const std::string& memory) {
    fmt::print("  {:<30} {:>7} {:>10.2f} {:>13.1f}M {:>10} {:>12}\n", what, threads, s,
               double(positions) / s / 1e6,
               brute_s > 0 ? fmt::format("{:.1f}x", brute_s / s) : std::string("-"), memory);
}

int run(const Args& a) {
    const Rule rule = Rule::parse(a.rules);
    fmt::print("{} {}, H = {}; median of {} solves ({} for brute force), one run\n",
               rule.canonical(), to_string(a.convention), a.max_heap, a.repetitions,
               a.brute_repetitions);
    bool identical = true;
    for (unsigned k : a.heaps) {
        const Universe u(k, a.max_heap);
        fmt::print("\nK = {}: {} positions\n", k, u.size());
        fmt::print("  {:<30} {:>7} {:>10} {:>14} {:>10} {:>12}\n", "kernel", "threads", "seconds",
                   "positions/s", "vs brute", "memory");
        SolveOptions o;
        o.convention = a.convention;
        o.threads = 2;
        o.kernel = Kernel::brute;
        std::optional<Solution> brute, lines;
        const std::string brute_memory =
            nimtb::engine::format_bytes(nimtb::engine::estimate_memory(rule, u, o));
        // --brute-repetitions 0: the line kernel alone (its timing, no comparison).
        const double brute_s =
            a.brute_repetitions ? time_solve(rule, u, o, a.brute_repetitions, brute) : 0;
        o.kernel = Kernel::lines;
        const std::string lines_memory =
            nimtb::engine::format_bytes(nimtb::engine::estimate_memory(rule, u, o));
        o.threads = 1;
        const double lines1_s = time_solve(rule, u, o, a.repetitions, lines);
        o.threads = 2;
        const double lines2_s = time_solve(rule, u, o, a.repetitions, lines);
        row("lines", 2, lines2_s, u.size(), brute_s, lines_memory);
        row("lines", 1, lines1_s, u.size(), brute_s, lines_memory);
        if (!brute) {
            fmt::print("  2 threads / 1 thread (lines): {:.2f}x\n", lines1_s / lines2_s);
            continue;
        }
        const bool same_table =
            same(brute->value, lines->value) && same(brute->remoteness, lines->remoteness);
        identical &= same_table;
        row("brute force", 2, brute_s, u.size(), brute_s, brute_memory);
        nimtb::bench::MemoizedSolver memo(rule, a.convention);
        const auto t0 = std::chrono::steady_clock::now();
        const uint64_t done = memo.solve_for(u, a.memoized_seconds);
        const double memo_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (done == u.size()) {
            row("memoized baseline (values)", 1, memo_s, u.size(), brute_s, "hash map");
        } else {
            const double rate = double(done) / memo_s;
            fmt::print("  {:<30} {:>7} {:>10} {:>13.3f}M {:>10} {:>12}\n",
                       "memoized baseline (values)", 1,
                       fmt::format(">= {:.0f}", double(u.size()) / rate), rate / 1e6,
                       fmt::format("<= {:.2f}x", brute_s / (double(u.size()) / rate)), "hash map");
            fmt::print("    (ran {:.0f} s over the lowest {} ranks; the rest would take longer)\n",
                       memo_s, done);
        }
        fmt::print(
            "  2 threads / 1 thread (lines): {:.2f}x; lines / brute force: {:.1f}x; "
            "tables {}\n",
            lines1_s / lines2_s, brute_s / lines2_s, same_table ? "bit-identical" : "DIFFERENT");
    }
    return identical ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                fmt::print(stderr, "bench_kernels: {} needs a value\n", arg);
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--rules")
            a.rules = next();
        else if (arg == "--normal")
            a.convention = Convention::normal;
        else if (arg == "--heaps")
            a.heaps.push_back(static_cast<unsigned>(std::stoul(next())));
        else if (arg == "--max-heap")
            a.max_heap = static_cast<uint32_t>(std::stoul(next()));
        else if (arg == "--repetitions")
            a.repetitions = static_cast<unsigned>(std::stoul(next()));
        else if (arg == "--brute-repetitions")
            a.brute_repetitions = static_cast<unsigned>(std::stoul(next()));
        else if (arg == "--memoized-seconds")
            a.memoized_seconds = std::stod(next());
        else {
            fmt::print(stderr,
                       "usage: bench_kernels [--rules RULE] [--normal] [--heaps K]... "
                       "[--max-heap H] [--repetitions N] [--brute-repetitions N] "
                       "[--memoized-seconds S]\n");
            return 2;
        }
    }
    if (a.heaps.empty()) a.heaps = {6, 7};
    try {
        return run(a);
    } catch (const std::exception& e) {
        fmt::print(stderr, "bench_kernels: error: {}\n", e.what());
        return 1;
    }
}
