#pragma once
// Single-heap values of games whose moves touch one heap, by the
// Sprague-Grundy theory: a position's normal-play value is the XOR of its
// heaps' values, so a heap's value is the mex, over its moves, of the XOR of
// the values of the heaps a move leaves (one heap, none, or two after a
// split). No whole-position table is needed: this is how researchers compute
// octal games' sequences to great lengths.

#include <cstdint>
#include <vector>

#include "engine/rules.h"

namespace nimtb::engine {

// g(0), g(1), ..., g(max_heap) in normal play. Throws InputError when the
// rule's moves touch several heaps (the theory does not apply).
std::vector<uint32_t> grundy_sequence(const Rule& rule, uint32_t max_heap);

}  // namespace nimtb::engine
