#include "engine/solve/solve_order.h"

#include <algorithm>
#include <cassert>

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

namespace {

// Appends the levels of `by_level` (blocks by (sum, empty heaps) key) to
// `order`, largest blocks first within a level: the last tasks of a level
// are then small, and the threads reach the level's barrier together.
// Empty levels are kept only when `keep_empty` (the checkpoints of the
// level-major order count them).
void append_levels(std::vector<std::vector<Block>>& by_level, bool keep_empty, SolveOrder& order) {
    for (auto& level : by_level) {
        if (level.empty() && !keep_empty) continue;
        std::stable_sort(level.begin(), level.end(),
                         [](const Block& x, const Block& y) { return x.count > y.count; });
        order.level_start.push_back(order.blocks.size());
        order.blocks.insert(order.blocks.end(), level.begin(), level.end());
        level.clear();
    }
}

}  // namespace

SolveOrder make_order(const Universe& u, unsigned j, unsigned prefix) {
    assert(prefix < j || prefix == 0);
    const unsigned k = u.max_heaps();
    const uint32_t h = u.max_heap_size();
    const Universe top = u.is_box() ? Universe(j, h) : Universe::total_bounded(h, j);
    const uint32_t budget = u.is_box() ? 0 : u.max_total();
    // The levels' key counts the j - prefix heaps below the group's: all j
    // of them in the level-major order.
    const unsigned keyed = j - prefix;
    std::vector<std::vector<Block>> by_level((size_t(keyed) * h + 1) * (j + 1));
    SolveOrder order;
    order.blocks.reserve(top.size());
    std::vector<uint32_t> b(j, 0), group_top;
    // Top heaps in colex order: blocks in rank order, each group's together.
    do {
        if (prefix > 0 &&
            !std::equal(b.end() - prefix, b.end(), group_top.begin(), group_top.end())) {
            if (!group_top.empty()) append_levels(by_level, false, order);
            group_top.assign(b.end() - prefix, b.end());
            order.groups.push_back({order.level_start.size(), 0, 0});
        }
        uint32_t sum = 0, keyed_sum = 0;
        unsigned empty = 0;
        for (unsigned t = 0; t < j; ++t) {
            sum += b[t];
            if (t < keyed) keyed_sum += b[t];
            empty += b[t] == 0;
        }
        const uint64_t first = u.rank_compact(b.data() + empty, j - empty);
        const uint64_t count = u.completions(k - j, b[0], budget ? budget - sum : 0);
        if (prefix > 0) {
            Group& g = order.groups.back();
            if (g.count == 0) g.first = first;
            assert(first == g.first + g.count);  // contiguous, in rank order
            g.count += count;
        }
        // Within one sum, fewer empty heaps first: (sum, empty) ascending.
        by_level[size_t(keyed_sum) * (j + 1) + empty].push_back({first, count});
    } while (top.next(b.data()));
    append_levels(by_level, prefix == 0, order);
    order.level_start.push_back(order.blocks.size());
    return order;
}

}  // namespace nimtb::engine
