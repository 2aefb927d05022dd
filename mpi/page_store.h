#pragma once
// The pages of a distributed solve: runs of 2^bits consecutive ranks that a
// process fetches from their owners for one round, and the store its
// brute-force kernel sweeps over (its own block, then the fetched pages).
// No MPI here: the trade of pages is the solver's (distributed_solver.cpp).

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "engine/game/universe.h"

namespace nimtb::mpi {

// Pages of 2^bits ranks: at least 64, and at most 2^21 pages in the
// universe, so that the table of a page's slot stays within 8 MB. Small
// pages carry fewer positions nobody asked for (misere Kayles N=70 on 4
// processes sent 1.05 GB in pages of 512, 0.97 GB in pages of 64).
inline unsigned page_bits(const engine::Universe& u) {
    const unsigned bits = static_cast<unsigned>(std::bit_width(u.size()));
    return std::max(6u, bits > 21 ? bits - 21 : 0u);
}

// The pages fetched for one round: a slot per page, the page's values and
// remoteness in the arrays' widths.
struct Pages {
    unsigned bits = 9;
    std::vector<int32_t> slot;    // per page of the universe; -1: not fetched
    std::vector<uint64_t> marks;  // per page of the universe, a bit: needed
    std::vector<uint64_t> list;   // the pages of this round, ascending
    std::vector<uint64_t> held;   // the pages held, by slot: kept from round to round of a level
    std::vector<uint64_t> value_words, remoteness_words;  // 8-byte aligned storage
    uint64_t page() const { return uint64_t{1} << bits; }
};

// Reads children from the process's own arrays inside the block being
// swept, and from the fetched pages below it.
template <class V, class R>
struct PagedStore {
    V* value;  // at the block's first rank
    R* remoteness;
    uint64_t block_first;
    const V* page_value;
    const R* page_remoteness;
    const int32_t* slot;
    unsigned bits;

    uint64_t at(uint64_t c) const {
        const int32_t at = slot[c >> bits];
        assert(at >= 0);
        return (static_cast<uint64_t>(at) << bits) | (c & ((uint64_t{1} << bits) - 1));
    }
    V child_value(uint64_t c) const {
        return c >= block_first ? value[c - block_first] : page_value[at(c)];
    }
    R child_remoteness(uint64_t c) const {
        return c >= block_first ? remoteness[c - block_first] : page_remoteness[at(c)];
    }
    void set(uint64_t rank, V v, R r) const {
        value[rank - block_first] = v;
        if (remoteness) remoteness[rank - block_first] = r;
    }
};

// A piece of one of this process's blocks, swept in one round.
struct Piece {
    uint64_t first;  // rank
    uint64_t count;
    uint64_t block_first;  // rank
    uint64_t block_local;  // offset of the block in this process's arrays
    size_t block;          // its index in the layout's local plan
};

}  // namespace nimtb::mpi
