#pragma once
// Positions of any size, answered from a single-heap sequence with a proven
// period. In normal play a position of a one-heap family is worth the XOR of
// its heaps' values (Sprague-Grundy), and a proven period gives the value of
// a heap of any size: a heap of 10^12 tokens is answered as fast as one of 12.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::engine {

// Heap sizes of any size up to 2^63, separated by spaces or commas; empty
// heaps are dropped. Throws InputError naming the bad heap.
std::vector<uint64_t> parse_big_heaps(std::string_view text);

class PeriodicGame {
  public:
    // `values` = g(0..) of `rule` (a subtraction game or an octal code),
    // holding at least preperiod + period of them, periodic from the
    // preperiod on. Throws InputError for another rule.
    PeriodicGame(const Rule& rule, std::vector<uint16_t> values, uint64_t preperiod,
                 uint64_t period);

    const Rule& rule() const { return rule_; }
    uint32_t value(uint64_t heap) const;
    uint32_t value(std::span<const uint64_t> heaps) const;  // the XOR of the heaps' values

    // A move on one heap: that heap (its index among `heaps`), how many tokens
    // it takes, and the heaps it leaves in its place (none, one or two).
    struct Move {
        size_t index = 0;
        uint64_t heap = 0;
        uint64_t taken = 0;
        std::vector<uint64_t> leaves;
        std::string phrase;  // "take 2 from the 1000000000000, leaving 5 and 999999999993"
    };
    // A move to a position of value 0, or nullopt when the value is 0 already.
    std::optional<Move> winning_move(std::span<const uint64_t> heaps) const;

  private:
    // A move from heap h to options worth `target`, or nullopt.
    std::optional<Move> move_to(uint64_t h, uint32_t target) const;

    Rule rule_;
    std::vector<uint16_t> values_;
    uint64_t preperiod_, period_;
};

}  // namespace nimtb::engine
