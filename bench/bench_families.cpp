// Every rule family's brute-force solve beside Nim's, per child: positions/s,
// child look-ups/s, and how many times Nim's look-ups/s (its incremental
// take kernel in a box, every child visited) is to the family's. Median of
// several solves each (these machines are shared and noisy), misere, values
// and remoteness, 2 threads.
//
//   build/bench/bench_families                    # total <= 60, Nim K = 5, H = 63
//   build/bench/bench_families --total 40 --repetitions 5
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/solve/solver.h"

namespace {

using nimtb::engine::Convention;
using nimtb::engine::Kernel;
using nimtb::engine::Rule;
using nimtb::engine::SolveOptions;
using nimtb::engine::Universe;

struct Args {
    uint32_t total = 60;
    unsigned box_heaps = 5;
    uint32_t max_heap = 63;
    unsigned repetitions = 3;
};

struct Figures {
    double seconds;
    uint64_t positions;
    uint64_t lookups;
    double lookups_per_s() const { return double(lookups) / seconds; }
};

// The median time of `reps` solves (look-ups are the same in each).
Figures measure(const char* rule_text, const Universe& u, unsigned reps) {
    const Rule rule = Rule::parse(rule_text);
    SolveOptions o;
    o.convention = Convention::misere;
    o.threads = 2;
    o.kernel = Kernel::brute;  // every child visited, in every family
    std::vector<double> seconds;
    uint64_t lookups = 0;
    for (unsigned i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto s = nimtb::engine::solve(rule, u, o);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        lookups = s.child_lookups;
    }
    std::sort(seconds.begin(), seconds.end());
    return {seconds[seconds.size() / 2], u.size(), lookups};
}

int run(const Args& a) {
    const Universe box(a.box_heaps, a.max_heap);
    const Universe total = Universe::total_bounded(a.total);
    fmt::print(
        "misere, values and remoteness, 2 threads, brute-force kernel; median of {} solves\n\n",
        a.repetitions);
    fmt::print("{:<16} {:<46} {:>10} {:>9} {:>13} {:>14} {:>8}\n", "rule", "universe", "positions",
               "seconds", "positions/s", "look-ups/s", "Nim / it");
    const Figures nim = measure("nim", box, a.repetitions);
    auto print = [&](const char* rule, const Universe& u, const Figures& f) {
        fmt::print("{:<16} {:<46} {:>10} {:>9.3f} {:>12.2f}M {:>13.1f}M {:>7.2f}x\n", rule,
                   u.describe(), f.positions, f.seconds, double(f.positions) / f.seconds / 1e6,
                   f.lookups_per_s() / 1e6, nim.lookups_per_s() / f.lookups_per_s());
    };
    auto row = [&](const char* rule, const Universe& u) {
        print(rule, u, measure(rule, u, a.repetitions));
    };
    print("nim", box, nim);
    // Moves that touch one heap, under a total: TotalChildren.
    for (const char* rule : {"nim", "octal:0.77", "octal:0.07", "octal:0.137", "grundy", "lasker"})
        row(rule, total);
    // With a heap limit too (the universe of a game of matches on a few heaps).
    row("nim", Universe::total_bounded(2 * a.total, 5));
    row("subtract:1,3,4", Universe::total_bounded(2 * a.total, 5));
    // Moves that touch several heaps: children as heap lists, each ranked.
    row("wythoff", Universe(3, 2 * a.max_heap));
    row("moore:2", Universe(4, a.max_heap / 2));
    return 0;
}

}  // namespace

int main(int argc, char** argv) try {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> unsigned long {
            if (i + 1 >= argc) {
                fmt::print(stderr, "bench_families: {} needs a value\n", arg);
                std::exit(2);
            }
            return std::stoul(argv[++i]);
        };
        if (arg == "--total")
            a.total = static_cast<uint32_t>(next());
        else if (arg == "--heaps")
            a.box_heaps = static_cast<unsigned>(next());
        else if (arg == "--max-heap")
            a.max_heap = static_cast<uint32_t>(next());
        else if (arg == "--repetitions")
            a.repetitions = static_cast<unsigned>(std::max(1ul, next()));
        else {
            fmt::print(stderr,
                       "usage: bench_families [--total N] [--heaps K] [--max-heap H] "
                       "[--repetitions R]\n");
            return 2;
        }
    }
    return run(a);
} catch (const std::exception& e) {
    fmt::print(stderr, "bench_families: error: {}\n", e.what());
    return 1;
}
