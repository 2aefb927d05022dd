#include "reference.h"

#include <algorithm>
#include <functional>

namespace nimtb::test {

namespace {

using engine::RuleKind;

// The position with heap i replaced by `parts` (0, 1 or 2 non-empty heaps),
// as sorted non-empty heaps.
Heaps replace(const Heaps& heaps, size_t i, std::vector<uint32_t> parts) {
    Heaps out;
    for (size_t j = 0; j < heaps.size(); ++j) {
        if (j != i && heaps[j]) out.push_back(heaps[j]);
    }
    for (uint32_t p : parts) {
        if (p) out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// What one heap of h may become under a one-heap family, from its definition.
std::vector<std::vector<uint32_t>> one_heap_results(const engine::Rule& rule, uint32_t h) {
    std::vector<std::vector<uint32_t>> out;
    auto take_any = [&] {
        for (uint32_t s = 1; s <= h; ++s) out.push_back({h - s});
    };
    auto splits = [&](uint32_t total, bool unequal) {  // two non-empty heaps
        for (uint32_t a = 1; a < total; ++a) {
            if (!unequal || a != total - a) out.push_back({a, total - a});
        }
    };
    auto thirds = [&](uint32_t total) {  // three non-empty heaps, in every order
        for (uint32_t a = 1; a < total; ++a) {
            for (uint32_t b = 1; a + b < total; ++b) out.push_back({a, b, total - a - b});
        }
    };
    switch (rule.kind()) {
        case RuleKind::nim:
        case RuleKind::subtract:
        case RuleKind::allbut:
            for (uint32_t s = 1; s <= h; ++s) {
                if (rule.allows(s)) out.push_back({h - s});
            }
            break;
        case RuleKind::grundy:
            splits(h, true);
            break;
        case RuleKind::lasker:
            take_any();
            splits(h, false);
            break;
        case RuleKind::octal:
        case RuleKind::hexadecimal: {
            // Digit k: bit 2^j allows taking k and leaving j non-empty heaps
            // (j = 0 .. 3), every way of writing the rest as j parts.
            const auto& d = rule.code_digits();
            if (d[0] & 4) splits(h, false);
            if (d[0] & 8) thirds(h);
            for (uint32_t k = 1; k < d.size(); ++k) {
                if (k > h) break;
                const uint32_t rest = h - k;
                if ((d[k] & 1) && rest == 0) out.push_back({});
                if ((d[k] & 2) && rest >= 1) out.push_back({rest});
                if ((d[k] & 4) && rest >= 2) splits(rest, false);
                if ((d[k] & 8) && rest >= 3) thirds(rest);
            }
            break;
        }
        case RuleKind::wythoff:
        case RuleKind::moore:
            take_any();
            break;
    }
    return out;
}

}  // namespace

std::set<Heaps> reference_children(const engine::Rule& rule, const Heaps& heaps) {
    std::set<Heaps> out;
    for (size_t i = 0; i < heaps.size(); ++i) {
        if (heaps[i] == 0) continue;
        for (const auto& parts : one_heap_results(rule, heaps[i]))
            out.insert(replace(heaps, i, parts));
    }
    if (rule.kind() == RuleKind::wythoff) {
        for (size_t i = 0; i < heaps.size(); ++i) {
            for (size_t j = i + 1; j < heaps.size(); ++j) {
                for (uint32_t s = 1; s <= std::min(heaps[i], heaps[j]); ++s) {
                    Heaps c = heaps;
                    c[i] -= s;
                    c[j] -= s;
                    out.insert(replace(c, c.size(), {}));
                }
            }
        }
    }
    if (rule.kind() == RuleKind::moore) {
        // Every way to lower some heaps: keep those that lower 1 to k of them.
        Heaps c = heaps;
        std::function<void(size_t, unsigned)> lower = [&](size_t i, unsigned touched) {
            if (i == heaps.size()) {
                if (touched >= 1 && touched <= rule.moore_k()) out.insert(replace(c, c.size(), {}));
                return;
            }
            for (uint32_t v = 0; v <= heaps[i]; ++v) {
                c[i] = v;
                lower(i + 1, touched + (v != heaps[i]));
            }
            c[i] = heaps[i];
        };
        lower(0, 0);
    }
    return out;
}

ReferenceResult ReferenceSolver::solve(Heaps heaps) {
    heaps.erase(std::remove(heaps.begin(), heaps.end(), 0u), heaps.end());
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
