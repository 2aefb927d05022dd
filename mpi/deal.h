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
// owner of the block's group (`by_group`: chain_deal's owners). The layout as
// process `rank` of `processes` sees it.
Layout deal(const engine::SolveOrder& plan, int rank, int processes, const engine::Universe& u,
            const std::vector<int>& by_group);

// The line chain's groups (mpi/line_chain.h): the positions of a box of
// K >= 2 heaps whose two largest heaps are m2 <= m, one contiguous run of
// ranks (colex order compares the largest heaps first), numbered
// m * (H + 1) + m2; a block of the solve order (2 top heaps or more) lies
// in one. Each group holds C(m2 + K - 2, K - 2) positions and keeps the
// lines (positions of K - 1 heaps) whose two largest heaps are m2 and m:
// C(m2 + K - 3, K - 3) of them (K = 2: the line of heap m alone, in the
// group m2 = 0).
inline size_t chain_group(const engine::Universe& u, uint32_t m2, uint32_t m) {
    return size_t{m} * (u.max_heap_size() + 1) + m2;
}
// The group of a position, its heaps sorted.
inline size_t chain_group(const engine::Universe& u, const uint32_t* sorted) {
    const unsigned k = u.max_heaps();
    return chain_group(u, sorted[k - 2], sorted[k - 1]);
}
uint64_t chain_group_positions(const engine::Universe& u, uint32_t m2);
uint64_t chain_group_lines(const engine::Universe& u, uint32_t m2);
// The first line (its index, engine::line_indices) of group (m2, m).
uint64_t chain_group_first_line(const engine::Universe& u, uint32_t m2, uint32_t m);

// The line chain's deal of the groups: the groups of one largest heap m
// together, a *piece* (a line then stays in its process while its points
// are the piece's), cut into runs of m2 of about a quarter of an even share
// (of the positions and the lines together) where they are half one or
// more; the pieces from the largest down, each to the process where it adds
// least to the levels' busiest processes among those it leaves within 1.08
// times an even share. So no process holds much more than an even share of
// either at any number of processes (the largest group of nim in a box of
// K = 8, H = 63 is 1.1 % of its positions), and few rows are cut while the
// processes are few. Per group: its process, and the first and last m2 of
// its piece.
struct ChainDeal {
    std::vector<int> owner;
    std::vector<uint32_t> first, last;
};
ChainDeal chain_deal(const engine::Universe& u, int processes);

// The top heaps of the line chain's blocks. Between two levels a level's
// aggregates are in flight (each of its positions passes one or two on to
// the next level), and a streamed process holds a level's positions: finer
// levels hold less. Blocks of j top heaps make levels of one sum of them, so
// the chain takes the most top heaps, up to 5 and below K, whose blocks
// average CHAIN_BLOCK_POSITIONS positions or more (the work a block costs
// besides its positions, and the 28 bytes every process keeps of every
// block in its Layout, stay small beside them), never fewer than one
// process would (engine::choose_block_heaps). Nim misere H=63: K=8 4 top
// heaps (766 K blocks), K=9 and K=10 5 (10.4 M).
inline constexpr uint64_t CHAIN_BLOCK_POSITIONS = 4096;
unsigned chain_block_heaps(const engine::Universe& u);

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
