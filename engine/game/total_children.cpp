#include "engine/game/total_children.h"

#include <algorithm>

#include "engine/game/moves.h"

namespace nimtb::engine {

bool TotalChildren::fits(const Rule& rule, const Universe& u) {
    return rule.one_heap() && rule.max_parts() <= 2 && !u.is_box() &&
           (u.max_heaps() >= u.max_total() || !rule.adds_heaps());
}

TotalChildren::TotalChildren(const Rule& rule, const Universe& u)
    : total_(u.max_total()), k_(u.max_heaps()), limited_(u.max_heaps() < u.max_total()) {
    assert(fits(rule, u));
    const uint32_t n = total_;
    auto t = std::make_shared<Tables>();
    // Q(m, a, r) = sum over s <= r of the partitions of s into at most m + 1
    // parts below a (any number of parts without a heap limit), from
    //   count(c, b, s) = count(c, b - 1, s) + count(c - 1, b, s - b)
    // (at most c parts of at most b), one number of parts c at a time.
    const uint32_t width = 2 * n + 1;
    const size_t block = size_t(n + 1) * width;  // one m: a in [0, N], r in [0, 2N]
    const unsigned rows = limited_ ? k_ + 1 : 1;
    t->q.assign(rows * block, 0);
    const unsigned parts = limited_ ? k_ : 2 * n;  // 2N parts: as many as any total up to 2N has
    std::vector<uint64_t> fewer(block, 0), count(block, 0);          // count(c - 1, .), count(c, .)
    for (uint32_t b = 0; b <= n; ++b) fewer[size_t(b) * width] = 1;  // no parts: the empty one
    for (unsigned c = 1; c <= parts; ++c) {
        for (uint32_t b = 0; b <= n; ++b) {
            uint64_t* row = count.data() + size_t(b) * width;
            const uint64_t* below = b ? row - width : nullptr;
            const uint64_t* less = fewer.data() + size_t(b) * width;
            for (uint32_t s = 0; s < width; ++s)
                row[s] = (b ? below[s] : s == 0) + (b && s >= b ? less[s - b] : 0);
        }
        std::swap(fewer, count);  // fewer = count(c, .)
        if (limited_ || c == parts) {
            // Q(c - 1, a, r): parts below a are parts of at most a - 1.
            uint64_t* out = t->q.data() + (limited_ ? c - 1 : 0) * block;
            for (uint32_t a = 1; a <= n; ++a) {
                uint64_t sum = 0;
                for (uint32_t r = 0; r < width; ++r) {
                    sum += fewer[size_t(a - 1) * width + r];
                    out[size_t(a) * width + r] = sum;
                }
            }
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
    q_ = t->q.data();
    tables_ = std::move(t);
    pf_.assign(size_t(n + 1) * (n + 1), 0);
    if (limited_) pf_up_.assign(size_t(n + 1) * (n + 1), 0);
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
    // 2. Pf(j, N + c) = Pf(j - 1, N + c) + Q(K - j, p_j, N + c - S_{j-1}),
    //    and Pf+ with K - j + 1.
    const uint32_t total = total_;
    for (unsigned j = changed; j <= n; ++j) {
        sums_[j] = sums_[j - 1] + parts_[j];
        const uint32_t budget = total - sums_[j - 1];
        const uint64_t* prev = pf(j - 1);
        uint64_t* cur = pf(j);
        const uint64_t* qr = q(k_ - j, parts_[j]) + budget;
        for (uint32_t c = 0; c <= top; ++c) cur[c] = prev[c] + qr[c];
        if (limited_) {
            const uint64_t* prev_up = pf_up(j - 1);
            uint64_t* cur_up = pf_up(j);
            const uint64_t* qu = q(k_ - j + 1, parts_[j]) + budget;
            for (uint32_t c = 0; c <= top; ++c) cur_up[c] = prev_up[c] + qu[c];
        }
    }
    // 3. D(w, c) for w <= m, with a = the number of parts >= w.
    unsigned a = n;
    for (uint32_t w = 1; w <= std::min(m, top); ++w) {
        while (parts_[a] < w) --a;  // parts_[1] = top >= w stops it
        const uint64_t* row = pf(a);
        const uint64_t* up = pf_up(a);
        const uint64_t* qr = q(k_ - a, w) + (total - sums_[a]);
        uint64_t* out = d(w);
        for (uint32_t c = w; c <= top; ++c) out[c] = up[c] - row[c - w] + qr[c];
    }
    return n;
}

}  // namespace nimtb::engine
