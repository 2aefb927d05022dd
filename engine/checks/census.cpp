#include "engine/checks/census.h"

#include <algorithm>

namespace nimtb::engine {

std::optional<uint64_t> tuple_count(const Universe& u) {
    const unsigned k = u.max_heaps();
    if (u.is_box()) {
        // (H + 1)^K
        uint64_t n = 1;
        for (unsigned i = 0; i < k; ++i) {
            if (__builtin_mul_overflow(n, uint64_t{u.max_heap_size()} + 1, &n)) return std::nullopt;
        }
        return n;
    }
    // K-tuples of sizes with sum <= N: C(N + K, K).
    const uint64_t n = binomial(uint64_t{u.max_total()} + k, k);
    if (n == UINT64_MAX) return std::nullopt;
    return n;
}

namespace {

// Arrangements of sorted, padded heaps: K! / (product of multiplicities!),
// exact while it fits (the caller checked the universe's whole count).
uint64_t arrangements(const uint32_t* a, unsigned k) {
    uint64_t n = 1;
    unsigned placed = 0, run = 0;
    for (unsigned i = 0; i < k; ++i) {
        run = (i > 0 && a[i] == a[i - 1]) ? run + 1 : 1;
        ++placed;
        // n * placed / run stays an integer: it is C(placed, run) times the rest.
        n = n / run * placed + n % run * placed / run;
    }
    return n;
}

void count_into(CensusRow& row, bool p, std::optional<uint64_t> tuples) {
    ++row.positions;
    row.p_positions += p;
    if (tuples) {
        row.tuples = row.tuples.value_or(0) + *tuples;
        row.p_tuples = row.p_tuples.value_or(0) + (p ? *tuples : 0);
    }
}

void merge(CensusRow& into, const CensusRow& from) {
    into.positions += from.positions;
    into.p_positions += from.p_positions;
    if (from.tuples) {
        into.tuples = into.tuples.value_or(0) + *from.tuples;
        into.p_tuples = into.p_tuples.value_or(0) + *from.p_tuples;
    }
}

}  // namespace

CensusCounter::CensusCounter(const Universe& u)
    : u_(u), tuples_(tuple_count(u).has_value()), heaps_(u.max_heaps()) {
    const uint64_t max_total =
        u.is_box() ? uint64_t{u.max_heaps()} * u.max_heap_size() : uint64_t{u.max_total()};
    c_.by_total.resize(max_total + 1);
    c_.by_largest.resize(u.max_heap_size() + 1);
    c_.has_tuples = tuples_;
}

void CensusCounter::add(uint64_t first, std::span<const uint16_t> values,
                        std::span<const uint16_t> remoteness) {
    const unsigned k = u_.max_heaps();
    uint32_t* a = heaps_.data();
    u_.unrank(first, a);
    for (size_t i = 0; i < values.size(); ++i, u_.next(a)) {
        uint64_t total = 0;
        for (unsigned j = 0; j < k; ++j) total += a[j];
        const bool p = values[i] == 0;
        const std::optional<uint64_t> tuples =
            tuples_ ? std::optional<uint64_t>(arrangements(a, k)) : std::nullopt;
        count_into(c_.by_total[total], p, tuples);
        count_into(c_.by_largest[a[k - 1]], p, tuples);
        if (!remoteness.empty()) {
            const uint16_t r = remoteness[i];
            if (r >= c_.by_remoteness.size()) c_.by_remoteness.resize(size_t{r} + 1);
            count_into(c_.by_remoteness[r], p, tuples);
        }
    }
}

Census CensusCounter::census() const {
    Census c = c_;
    c.all = CensusRow{};
    for (const CensusRow& row : c.by_largest) merge(c.all, row);
    return c;
}

}  // namespace nimtb::engine
