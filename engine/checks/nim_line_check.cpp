#include "engine/checks/nim_line_check.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace nimtb::engine {

namespace {

constexpr uint16_t NONE = UINT16_MAX;  // no P-position on the line yet

// Nim's values stay below the power of two above H (a XOR of heaps <= H;
// misere values too): that many bits of value set a line.
unsigned words_for(const Universe& u) {
    const uint64_t values = uint64_t{1} << std::bit_width(u.max_heap_size());
    return static_cast<unsigned>(std::max<uint64_t>(1, values / 64));
}

uint64_t line_count(const Universe& u) {
    return u.max_heaps() > 1 ? binomial(u.max_heap_size() + u.max_heaps() - 1, u.max_heaps() - 1)
                             : 1;
}

}  // namespace

bool LineCheck::applies(const Rule& rule, const Universe& u) {
    return u.max_total() == 0 && u.max_heaps() >= 1 && u.max_heaps() < 64 && words_for(u) <= 8 &&
           rule.take_family() && rule.allows_all_up_to(u.max_heap_size());
}

uint64_t LineCheck::bytes(const Universe& u, bool remoteness) {
    return line_count(u) * (8 * words_for(u) + (remoteness ? 4 : 0));
}

LineCheck::LineCheck(const Universe& u, Convention convention, bool remoteness)
    : u_(u),
      lines_(std::max(1u, u.max_heaps() - 1), u.max_heap_size()),
      normal_(convention == Convention::normal),
      remoteness_(remoteness),
      words_(words_for(u)) {
    stride_ = 8 * words_ + (remoteness_ ? 4 : 0);
    lines_store_ = LargeBuffer(line_count(u) * stride_);
}

void LineCheck::next_run(const uint32_t* a, uint64_t count, const uint32_t* value,
                         const uint32_t* remoteness, uint32_t* want_value,
                         uint32_t* want_remoteness) {
    if (words_ == 1) {
        if (remoteness_)
            return next_run_as<1, true>(a, count, value, remoteness, want_value, want_remoteness);
        return next_run_as<1, false>(a, count, value, remoteness, want_value, want_remoteness);
    }
    if (remoteness_)
        return next_run_as<0, true>(a, count, value, remoteness, want_value, want_remoteness);
    next_run_as<0, false>(a, count, value, remoteness, want_value, want_remoteness);
}

