#include "memoized_solver.h"

#include <algorithm>
#include <chrono>

namespace nimtb::bench {

size_t MemoizedSolver::Hash::operator()(const engine::Heaps& h) const {
    size_t x = 1469598103934665603ull;
    for (uint32_t a : h) x = (x ^ a) * 1099511628211ull;
    return x;
}

uint32_t MemoizedSolver::value(engine::Heaps heaps) {
    std::sort(heaps.begin(), heaps.end());
    if (auto it = memo_.find(heaps); it != memo_.end()) return it->second;
    std::vector<bool> seen;
    bool any = false;
    for (size_t i = 0; i < heaps.size(); ++i) {
        if (heaps[i] == 0 || (i > 0 && heaps[i] == heaps[i - 1])) continue;
        for (uint32_t s = 1; s <= heaps[i]; ++s) {
            if (!rule_.allows(s)) continue;
            engine::Heaps child = heaps;
            child[i] -= s;
            const uint32_t v = value(std::move(child));
            if (v >= seen.size()) seen.resize(v + 1);
            seen[v] = true;
            any = true;
        }
    }
    uint32_t result = 0;
    if (!any) {
        result = convention_ == engine::Convention::misere ? 1 : 0;
    } else {
        while (result < seen.size() && seen[result]) ++result;
    }
    memo_.emplace(std::move(heaps), result);
    return result;
}

uint64_t MemoizedSolver::solve_all(const engine::Universe& u) {
    uint64_t p = 0;
    engine::Heaps heaps(u.max_heaps(), 0);
    do {
        p += value(heaps) == 0;
    } while (u.next(heaps));
    return p;
}

uint64_t MemoizedSolver::solve_for(const engine::Universe& u, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    engine::Heaps heaps(u.max_heaps(), 0);
    uint64_t done = 0;
    do {
        value(heaps);
        ++done;
        if (done % 1024 == 0 && std::chrono::steady_clock::now() > end) break;
    } while (u.next(heaps));
    return done;
}

}  // namespace nimtb::bench
