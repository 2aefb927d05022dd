// Table benchmarks: writing a solved universe per compression, point look-ups
// that hit and miss the chunk cache, and a streaming read.
//
//   build/bench/bench_table
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "engine/solve/solver.h"
#include "io/table_reader.h"
#include "io/table_writer.h"
#include "service/request/solve_report.h"

namespace {

using nimtb::engine::Convention;
using nimtb::engine::Rule;
using nimtb::engine::Universe;

const nimtb::engine::Solution& solution() {
    static const nimtb::engine::Solution s = [] {
        nimtb::engine::SolveOptions o;
        o.convention = Convention::misere;
        return nimtb::engine::solve(Rule::nim(), Universe(5, 40), o);  // 1.2 million positions
    }();
    return s;
}

void write_solution(const std::string& path, const nimtb::io::WriteOptions& o) {
    const nimtb::engine::Solution& s = solution();
    nimtb::io::write_table(path, nimtb::service::table_contents(s), o);
}

std::string scratch(const char* name) {
    return (std::filesystem::temp_directory_path() /
            (std::string("nimtb-bench-") + std::to_string(::getpid()) + name))
        .string();
}

void Write(benchmark::State& state, nimtb::io::Compression c) {
    const std::string path = scratch("-write.h5");
    nimtb::io::WriteOptions o;
    o.compression = c;
    o.overwrite = true;
    for (auto _ : state) write_solution(path, o);
    state.counters["positions/s"] = benchmark::Counter(
        double(solution().positions) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["bytes"] = double(std::filesystem::file_size(path));
    std::filesystem::remove(path);
}
void WriteDeflate(benchmark::State& s) {
    Write(s, nimtb::io::Compression::deflate);
}
void WriteZstd(benchmark::State& s) {
    Write(s, nimtb::io::Compression::zstd);
}

// Look-ups at random ranks; range(0) is nimtb's cache in chunks (1: most look-ups miss it;
// some of those still hit HDF5's own 1 MiB chunk cache).
void PointLookups(benchmark::State& state) {
    static const std::string path = [] {
        const std::string p = scratch("-lookup.h5");
        nimtb::io::WriteOptions o;
        o.overwrite = true;
        write_solution(p, o);
        return p;
    }();
    nimtb::io::TableReader t(path);
    t.set_cache_bytes(uint64_t(state.range(0)) * nimtb::io::CHUNK_ELEMENTS * 2 * 2);
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<uint64_t> rank(0, t.info().positions - 1);
    uint64_t sum = 0;
    for (auto _ : state) sum += t.value(rank(rng)) + t.remoteness(rank(rng));
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(2 * state.iterations());
}

void SmallStream(benchmark::State& state) {
    const std::string path = scratch("-stream.h5");
    nimtb::io::WriteOptions o;
    o.overwrite = true;
    write_solution(path, o);
    nimtb::io::TableReader t(path);
    for (auto _ : state) {
        uint64_t sum = 0;
        t.for_each_chunk(
            [&](uint64_t, std::span<const uint16_t> v, std::span<const uint16_t>) { sum += v[0]; });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(int64_t(solution().positions) * state.iterations());
    std::filesystem::remove(path);
}

}  // namespace

BENCHMARK(WriteDeflate)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(WriteZstd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(PointLookups)->Arg(1)->Arg(64);
BENCHMARK(SmallStream)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
