#pragma once
// The census of a table: how many positions, and how many P-positions, by
// total number of tokens and by largest heap - counted as multisets (the
// table's positions) and as ordered tuples of K heaps, empty ones included
// (the rows of a board, the way a program that enumerates rows counts them:
// 3 4 5 on three rows is six tuples, 4 4 0 three).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/game/universe.h"

namespace nimtb::engine {

struct CensusRow {
    uint64_t positions = 0;
    uint64_t p_positions = 0;
    // Ordered tuples; empty when the universe's tuples do not fit in 64 bits.
    std::optional<uint64_t> tuples;
    std::optional<uint64_t> p_tuples;
};

struct Census {
    bool has_tuples = false;  // tuples counted (they fit in 64 bits)
    CensusRow all;
    std::vector<CensusRow> by_total;    // index: total number of tokens
    std::vector<CensusRow> by_largest;  // index: largest heap
    // Index: remoteness (moves to the end under perfect play); empty when
    // the table stores no remoteness.
    std::vector<CensusRow> by_remoteness;
};

// The number of ordered K-tuples of the universe (K heaps, empty ones
// included), or nothing when it exceeds 64 bits.
std::optional<uint64_t> tuple_count(const Universe& u);

// Counts positions as their values arrive, in slices of consecutive ranks
// (a table is read chunk by chunk, so memory stays small).
class CensusCounter {
  public:
    explicit CensusCounter(const Universe& u);
    // Counts ranks [first, first + values.size()); a value 0 marks a P-position.
    // `remoteness`, when not empty, holds the same ranks' remoteness.
    void add(uint64_t first, std::span<const uint16_t> values,
             std::span<const uint16_t> remoteness = {});
    // The counts so far, with the totals row filled in.
    Census census() const;

  private:
    const Universe& u_;
    bool tuples_;
    Census c_;
    std::vector<uint32_t> heaps_;
};

}  // namespace nimtb::engine
