#pragma once
// Equivalent octal codes: the standard form of a code, the reduction that
// makes Dawson's Chess (0.137) Dawson's Kayles (0.07) shifted by a heap.
//
// The shift. Let c be a code whose heap of 1 has no move (d_1 lacks bit 1),
// so a heap of one token is the empty game. Then heap m + 1 of c is heap m
// of the code s(c) whose digits are, for every bit of c (k >= 1):
//   bit 1 of d_k (k >= 2): take k, leaving nothing -> bit 1 of d'_{k-1};
//   bit 2 of d_k: take k, leave one heap h >= 1    -> bits 1, 2 of d'_k
//     (heap h - 1, which may be empty);
//   bit 4 of d_k: take k, leave a, b >= 1          -> bits 1, 2, 4 of d'_{k+1}
//     (heaps a - 1, b - 1: take k + 1, leave what is not empty).
// Each move of c from heap m + 1 is a move of s(c) from heap m and back, so
// the two heaps are the same game once heaps of one token are dropped: the
// same outcomes, values and quotients, in normal and misère play.
//
// The standard form of a code (no leading 4) is the shortest code reached
// by steps back along s: while the least code u (fewest digits, then the
// smallest digits from d_1 on) with a dead heap 1 and s(u) = c is shorter
// than c, c becomes u and the shift grows by one (shorter only: 0.01 is
// 0.001 shifted, which is 0.0001 shifted, without end). A code whose own
// heap 1 is dead is first replaced, shift 0, by the least u with s(u) =
// s(c) when that is shorter (0.073 is 0.07: both shift to 0.137).
// Heap n of the rule is heap n + shift of its standard form: 0.137 is 0.07
// shifted by one heap, and both are 0.4 (take one token and split what is
// left in two), shifted by two and one.

#include <cstdint>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::engine {

struct StandardForm {
    Rule rule = Rule::nim();  // the standard form (the rule itself when none is smaller)
    uint32_t shift = 0;       // heap n of the rule is heap n + shift of `rule`
    // The codes on the way, each the next one reduced: the first the same
    // game with no shift when the rule's heap 1 is dead and a smaller code
    // says so, then one more heap of shift each; the last is `rule`.
    std::vector<Rule> steps;
};

// The standard form of an octal code, or of a subtraction game with a
// finite list; any other rule (and a code with a leading 4) is its own,
// with shift 0.
StandardForm standard_form(const Rule& rule);

}  // namespace nimtb::engine
