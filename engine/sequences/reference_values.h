#pragma once
// Single-heap values of games whose moves touch one heap, by the
// Sprague-Grundy theory: a position's normal-play value is the XOR of its
// heaps' values, so a heap's value is the mex, over its moves, of the XOR of
// the values of the heaps a move leaves (one heap, none, or two after a
// split). No whole-position table is needed: this is how researchers compute
// octal games' sequences to great lengths.

#include <cstdint>
#include <vector>

#include "engine/game/moves.h"
#include "engine/game/rules.h"

namespace nimtb::engine {

// g(0), g(1), ..., g(max_heap) in normal play. Throws InputError when the
// rule's moves touch several heaps (the theory does not apply).
std::vector<uint32_t> grundy_sequence(const Rule& rule, uint32_t max_heap);

// g(n) from the values of smaller heaps, g_of(part) for every part a move
// leaves: the mex over the rule's moves (for_each_child). `seen` is scratch.
// The reference every faster method is tested against.
template <class Values>
uint32_t grundy_value(const Rule& rule, uint32_t n, const Values& g, std::vector<char>& seen);

template <class Values>
uint32_t grundy_value(const Rule& rule, uint32_t n, const Values& g, std::vector<char>& seen) {
    seen.assign(seen.size(), 0);
    const uint32_t heap[] = {n};
    for_each_child(rule, heap, [&](const Heaps& child) {
        uint32_t x = 0;
        for (uint32_t part : child) x ^= g[part];  // every part is smaller than n
        if (x >= seen.size()) seen.resize(size_t{x} + 1, 0);
        seen[x] = 1;
    });
    uint32_t mex = 0;
    while (mex < seen.size() && seen[mex]) ++mex;
    return mex;
}

}  // namespace nimtb::engine
