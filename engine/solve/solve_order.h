#pragma once
// The solve order: blocks of positions that share their top heaps, grouped in
// levels that may run in parallel.
//
// Group positions by their j largest heaps: each group is a contiguous rank
// range (its lower K-j heaps range over a smaller set), and a child either
// keeps the parent's top-j heaps (same block, smaller rank) or lies in a block
// of a smaller level, the level of top heaps T being (sum of T, then more
// non-empty heaps in T first):
// - lowering heaps (every family but splits) never raises any of the j
//   largest, and equal sums of componentwise-smaller tuples are equal tuples;
// - a split of h into x + y <= h: any j heaps of the child sum to at most some
//   j heaps of the parent (put h back for x, y), with equality only when the
//   top j stay the same, or when x + y = h both enter the top j in place of h
//   and an empty heap - then the child's top j have one more non-empty heap.
// So blocks are swept in rank order, one thread each, and all blocks of one
// level run in parallel once the lower levels are done.
//
// One more fact the line kernel relies on: two positions of one level that
// differ in a single heap lie in the same block. Raising one heap gives a
// componentwise larger sorted tuple, whose top j sum more unless they are the
// same top j.
//
// A streamed solve (solver.h) needs more: that the solved positions form a
// prefix of the ranks, a little at a time, so that they can leave memory. Its
// order comes in groups: the blocks that share their top p < j heaps, which
// are contiguous in rank (colex order compares the largest heaps first), in
// rank order; within a group, levels as above over the other j - p heaps of
// the block. For moves that lower heaps (take rules) this is an order too: a
// child's sorted heaps are componentwise at most its parent's, so its top p
// are equal or come first in colex order, and when they are equal its other
// j - p top heaps sum less or are the same. Two positions of one level that
// differ in a single heap share the top p, and then the argument above puts
// them in one block.

#include <cstdint>
#include <vector>

#include "engine/game/universe.h"

namespace nimtb::engine {

// A contiguous rank range of positions that share their top heaps.
struct Block {
    uint64_t first;
    uint64_t count;
};

// Levels [first_level, the next group's first_level) of a streamed order,
// which solve the ranks [first, first + count) and nothing else.
struct Group {
    size_t first_level;
    uint64_t first;
    uint64_t count;
};

// The solve order: the blocks of a universe, by level. A level's blocks are
// independent of each other; each depends only on the levels below.
struct SolveOrder {
    std::vector<Block> blocks;
    std::vector<size_t> level_start;  // blocks of level l: [level_start[l], level_start[l+1])
    std::vector<Group> groups;        // in rank order; empty unless the order streams

    size_t levels() const { return level_start.size() - 1; }
    // Positions in the levels below `level`.
    uint64_t positions_below(size_t level) const;
    // Positions in level `level`.
    uint64_t positions_in(size_t level) const;
};

// Top heaps per block: at least 2 when K >= 2 so that a level holds many
// blocks; 3 when blocks would still average a few thousand positions, which
// evens out the work between threads.
unsigned choose_block_heaps(const Universe& u);

// The blocks of `u` keyed by their top `j` heaps (1 <= j <= K), by level;
// with `prefix` p (0 < p < j), in groups of blocks that share their top p
// heaps: an order for moves that lower heaps only, with no empty level.
SolveOrder make_order(const Universe& u, unsigned j, unsigned prefix = 0);

}  // namespace nimtb::engine
