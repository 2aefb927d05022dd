#include "mpi/deal.h"

#include <algorithm>
#include <array>

namespace nimtb::mpi {

using engine::SolveOrder;
using engine::Universe;

size_t Layout::find(uint64_t rank) const {
    return static_cast<size_t>(std::upper_bound(first.begin(), first.end(), rank) - first.begin()) -
           1;
}

// Who solves what: each level's blocks, largest first (the plan's
// order), to the process with the least work in that level so far; or,
// for the line chain, to the owner of the block's largest heap
// (`by_largest`, per heap size: see largest_heap_owners).
Layout deal(const SolveOrder& plan, int rank, int processes, const Universe& u,
            const std::vector<int>& by_largest) {
    Layout l;
    const size_t n = plan.blocks.size();
    std::vector<int> owner(n);
    std::vector<uint64_t> offset(n);
    std::vector<uint64_t> filled(static_cast<size_t>(processes), 0);
    std::array<uint32_t, Universe::MAX_HEAPS> heaps{};
    l.local_plan.level_start.push_back(0);
    for (size_t level = 0; level < plan.levels(); ++level) {
        std::vector<uint64_t> load(static_cast<size_t>(processes), 0);
        for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
            auto least =
                static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            if (!by_largest.empty()) {
                u.unrank(plan.blocks[b].first, heaps.data());
                least = static_cast<size_t>(by_largest[heaps[u.max_heaps() - 1]]);
            }
            owner[b] = static_cast<int>(least);
            offset[b] = filled[least];
            load[least] += plan.blocks[b].count;
            filled[least] += plan.blocks[b].count;
            if (owner[b] == rank) {
                l.local_plan.blocks.push_back({offset[b], plan.blocks[b].count});
                l.local_global_first.push_back(plan.blocks[b].first);
            }
        }
        l.local_plan.level_start.push_back(l.local_plan.blocks.size());
    }
    l.local_positions = filled[static_cast<size_t>(rank)];
    std::vector<size_t> order(n);
    for (size_t b = 0; b < n; ++b) order[b] = b;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return plan.blocks[x].first < plan.blocks[y].first; });
    for (size_t b : order) {
        l.first.push_back(plan.blocks[b].first);
        l.count.push_back(plan.blocks[b].count);
        l.offset.push_back(offset[b]);
        l.owner.push_back(owner[b]);
    }
    return l;
}

// The line chain's owner of each largest heap size: sizes from the largest
// down, each to the process with the fewest positions so far (positions of
// largest heap m in a box of K heaps: C(m + K - 1, K - 1)).
std::vector<int> largest_heap_owners(const Universe& u, int processes) {
    std::vector<int> owner(u.max_heap_size() + 1);
    std::vector<uint64_t> load(static_cast<size_t>(processes), 0);
    for (uint32_t m = u.max_heap_size() + 1; m-- > 0;) {
        const auto least =
            static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        owner[m] = static_cast<int>(least);
        load[least] += engine::binomial(uint64_t{m} + u.max_heaps() - 1, u.max_heaps() - 1);
    }
    return owner;
}

}  // namespace nimtb::mpi
