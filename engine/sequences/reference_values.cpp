#include "engine/sequences/reference_values.h"

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
    for (uint32_t n = 0; n <= max_heap; ++n) g.push_back(grundy_value(rule, n, g, seen));
    return g;
}

}  // namespace nimtb::engine
