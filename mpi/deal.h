#pragma once
// Who solves what in a distributed solve: the blocks of the solve order
// (engine/solve/solve_order.h) dealt out to the processes, and where each block
// lies in its process's arrays. Pure functions of the plan and the number
// of processes, so every process computes the same deal without a word
// exchanged (and a test needs no MPI).

#include <cstdint>
#include <vector>

#include "engine/game/universe.h"
#include "engine/solve/solve_order.h"

namespace nimtb::mpi {

// Which process holds each block, and where in its arrays.
struct Layout {
    // Every block of the plan, sorted by first rank.
    std::vector<uint64_t> first, count, offset;
    std::vector<int> owner;
    // This process's blocks by level, `first` being the offset in its arrays
    // (a SolveOrder, so that a checkpoint saves and restores it like one process's).
    engine::SolveOrder local_plan;
    std::vector<uint64_t> local_global_first;  // per block of local_plan: its first rank
    uint64_t local_positions = 0;
    // The index (in `first`) of the block holding `rank`.
    size_t find(uint64_t rank) const;
};

// Each level's blocks, largest first (the plan's order), to the process
// with the least work in that level so far; or, for the line chain, to the
// owner of the block's largest heap (`by_largest`, per heap size:
// largest_heap_owners). The layout as process `rank` of `processes` sees it.
Layout deal(const engine::SolveOrder& plan, int rank, int processes, const engine::Universe& u,
            const std::vector<int>& by_largest);

// The line chain's owner of each largest heap size: sizes from the largest
// down, each to the process with the fewest positions so far.
std::vector<int> largest_heap_owners(const engine::Universe& u, int processes);

// Calls f(start, end, block) for the part [start, end) of every block that
// overlaps the ranks [lo, hi), in rank order.
template <class F>
void for_each_overlap(const Layout& l, uint64_t lo, uint64_t hi, F&& f) {
    for (size_t b = l.find(lo); b < l.first.size() && l.first[b] < hi; ++b) {
        const uint64_t start = std::max(lo, l.first[b]);
        const uint64_t end = std::min(hi, l.first[b] + l.count[b]);
        if (start < end) f(start, end, b);
    }
}

}  // namespace nimtb::mpi
