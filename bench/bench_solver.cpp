// Solver benchmarks: whole solves, reporting positions/s and child look-ups/s.
//
//   build/bench/bench_solver --benchmark_filter=NimMisere   # K=5 H=63, line and brute-force
//   kernels build/bench/bench_solver --benchmark_filter=Subtract    # brute vs memoized baseline
#include <benchmark/benchmark.h>

#include "engine/solve/solver.h"
#include "memoized_solver.h"

namespace {

using nimtb::engine::Convention;
using nimtb::engine::Kernel;
using nimtb::engine::Rule;
using nimtb::engine::SolveMethod;
using nimtb::engine::SolveOptions;
using nimtb::engine::Universe;

void solve_in(benchmark::State& state, const char* rule_text, Convention c, const Universe& u,
              bool remoteness, SolveMethod method = SolveMethod::brute, unsigned block_heaps = 0,
              Kernel kernel = Kernel::automatic) {
    const Rule rule = Rule::parse(rule_text);
    SolveOptions o;
    o.convention = c;
    o.remoteness = remoteness;
    o.method = method;
    o.threads = static_cast<unsigned>(state.range(0));
    o.block_heaps = block_heaps;
    o.kernel = kernel;
    uint64_t lookups = 0;
    for (auto _ : state) {
        const auto s = nimtb::engine::solve(rule, u, o);
        lookups += s.child_lookups;
        benchmark::DoNotOptimize(s.p_positions);
    }
    state.counters["positions/s"] = benchmark::Counter(
        double(u.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["lookups/s"] = benchmark::Counter(double(lookups), benchmark::Counter::kIsRate);
    state.counters["threads"] = double(o.threads);
}

void solve_case(benchmark::State& state, const char* rule_text, Convention c, unsigned k,
                uint32_t h, bool remoteness, SolveMethod method = SolveMethod::brute,
                unsigned block_heaps = 0, Kernel kernel = Kernel::automatic) {
    solve_in(state, rule_text, c, Universe(k, h), remoteness, method, block_heaps, kernel);
}

// The line kernel (automatic for Nim in a box) and the brute-force kernel;
// bench_kernels runs them side by side on larger universes.
void NimMisereK5H63(benchmark::State& s) {
    solve_case(s, "nim", Convention::misere, 5, 63, true);
}
void NimMisereK5H63Brute(benchmark::State& s) {
    solve_case(s, "nim", Convention::misere, 5, 63, true, SolveMethod::brute, 0, Kernel::brute);
}
void AllbutMisereK5H63(benchmark::State& s) {
    solve_case(s, "allbut:1,2", Convention::misere, 5, 63, true);
}
void AllbutMisereK5H63Brute(benchmark::State& s) {
    solve_case(s, "allbut:1,2", Convention::misere, 5, 63, true, SolveMethod::brute, 0,
               Kernel::brute);
}
// How the solve order's block shape (top heaps per block) affects speed.
void NimMisereK5H63Blocks(benchmark::State& s) {
    solve_case(s, "nim", Convention::misere, 5, 63, true, SolveMethod::brute,
               static_cast<unsigned>(s.range(1)));
}
void NimMisereK5H63ValuesOnly(benchmark::State& s) {
    solve_case(s, "nim", Convention::misere, 5, 63, false);
}
void SubtractNormalK6H40ValuesOnly(benchmark::State& s) {
    solve_case(s, "subtract:1,3,4", Convention::normal, 6, 40, false);
}
void SubtractNormalK6H40(benchmark::State& s) {
    solve_case(s, "subtract:1,3,4", Convention::normal, 6, 40, true);
}
void NimNormalK5H63SpragueGrundy(benchmark::State& s) {
    solve_case(s, "nim", Convention::normal, 5, 63, false, SolveMethod::sprague_grundy);
}

// The other families, through the generic child generator: positions/s and
// look-ups/s per family, beside Nim's (a take family's incremental kernel).
void KaylesMisereN60(benchmark::State& s) {
    solve_in(s, "octal:0.77", Convention::misere, Universe::total_bounded(60), true);
}
void DawsonsKaylesMisereN60(benchmark::State& s) {
    solve_in(s, "octal:0.07", Convention::misere, Universe::total_bounded(60), true);
}
void GrundyMisereN50(benchmark::State& s) {
    solve_in(s, "grundy", Convention::misere, Universe::total_bounded(50), true);
}
void LaskerMisereN50(benchmark::State& s) {
    solve_in(s, "lasker", Convention::misere, Universe::total_bounded(50), true);
}
void WythoffMisereK3H40(benchmark::State& s) {
    solve_case(s, "wythoff", Convention::misere, 3, 40, true);
}
void Moore2MisereK4H20(benchmark::State& s) {
    solve_case(s, "moore:2", Convention::misere, 4, 20, true);
}
void NimMisereN60(benchmark::State& s) {  // Nim in the same universe as Kayles, generic kernel
    solve_in(s, "nim", Convention::misere, Universe::total_bounded(60), true);
}

// The baseline: plain memoized recursion, one thread, values only.
void SubtractNormalK6H40Memoized(benchmark::State& state) {
    const Universe u(6, 40);
    for (auto _ : state) {
        nimtb::bench::MemoizedSolver m(Rule::parse("subtract:1,3,4"), Convention::normal);
        benchmark::DoNotOptimize(m.solve_all(u));
    }
    state.counters["positions/s"] = benchmark::Counter(
        double(u.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// Small cases keep the benchmarks honest in ctest without taking its time.
void SmallNimMisere(benchmark::State& s) {
    solve_case(s, "nim", Convention::misere, 4, 20, true);
}
void SmallKaylesMisere(benchmark::State& s) {
    solve_in(s, "octal:0.77", Convention::misere, Universe::total_bounded(20), true);
}
void SmallSubtractMemoized(benchmark::State& state) {
    const Universe u(4, 20);
    for (auto _ : state) {
        nimtb::bench::MemoizedSolver m(Rule::parse("subtract:1,3,4"), Convention::normal);
        benchmark::DoNotOptimize(m.solve_all(u));
    }
}

}  // namespace

BENCHMARK(NimMisereK5H63)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(NimMisereK5H63Brute)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AllbutMisereK5H63)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AllbutMisereK5H63Brute)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(NimMisereK5H63Blocks)
    ->Args({2, 2})
    ->Args({2, 3})
    ->Args({2, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(NimMisereK5H63ValuesOnly)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(NimNormalK5H63SpragueGrundy)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SubtractNormalK6H40ValuesOnly)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(SubtractNormalK6H40)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SubtractNormalK6H40Memoized)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(KaylesMisereN60)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(DawsonsKaylesMisereN60)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(GrundyMisereN50)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(LaskerMisereN50)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(WythoffMisereK3H40)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Moore2MisereK4H20)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(NimMisereN60)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SmallNimMisere)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SmallKaylesMisere)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SmallSubtractMemoized)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
