#include "engine/total_children.h"

#include <algorithm>

#include "engine/moves.h"

namespace nimtb::engine {

bool TotalChildren::fits(const Rule& rule, const Universe& u) {
    return rule.one_heap() && !u.is_box() && u.max_heaps() >= u.max_total();
}

TotalChildren::TotalChildren(const Rule& rule, const Universe& u)
    : total_(u.max_total()), k_(u.max_heaps()) {
    assert(fits(rule, u));
    const uint32_t n = total_;
    auto t = std::make_shared<Tables>();
    // F(a, r) = sum over s <= r of the partitions of s into parts below a,
    // from count(m, s) = count(m - 1, s) + count(m, s - m) (parts at most m).
    const uint32_t width = 2 * n + 1;
    std::vector<uint64_t> count(width, 0);
    count[0] = 1;  // parts at most 0: only the empty multiset
    t->f.assign(size_t(n + 1) * width, 0);
    for (uint32_t a = 1; a <= n; ++a) {
        if (a >= 2) {
            for (uint32_t s = a - 1; s < width; ++s) count[s] += count[s - (a - 1)];
        }
        uint64_t sum = 0;
        for (uint32_t r = 0; r < width; ++r) {
            sum += count[r];
            t->f[size_t(a) * width + r] = sum;
        }
    }
    // What one heap of each size becomes, asked of the rule itself.
    t->single_start.push_back(0);
    t->pair_start.push_back(0);
    for (uint32_t v = 0; v <= n; ++v) {
        std::vector<uint32_t> singles;
        std::vector<std::pair<uint32_t, uint32_t>> pairs;
        const uint32_t heap[1] = {v};
        for_each_child(rule, std::span<const uint32_t>(heap, 1), [&](const Heaps& child) {
            if (child.size() == 1) {
                singles.push_back(child[0]);
            } else {
                assert(child.size() == 2 && child[0] > 0 && child[1] > 0);
                pairs.emplace_back(std::max(child[0], child[1]), std::min(child[0], child[1]));
            }
        });
        // Each once (a rule may reach one result by two removals), in the
        // order of their rows of D.
        std::sort(singles.rbegin(), singles.rend());
        singles.erase(std::unique(singles.begin(), singles.end()), singles.end());
        std::sort(pairs.rbegin(), pairs.rend());
        pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        t->singles.insert(t->singles.end(), singles.begin(), singles.end());
        t->pairs.insert(t->pairs.end(), pairs.begin(), pairs.end());
        t->single_start.push_back(static_cast<uint32_t>(t->singles.size()));
        t->pair_start.push_back(static_cast<uint32_t>(t->pairs.size()));
    }
    f_ = t->f.data();
    tables_ = std::move(t);
    parts_.assign(n + 2, 0);
    sums_.assign(n + 2, 0);
    pf_.assign(size_t(n + 1) * (n + 1), 0);
    d_.assign(size_t(n + 1) * (n + 1), 0);
}

unsigned TotalChildren::update(const uint32_t* heaps) {
    // 1. The parts, the first one that differs from the last position's
    //    (`changed`), and the largest part that came or went there (`m`):
    //    rows of Pf from `changed` on and rows of D up to `m` are rebuilt.
    unsigned n = 0, changed = 0;
    uint32_t m = 0;
    for (unsigned j = k_; j-- > 0 && heaps[j] != 0;) {
        ++n;
        if (changed == 0 && (n > valid_ || parts_[n] != heaps[j])) {
            changed = n;
            m = std::max(heaps[j], n <= valid_ ? parts_[n] : 0u);
        }
        parts_[n] = heaps[j];
    }
    if (changed == 0) {  // the same parts, or fewer
        changed = n + 1;
        m = n + 1 <= valid_ ? parts_[n + 1] : 0;
    }
    valid_ = n;
    if (n == 0) return 0;
    const uint32_t top = parts_[1];  // budgets reach N + top
    if (changed == 1) m = top;
    // 2. Pf(j, N + c) = Pf(j - 1, N + c) + F(p_j, N + c - S_{j-1}).
    const uint32_t total = total_;
    const uint32_t width = 2 * total + 1;
    for (unsigned j = changed; j <= n; ++j) {
        sums_[j] = sums_[j - 1] + parts_[j];
        const uint64_t* prev = pf(j - 1);
        uint64_t* cur = pf(j);
        const uint64_t* fr = f_ + size_t(parts_[j]) * width + (total - sums_[j - 1]);
        for (uint32_t c = 0; c <= top; ++c) cur[c] = prev[c] + fr[c];
    }
    // 3. D(w, c) for w <= m, with a = the number of parts >= w.
    unsigned a = n;
    for (uint32_t w = 1; w <= std::min(m, top); ++w) {
        while (parts_[a] < w) --a;  // parts_[1] = top >= w stops it
        const uint64_t* row = pf(a);
        const uint64_t* fr = f_ + size_t(w) * width + (total - sums_[a]);
        uint64_t* out = d(w);
        for (uint32_t c = w; c <= top; ++c) out[c] = row[c] - row[c - w] + fr[c];
    }
    return n;
}

}  // namespace nimtb::engine
