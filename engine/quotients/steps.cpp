#include "engine/quotients/steps.h"

#include <set>

#include "engine/game/moves.h"

namespace nimtb::engine::quotient_steps {

std::vector<std::vector<Heaps>> heap_moves(const Rule& rule, uint32_t max_heap) {
    std::vector<std::vector<Heaps>> of(size_t{max_heap} + 1);
    for (uint32_t h = 1; h <= max_heap; ++h) {
        const uint32_t heap[] = {h};
        std::set<Heaps> options;
        for_each_child(rule, heap, [&](const Heaps& child) {
            Heaps o;
            for (uint32_t part : child) {
                if (part != 0) o.push_back(part);
            }
            std::sort(o.begin(), o.end(), std::greater<>());
            options.insert(std::move(o));
        });
        of[h].assign(options.begin(), options.end());
    }
    return of;
}

std::vector<uint32_t> images(const BipartiteMonoid& m, const std::vector<Heaps>& positions) {
    std::vector<uint32_t> out;
    for (const Heaps& o : positions) out.push_back(m.image(o));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void add_p_contexts(const BipartiteMonoid& m, uint32_t t, Bits& out) {
    for (uint32_t z = 0; z < m.order; ++z) {
        if (m.p[m.mul(t, z)]) set_bit(out, z);
    }
}

}  // namespace nimtb::engine::quotient_steps
