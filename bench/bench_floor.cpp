// The floor this machine sets for a solve: what memory moves and how fast a
// dependent or independent random read returns, on one thread and on every
// core, and the compute of a line-kernel position with its data in cache.
// A kernel's positions/s is measured against these (README, Performance).
//
//   build/bench/bench_floor                        # every figure, 1 GiB arrays
//   build/bench/bench_floor --benchmark_filter=Read
//
// Sizes are the argument in 64-bit words: 2^17 (1 MiB, in cache, the smoke
// test's) and 2^27 (1 GiB, far beyond every cache, what a solve meets).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <vector>

namespace {

std::mutex arrays_mutex;

// One array per size, shared by the benchmark's threads (the first to ask
// makes it), written once so that its pages are mapped before any timing.
std::vector<uint64_t>& array_of(size_t words) {
    static std::map<size_t, std::vector<uint64_t>> arrays;
    const std::lock_guard lock(arrays_mutex);
    std::vector<uint64_t>& a = arrays[words];
    if (a.empty()) {
        a.resize(words);
        std::iota(a.begin(), a.end(), uint64_t{1});
    }
    return a;
}

// A single cycle through every slot in random order (Sattolo's shuffle): each
// read's address is the previous read's value, so reads cannot overlap.
std::vector<uint64_t>& cycle_of(size_t words) {
    static std::map<size_t, std::vector<uint64_t>> cycles;
    const std::lock_guard lock(arrays_mutex);
    std::vector<uint64_t>& next = cycles[words];
    if (!next.empty()) return next;
    std::vector<uint64_t> order(words);
    std::iota(order.begin(), order.end(), uint64_t{0});
    std::mt19937_64 rng(7);
    for (size_t i = words - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);
    next.resize(words);
    for (size_t i = 0; i < words; ++i) next[order[i]] = order[(i + 1) % words];
    return next;
}

// The thread's part [lo, hi) of `words`.
std::pair<size_t, size_t> slice(const benchmark::State& state, size_t words) {
    const size_t t = static_cast<size_t>(state.thread_index()),
                 n = static_cast<size_t>(state.threads());
    return {words * t / n, words * (t + 1) / n};
}

// Streaming read: the sum of the thread's slice.
void Read(benchmark::State& state) {
    const size_t words = static_cast<size_t>(state.range(0));
    const std::vector<uint64_t>& a = array_of(words);
    const auto [lo, hi] = slice(state, words);
    for (auto _ : state) {
        uint64_t sum = 0;
        for (size_t i = lo; i < hi; ++i) sum += a[i];
        benchmark::DoNotOptimize(sum);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(hi - lo) * 8);
}

// Streaming write of the thread's slice.
void Write(benchmark::State& state) {
    const size_t words = static_cast<size_t>(state.range(0));
    std::vector<uint64_t>& a = array_of(words);
    const auto [lo, hi] = slice(state, words);
    uint64_t x = 0;
    for (auto _ : state) {
        std::fill(a.begin() + std::ptrdiff_t(lo), a.begin() + std::ptrdiff_t(hi), ++x);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(hi - lo) * 8);
}

// Dependent random reads (a pointer chase): the latency a read that misses
// every cache pays when nothing else is in flight.
void ChaseLatency(benchmark::State& state) {
    const size_t words = static_cast<size_t>(state.range(0));
    const std::vector<uint64_t>& next = cycle_of(words);
    uint64_t at = static_cast<uint64_t>(state.thread_index()) * (words / 7);
    constexpr int64_t STEPS = 1 << 16;
    for (auto _ : state) {
        for (int64_t i = 0; i < STEPS; ++i) at = next[at];
        benchmark::DoNotOptimize(at);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * STEPS);
}

// Independent random reads (a gather): how many misses the core keeps in
// flight, the rate of a kernel whose reads do not depend on each other.
void GatherRate(benchmark::State& state) {
    const size_t words = static_cast<size_t>(state.range(0));
    const std::vector<uint64_t>& a = array_of(words);
    std::vector<uint64_t> index(1 << 16);
    std::mt19937_64 rng(11 + static_cast<uint64_t>(state.thread_index()));
    for (uint64_t& i : index) i = rng() % words;
    for (auto _ : state) {
        uint64_t sum = 0;
        for (const uint64_t i : index) sum += a[i];
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(index.size()));
}

// The compute of one line-kernel position with everything in cache: OR of
// K = 7 lines' one-word value sets, the mex by countr_one, a store, and each
// line's aggregate updated (engine/solve/line_kernel.h, W = 1).
void LineCompute(benchmark::State& state) {
    constexpr unsigned K = 7;
    std::vector<uint64_t> seen(4096, 0);
    std::vector<uint8_t> value(1 << 16);
    std::mt19937_64 rng(3);
    std::vector<uint32_t> lines(value.size() * K);
    for (uint32_t& l : lines) l = static_cast<uint32_t>(rng() % seen.size());
    for (auto _ : state) {
        for (size_t p = 0; p < value.size(); ++p) {
            const uint32_t* line = &lines[p * K];
            uint64_t set = 0;
            for (unsigned i = 0; i < K; ++i) set |= seen[line[i]];
            const auto mex = static_cast<uint8_t>(std::countr_one(set));
            value[p] = mex;
            for (unsigned i = 0; i < K; ++i) seen[line[i]] |= uint64_t{1} << (mex & 63);
        }
        benchmark::DoNotOptimize(value.data());
        std::fill(seen.begin(), seen.end(), 0);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(value.size()));
}

constexpr int64_t IN_CACHE = int64_t{1} << 17;   // 1 MiB
constexpr int64_t IN_MEMORY = int64_t{1} << 27;  // 1 GiB

}  // namespace

BENCHMARK(Read)->Arg(IN_CACHE)->Arg(IN_MEMORY)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(Write)->Arg(IN_CACHE)->Arg(IN_MEMORY)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(ChaseLatency)->Arg(IN_CACHE)->Arg(IN_MEMORY)->Threads(1)->UseRealTime();
BENCHMARK(GatherRate)->Arg(IN_CACHE)->Arg(IN_MEMORY)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(LineCompute)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK_MAIN();
