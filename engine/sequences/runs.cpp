#include "engine/sequences/runs.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>

#include "engine/base/errors.h"

namespace nimtb::engine {

size_t SubtractionRuns::run_of(uint64_t h) const {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), h) - starts.begin()) -
           1;
}

uint32_t SubtractionRuns::value(uint64_t h) const {
    return values[run_of(h)];
}

std::optional<uint64_t> SubtractionRuns::last_worth(uint64_t lo, uint64_t hi,
                                                    uint32_t target) const {
    for (size_t i = run_of(hi) + 1; i-- > 0;) {
        if (values[i] == target)
            return std::min(hi, i + 1 < starts.size() ? starts[i + 1] - 1 : hi);
        if (starts[i] <= lo) break;
    }
    return std::nullopt;
}

namespace {

// The runs over [n - width, n), as (start - n, value) with the first start
// clipped to -width: what decides every value from n on.
std::vector<std::pair<int64_t, uint16_t>> window(const SubtractionRuns& r, uint64_t n,
                                                 uint64_t width) {
    auto first = std::upper_bound(r.starts.begin(), r.starts.end(), n - width);
    size_t i = static_cast<size_t>(first - r.starts.begin()) - 1;
    std::vector<std::pair<int64_t, uint16_t>> w;
    for (; i < r.starts.size() && r.starts[i] < n; ++i) {
        const int64_t start = std::max<int64_t>(int64_t(r.starts[i]) - int64_t(n), -int64_t(width));
        w.emplace_back(start, r.values[i]);
    }
    return w;
}

}  // namespace

std::optional<SubtractionRuns> subtraction_runs(const Rule& rule, uint64_t max_runs,
                                                const std::atomic<bool>* cancel) {
    if (rule.kind() != RuleKind::subtract)
        throw InputError("values as runs are for subtraction games, not " + rule.canonical());
    const std::vector<AmountRange>& ranges = rule.ranges();
    const uint64_t width = ranges.back().last;  // B = max(S)
    SubtractionRuns r;
    r.starts = {0};
    r.values = {0};  // no move from an empty heap
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> events;
    auto schedule = [&](uint64_t start) {
        for (const AmountRange& a : ranges) {
            events.push(start + a.first);
            events.push(start + a.last);
        }
    };
    schedule(0);
    std::map<std::vector<std::pair<int64_t, uint16_t>>, uint64_t> seen;  // window -> run start
    std::vector<char> reached;
    while (!events.empty()) {
        const uint64_t n = events.top();
        while (!events.empty() && events.top() == n) events.pop();
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        // The mex of the values of the runs under every interval [n - b, n - a].
        reached.assign(reached.size(), 0);
        for (const AmountRange& a : ranges) {
            if (a.first > n) break;
            const uint64_t lo = n >= a.last ? n - a.last : 0, hi = n - a.first;
            auto it = std::upper_bound(r.starts.begin(), r.starts.end(), lo);
            for (size_t i = static_cast<size_t>(it - r.starts.begin()) - 1;
                 i < r.starts.size() && r.starts[i] <= hi; ++i) {
                if (r.values[i] >= reached.size()) reached.resize(r.values[i] + 1, 0);
                reached[r.values[i]] = 1;
            }
        }
        uint32_t v = 0;
        while (v < reached.size() && reached[v]) ++v;
        if (v == r.values.back()) continue;
        if (v > UINT16_MAX) throw InputError("a value beyond the 16 bits nimtb stores");
        r.starts.push_back(n);
        r.values.push_back(static_cast<uint16_t>(v));
        schedule(n);
        if (n >= width) {
            auto [it, fresh] = seen.try_emplace(window(r, n, width), n);
            if (!fresh) {
                // The same window at n1 and at n: period n - n1 from n1 - B,
                // and lower while g(x) = g(x + p) below it.
                const uint64_t n1 = it->second, p = n - n1;
                uint64_t pre = n1 - width;
                while (pre > 0 && r.value(pre - 1) == r.value(pre - 1 + p)) {
                    // Down a stretch where both runs go on.
                    pre = std::max(r.run_start(pre - 1), r.run_start(pre - 1 + p) -
                                                             std::min(r.run_start(pre - 1 + p), p));
                }
                r.end = n + 1;
                r.preperiod = pre;
                r.period = p;
                return r;
            }
        }
        if (r.starts.size() >= max_runs) return std::nullopt;
    }
    return std::nullopt;  // unreachable: a subtraction game's runs go on
}

}  // namespace nimtb::engine
