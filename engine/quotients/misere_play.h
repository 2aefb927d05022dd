#pragma once
// Misère answers for positions of any size from a quotient: a position is a
// misère P-position exactly when the product of its heaps' elements lies in
// the P-portion, and a winning move is a move to such a position. Heaps
// beyond the quotient's own are answered only when its proof covers every
// heap size (heap_element).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/quotients/quotient.h"

namespace nimtb::engine {

// The element of a position (the product of its heaps' elements).
uint32_t position_element(const MisereQuotient& q, std::span<const uint64_t> heaps);

// A move on one heap of a position, heaps of any size.
struct MisereMove {
    size_t index = 0;  // which heap of the position
    uint64_t heap = 0;
    uint64_t taken = 0;
    std::vector<uint64_t> leaves;  // smallest first
    std::string phrase;            // "take 1 from the 1000000000, leaving 5 and 999999994"
};

// A move to a misère P-position, the first found heap by heap; nullopt from
// a P-position. `q` must be the quotient of `rule`.
std::optional<MisereMove> misere_winning_move(const Rule& rule, const MisereQuotient& q,
                                              std::span<const uint64_t> heaps);

}  // namespace nimtb::engine
