#pragma once
// The hint of a game: the best move and why, in words. The terminal game and
// the web page say the same: the XOR arithmetic where the rule is Nim, the
// table's values otherwise.

#include <string>

#include "io/probe.h"

namespace nimtb::play {

// A move as the board shows it: "take 2 from heap 1 (the 3)"; heaps are
// numbered in the order the position was probed.
std::string named(const io::ProbedMove& m);
// The same, with the position it leaves: "take 2 from heap 1 (the 3), leaving 1 4 5".
std::string named_with_result(const io::ProbedMove& m);

// "hint: ..." lines for a position with at least one move.
std::string hint(const io::Prober& prober, const io::ProbeResult& r);

}  // namespace nimtb::play
