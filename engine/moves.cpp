#include "engine/moves.h"

namespace nimtb::engine {

std::string describe_take(uint32_t heap_size, uint32_t amount) {
    return "take " + std::to_string(amount) + " from the " + std::to_string(heap_size);
}

void MoveGenerator::moves(std::span<const uint32_t> sorted, std::vector<Move>& out) const {
    out.clear();
    const uint64_t rank = universe_.rank(sorted);
    auto push = [&](uint32_t heap, uint32_t amount, uint64_t child) {
        out.push_back({heap, amount, child});
    };
    if (amounts_.all) {
        for_each_take_child<true>(universe_, amounts_, sorted.data(), rank, push);
    } else {
        for_each_take_child<false>(universe_, amounts_, sorted.data(), rank, push);
    }
}

}  // namespace nimtb::engine
