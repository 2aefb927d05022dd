#pragma once
// Positions of any size, answered from what is known of a one-heap rule's
// single heaps. In normal play a position of a rule whose moves touch one
// heap is worth the XOR of its heaps' values (Sprague-Grundy), so the values
// answer every position: a proven (arithmetic) period or a formula gives the
// value of a heap of any size, a heap of 10^12 tokens as fast as one of 12;
// values computed (or read from a sequence file) without a period answer
// every heap within them.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game/rules.h"
#include "engine/sequences/period.h"
#include "engine/sequences/runs.h"

namespace nimtb::engine {

// Heap sizes of any size up to 2^63, separated by spaces or commas; empty
// heaps are dropped. Throws InputError naming the bad heap.
std::vector<uint64_t> parse_big_heaps(std::string_view text);

// A rule whose moves touch one heap, answered from its single-heap values.
class OneHeapGame {
  public:
    // `values` = g(0..) of `rule` (whose moves touch one heap). With a
    // period (> 0), g(n + period) = g(n) + saltus for every n >= preperiod,
    // and `values` covers preperiod + period of them; without one, heaps
    // beyond the values are refused. Throws InputError for a rule whose moves
    // touch several heaps.
    OneHeapGame(const Rule& rule, std::vector<uint16_t> values, uint64_t preperiod = 0,
                uint64_t period = 0, uint64_t saltus = 0);
    // A subtraction game's values as runs, with their proven period.
    OneHeapGame(const Rule& rule, SubtractionRuns runs);

    const Rule& rule() const { return rule_; }
    // The largest heap answered: UINT64_MAX with a period.
    uint64_t known_up_to() const;
    // Throws InputError for a heap beyond what is known.
    uint64_t value(uint64_t heap) const;
    uint64_t value(std::span<const uint64_t> heaps) const;  // the XOR of the heaps' values

    // A move on one heap: that heap (its index among `heaps`), how many tokens
    // it takes, and the heaps it leaves in its place (none to three,
    // smallest first).
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
    std::optional<Move> move_to(uint64_t h, uint64_t target) const;
    // Every heap below `below` worth `target` when the values grow (saltus > 0),
    // ascending; at most one a residue.
    std::vector<uint64_t> heaps_worth(uint64_t target, uint64_t below) const;
    // The first split of m into a + b (a <= b, both >= 1) worth `target`.
    std::optional<std::pair<uint64_t, uint64_t>> split_worth(uint64_t m, uint64_t target,
                                                             bool unequal) const;

    // A heap >= the preperiod folded into the first period.
    uint64_t folded(uint64_t heap) const { return preperiod_ + (heap - preperiod_) % period_; }
    // Runs: the largest heap x in [lo, hi] worth `target`.
    std::optional<uint64_t> last_worth(uint64_t lo, uint64_t hi, uint64_t target) const;

    Rule rule_;
    std::vector<uint16_t> values_;
    std::optional<SubtractionRuns> runs_;  // instead of values_
    uint64_t preperiod_, period_, saltus_;
};

// A rule whose values are a formula, as an arithmetic period with the
// theorem that proves it: Nim's g(n) = n (Bouton), Lasker's Nim's
// g(4k+1) = 4k+1, g(4k+2) = 4k+2, g(4k+3) = 4k+4, g(4k+4) = 4k+3 (Lasker
// 1931; Winning Ways, ch. 4). nullopt for other rules.
struct Formula {
    OneHeapGame game;
    Periodicity period;
};
std::optional<Formula> formula(const Rule& rule);

}  // namespace nimtb::engine
