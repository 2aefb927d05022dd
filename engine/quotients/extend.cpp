// Step 1 of quotient.h: the periodic extension of Q_{n-1} by heap n.
#include "engine/quotients/steps.h"

namespace nimtb::engine::quotient_steps {

// The candidate for heaps 1..n from `base`, right for heaps < n.
BipartiteMonoid extend(const BipartiteMonoid& base, uint32_t n,
                       const std::vector<std::vector<Heaps>>& moves, const Limits& limits) {
    const uint32_t q = base.order;
    const std::vector<uint32_t> t = images(base, moves[n]);
    // The option images of each element's smallest position: all smaller.
    std::vector<std::vector<uint32_t>> name_options(q);
    for (uint32_t x = 0; x < q; ++x) {
        const Heaps& name = base.name[x];
        std::vector<uint32_t> out;
        for (size_t i = 0; i < name.size(); ++i) {
            if (i > 0 && name[i] == name[i - 1]) continue;
            Heaps rest = name;
            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
            const uint32_t r = base.image(rest);
            for (const Heaps& o : moves[name[i]]) out.push_back(base.mul(r, base.image(o)));
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        name_options[x] = std::move(out);
    }
    // Column k: is Y + k copies of heap n a P-position, for Y of each element.
    std::vector<std::vector<uint8_t>> columns{base.p};
    std::unordered_map<std::vector<uint8_t>, uint32_t, VectorHash> seen{{base.p, 0}};
    uint32_t index = 0, period = 0;
    for (;;) {
        const std::vector<uint8_t>& prev = columns.back();
        std::vector<uint8_t> col(q, 0);
        for (uint32_t x = 0; x < q; ++x) {
            bool p = true;
            for (uint32_t o : t) {
                if (prev[base.mul(x, o)]) {
                    p = false;
                    break;
                }
            }
            for (size_t i = 0; p && i < name_options[x].size(); ++i) p = !col[name_options[x][i]];
            col[x] = p;
        }
        auto [it, fresh] = seen.try_emplace(col, static_cast<uint32_t>(columns.size()));
        if (!fresh) {
            index = it->second;
            period = static_cast<uint32_t>(columns.size()) - index;
            break;
        }
        columns.push_back(std::move(col));
        if (columns.size() > 4096) {
            throw ResourceError(
                fmt::format("quotient: heap {} has no period within 4096 copies", n));
        }
    }
    const uint32_t length = index + period;
    auto norm = [&](uint32_t c) { return c < length ? c : index + (c - index) % period; };
    HeapAutomaton a;
    a.states = q * length;
    for (uint32_t j = 1; j <= n; ++j) {
        if (!moves[j].empty()) a.letters.push_back(j);
    }
    limits.within_budget(uint64_t{a.states} * a.letters.size() * sizeof(uint32_t), n,
                         "a candidate");
    a.next.resize(size_t{a.states} * a.letters.size());
    a.accept.resize(a.states);
    for (uint32_t x = 0; x < q; ++x) {
        for (uint32_t c = 0; c < length; ++c) {
            const uint32_t s = x * length + c;
            a.accept[s] = columns[c][x];
            for (size_t l = 0; l < a.letters.size(); ++l) {
                const uint32_t j = a.letters[l];
                a.next[size_t{s} * a.letters.size() + l] =
                    j < n ? base.mul(x, base.phi[j]) * length + c : x * length + norm(c + 1);
            }
        }
    }
    std::vector<uint32_t> block;
    const uint32_t blocks = minimize(a, block);
    limits.within_order(blocks, n);
    return monoid_of(a, block, blocks, n);
}

}  // namespace nimtb::engine::quotient_steps
