#include "engine/sequence.h"

#include "engine/moves.h"

namespace nimtb::engine {

std::vector<uint32_t> grundy_sequence(const Rule& rule, uint32_t max_heap) {
    if (!rule.one_heap()) {
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps, so a position's value is not the "
                         "XOR of its heaps' values; solve whole positions instead");
    }
    std::vector<uint32_t> g;
    g.reserve(size_t{max_heap} + 1);
    std::vector<char> seen;
    for (uint32_t n = 0; n <= max_heap; ++n) {
        seen.assign(seen.size(), 0);
        const uint32_t heap[] = {n};
        for_each_child(rule, heap, [&](const Heaps& child) {
            uint32_t x = 0;
            for (uint32_t part : child) x ^= g[part];  // every part is smaller than n
            if (x >= seen.size()) seen.resize(size_t{x} + 1, 0);
            seen[x] = 1;
        });
        uint32_t mex = 0;
        while (mex < seen.size() && seen[mex]) ++mex;
        g.push_back(mex);
    }
    return g;
}

}  // namespace nimtb::engine
