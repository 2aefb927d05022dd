#include "reference.h"

#include <algorithm>

namespace nimtb::test {

std::set<Heaps> reference_children(const engine::Rule& rule, const Heaps& heaps) {
    std::set<Heaps> out;
    for (size_t i = 0; i < heaps.size(); ++i) {
        for (uint32_t s = 1; s <= heaps[i]; ++s) {
            if (!rule.allows(s)) continue;
            Heaps child = heaps;
            child[i] -= s;
            std::sort(child.begin(), child.end());
            out.insert(child);
        }
    }
    return out;
}

ReferenceResult ReferenceSolver::solve(Heaps heaps) {
    std::sort(heaps.begin(), heaps.end());
    if (auto it = memo_.find(heaps); it != memo_.end()) return it->second;
    std::set<uint32_t> values;
    uint32_t max_all = 0, min_p = UINT32_MAX;
    const std::set<Heaps> children = reference_children(rule_, heaps);
    for (const Heaps& c : children) {
        const ReferenceResult r = solve(c);
        values.insert(r.value);
        max_all = std::max(max_all, r.remoteness);
        if (r.value == 0) min_p = std::min(min_p, r.remoteness);
    }
    ReferenceResult result{};
    if (children.empty()) {
        result = {convention_ == engine::Convention::misere ? 1u : 0u, 0};
    } else {
        uint32_t mex = 0;
        while (values.count(mex)) ++mex;
        result = {mex, 1 + (mex == 0 ? max_all : min_p)};
    }
    memo_[heaps] = result;
    return result;
}

}  // namespace nimtb::test
