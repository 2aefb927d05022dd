#pragma once
// The moves of positions of one universe, for those that ask a position at a
// time (the prober, verify): each child once with its rank, or the
// children's ranks by the solver's fast generators. Above moves.h and
// total_children.h, which know nothing of it.

#include <optional>
#include <span>
#include <vector>

#include "engine/game/moves.h"
#include "engine/game/rules.h"
#include "engine/game/total_children.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

// The moves of positions of one universe under one rule.
class MoveGenerator {
  public:
    MoveGenerator(const Rule& rule, const Universe& universe)
        : rule_(rule), universe_(universe), amounts_(rule, universe.max_heap_size()) {}

    // Every move of `heaps` (any order, in the universe), in the order the
    // family generates them: one move per child and per shape of what it
    // does (the sizes of the heaps it touches and the parts it leaves), so
    // that taking from one of two equal heaps is listed once, but Wythoff's
    // "take 8 from both" at 12 20 beside "take 16 from the 20", which leaves
    // the same position, is a move of its own.
    void moves(std::span<const uint32_t> heaps, std::vector<Move>& out) const;
    std::vector<Move> moves(std::span<const uint32_t> heaps) const {
        std::vector<Move> out;
        moves(heaps, out);
        return out;
    }
    // The children's ranks of sorted, padded heaps, a child possibly more
    // than once: what a check of the definitions needs, fast. The solver's
    // generators: incremental ranks for take rules in a box, TotalChildren
    // (built on first use) for one-heap families under a total, which keeps
    // state from one call to the next: one generator per thread.
    void child_ranks(std::span<const uint32_t> sorted, std::vector<uint64_t>& out);

    const Rule& rule() const { return rule_; }
    const Universe& universe() const { return universe_; }

  private:
    Rule rule_;
    const Universe& universe_;
    TakeAmounts amounts_;
    std::optional<TotalChildren> total_;
};

}  // namespace nimtb::engine
