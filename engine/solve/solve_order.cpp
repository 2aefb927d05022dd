#include "engine/solve/solve_order.h"

#include <algorithm>

namespace nimtb::engine {

uint64_t SolveOrder::positions_below(size_t level) const {
    uint64_t done = 0;
    for (size_t b = 0; b < level_start[level]; ++b) done += blocks[b].count;
    return done;
}

uint64_t SolveOrder::positions_in(size_t level) const {
    uint64_t n = 0;
    for (size_t b = level_start[level]; b < level_start[level + 1]; ++b) n += blocks[b].count;
    return n;
}

unsigned choose_block_heaps(const Universe& u) {
    const unsigned k = u.max_heaps();
    if (k == 1) return 1;
    const uint64_t h = u.max_heap_size();
    // Top-3 tuples: C(H+3, 3) in a box, about N^3/36 under a total.
    const uint64_t tuples = u.is_box() ? binomial(h + 3, 3) : std::max<uint64_t>(1, h * h * h / 36);
    if (k >= 4 && u.size() / tuples >= 2048) return 3;
    return 2;
}

SolveOrder make_order(const Universe& u, unsigned j) {
    const unsigned k = u.max_heaps();
    const uint32_t h = u.max_heap_size();
    const Universe top = u.is_box() ? Universe(j, h) : Universe::total_bounded(h, j);
    const uint32_t budget = u.is_box() ? 0 : u.max_total();
    std::vector<std::vector<Block>> by_level((size_t(j) * h + 1) * (j + 1));
    std::vector<uint32_t> b(j, 0);
    do {
        uint32_t sum = 0;
        unsigned empty = 0;
        for (unsigned t = 0; t < j; ++t) {
            sum += b[t];
            empty += b[t] == 0;
        }
        const uint64_t first = u.rank_compact(b.data() + empty, j - empty);
        const uint64_t count = u.completions(k - j, b[0], budget ? budget - sum : 0);
        // Within one sum, fewer empty heaps first: (sum, empty) ascending.
        by_level[size_t(sum) * (j + 1) + empty].push_back({first, count});
    } while (top.next(b.data()));
    SolveOrder plan;
    plan.blocks.reserve(top.size());
    for (auto& level : by_level) {
        // Largest blocks first: the last tasks of a level are then small, and
        // the threads reach the level's barrier together.
        std::stable_sort(level.begin(), level.end(),
                         [](const Block& x, const Block& y) { return x.count > y.count; });
        plan.level_start.push_back(plan.blocks.size());
        plan.blocks.insert(plan.blocks.end(), level.begin(), level.end());
    }
    plan.level_start.push_back(plan.blocks.size());
    return plan;
}

}  // namespace nimtb::engine