template <unsigned WORDS, bool REMOTENESS>
void LineCheck::next_run_as(const uint32_t* a, uint64_t count, const uint32_t* value,
                            const uint32_t* remoteness, uint32_t* want_value,
                            uint32_t* want_remoteness) {
    const unsigned k = u_.max_heaps();
    const unsigned words = WORDS ? WORDS : words_;
    const uint64_t stride = WORDS ? 8 * WORDS + (REMOTENESS ? 4 : 0) : stride_;
    uint8_t* store = static_cast<uint8_t*>(lines_store_.data());
    // 1. The run's lines: one per distinct heap size, found by leaving that
    // heap out (removing a[r] keeps the terms of the heaps below it and
    // moves every heap above it down one index). Leaving out heap r >= 1
    // keeps the smallest heap's term, a[0] itself (row 0 of the terms), so
    // that line's index is c_r + a[0] and rises with it; leaving out the
    // smallest heap gives one line for the whole run, `own`. A line's
    // record: its value set, then its largest remoteness and NONE minus its
    // smallest P remoteness (unaligned: records are packed).
    uint64_t below[64], above[65];
    below[0] = 0;
    for (unsigned j = 0; j + 1 < k; ++j) below[j + 1] = below[j] + lines_.term(j, a[j]);
    above[k] = 0;
    for (unsigned j = k; j-- > 1;) above[j] = above[j + 1] + lines_.term(j - 1, a[j]);
    uint8_t* stretch[64];  // the record of each other line at the run's first position
    unsigned others = 0;
    for (unsigned r = 1; r < k; ++r) {
        if (r + 1 < k && a[r] == a[r + 1]) continue;  // the same line as the next heap's
        stretch[others++] = store + (below[r] + above[r + 1]) * stride;
    }
    const uint64_t own_line = k > 1 ? above[1] : 0;
    // Once a[0] reaches the next heap, the own line is that heap's (one heap: never).
    const uint32_t top = k > 1 ? a[1] : u_.max_heap_size() + 1;
    bool others_nonzero = false;
    for (unsigned r = 1; r < k; ++r) others_nonzero |= a[r] > 0;
    const auto load16 = [](const uint8_t* at) {
        uint16_t x;
        std::memcpy(&x, at, 2);
        return x;
    };
    const auto load64 = [](const uint8_t* at) {
        uint64_t x;
        std::memcpy(&x, at, 8);
        return x;
    };
    // The own line's record in registers while a[0] < top.
    uint64_t own_seen[8] = {};
    uint32_t own_max = 0, own_neg = 0;  // largest remoteness, NONE - smallest P remoteness
    uint8_t* own_rec = store + own_line * stride;
    for (unsigned w = 0; w < words; ++w) own_seen[w] = load64(own_rec + 8 * w);
    if (REMOTENESS) {
        own_max = load16(own_rec + 8 * words);
        own_neg = load16(own_rec + 8 * words + 2);
    }
    const auto store_own = [&] {
        for (unsigned w = 0; w < words; ++w) std::memcpy(own_rec + 8 * w, &own_seen[w], 8);
        if (REMOTENESS) {
            const uint16_t m = static_cast<uint16_t>(own_max), n = static_cast<uint16_t>(own_neg);
            std::memcpy(own_rec + 8 * words, &m, 2);
            std::memcpy(own_rec + 8 * words + 2, &n, 2);
        }
    };
    for (uint64_t t = 0; t < count; ++t) {
        const uint32_t a0 = static_cast<uint32_t>(a[0] + t);
        const bool with_own = a0 < top;
        if (!with_own) store_own();  // the last position reads it from the store, as another line
        const uint64_t at = t * stride;
        // 2. What the children say: the union of the prefixes of the lines.
        uint64_t seen[8] = {};
        uint32_t max_r = 0, neg_p = 0;
        if (with_own) {
            for (unsigned w = 0; w < words; ++w) seen[w] = own_seen[w];
            max_r = own_max;
            neg_p = own_neg;
        }
        for (unsigned i = 0; i < others; ++i) {
            const uint8_t* rec = stretch[i] + at;
            for (unsigned w = 0; w < words; ++w) seen[w] |= load64(rec + 8 * w);
            if (REMOTENESS) {
                max_r = std::max<uint32_t>(max_r, load16(rec + 8 * words));
                neg_p = std::max<uint32_t>(neg_p, load16(rec + 8 * words + 2));
            }
        }
        if (a0 == 0 && !others_nonzero) {
            want_value[t] = normal_ ? 0 : 1;
            if (REMOTENESS) want_remoteness[t] = 0;
        } else {
            unsigned w = 0;
            while (w < words && seen[w] == ~uint64_t{0}) ++w;
            const uint32_t v = w * 64 + (w < words ? std::countr_one(seen[w]) : 0);
            want_value[t] = v;
            if (REMOTENESS) {
                const uint32_t min_p_r = NONE - neg_p;
                want_remoteness[t] = v == 0 ? 1 + max_r : min_p_r == NONE ? 0 : 1 + min_p_r;
            }
        }
        // 3. The position joins its lines, with what the table says of it.
        const uint32_t v = value[t];
        const uint16_t r =
            REMOTENESS ? static_cast<uint16_t>(std::min<uint32_t>(remoteness[t], NONE - 1)) : 0;
        const bool fits = v < 64 * words;
        const uint64_t bit = uint64_t{1} << (v % 64);
        const uint16_t neg = v == 0 ? static_cast<uint16_t>(NONE - r) : 0;
        for (unsigned i = 0; i < others; ++i) {
            uint8_t* rec = stretch[i] + at;
            if (fits) {
                uint8_t* word = rec + 8 * (v / 64);
                const uint64_t x = load64(word) | bit;
                std::memcpy(word, &x, 8);
            }
            if (REMOTENESS) {
                const uint16_t m = std::max(load16(rec + 8 * words), r);
                const uint16_t n = std::max(load16(rec + 8 * words + 2), neg);
                std::memcpy(rec + 8 * words, &m, 2);
                std::memcpy(rec + 8 * words + 2, &n, 2);
            }
        }
        if (with_own) {
            if (fits) own_seen[v / 64] |= bit;
            if (REMOTENESS) {
                own_max = std::max<uint32_t>(own_max, r);
                own_neg = std::max<uint32_t>(own_neg, neg);
            }
        }
    }
    if (a[0] + count - 1 < top) store_own();
}

}  // namespace nimtb::engine
