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

void LineCheck::next(const uint32_t* a, uint32_t value, uint32_t remoteness, uint32_t& want_value,
                     uint32_t& want_remoteness) {
    // Compiled for the common shapes (values below 64: one word a line;
    // with and without remoteness), so that their loops and flags fold away.
    if (words_ == 1) {
        if (remoteness_) return next_as<1, true>(a, value, remoteness, want_value, want_remoteness);
        return next_as<1, false>(a, value, remoteness, want_value, want_remoteness);
    }
    if (remoteness_) return next_as<0, true>(a, value, remoteness, want_value, want_remoteness);
    next_as<0, false>(a, value, remoteness, want_value, want_remoteness);
}

template <unsigned WORDS, bool REMOTENESS>
void LineCheck::next_as(const uint32_t* a, uint32_t value, uint32_t remoteness,
                        uint32_t& want_value, uint32_t& want_remoteness) {
    const unsigned k = u_.max_heaps();
    const unsigned words = WORDS ? WORDS : words_;
    const uint64_t stride = WORDS ? 8 * WORDS + (REMOTENESS ? 4 : 0) : stride_;
    // 1. The lines of the position: one per distinct heap size, found by
    // leaving that heap out. Removing a[r] keeps the terms of the heaps
    // below it and moves every heap above it down one index.
    uint64_t below[64], above[65];
    below[0] = 0;
    for (unsigned j = 0; j + 1 < k; ++j) below[j + 1] = below[j] + lines_.term(j, a[j]);
    above[k] = 0;
    for (unsigned j = k; j-- > 1;) above[j] = above[j + 1] + lines_.term(j - 1, a[j]);
    uint64_t line[64];
    unsigned count = 0;
    for (unsigned r = 0; r < k; ++r) {
        if (r + 1 < k && a[r] == a[r + 1]) continue;  // the same line as the next heap's
        line[count++] = k > 1 ? below[r] + above[r + 1] : 0;
    }

    // 2. What the children say: the union of the prefixes of the lines.
    // A line's record: its value set, then its largest remoteness and NONE
    // minus its smallest P remoteness (unaligned: records are packed).
    uint8_t* store = static_cast<uint8_t*>(lines_store_.data());
    const auto load16 = [](const uint8_t* at) {
        uint16_t x;
        std::memcpy(&x, at, 2);
        return x;
    };
    uint64_t seen[8] = {};
    uint32_t max_r = 0, min_p_r = NONE;
    bool any_child = false;
    for (unsigned i = 0; i < count; ++i) {
        const uint8_t* rec = store + line[i] * stride;
        for (unsigned w = 0; w < words; ++w) {
            uint64_t v;
            std::memcpy(&v, rec + 8 * w, 8);
            seen[w] |= v;
        }
        if (REMOTENESS) {
            max_r = std::max<uint32_t>(max_r, load16(rec + 8 * words));
            min_p_r = std::min<uint32_t>(min_p_r, NONE - load16(rec + 8 * words + 2));
        }
    }
    for (unsigned r = 0; r < k; ++r) any_child |= a[r] > 0;
    if (!any_child) {
        want_value = normal_ ? 0 : 1;
        want_remoteness = 0;
    } else {
        unsigned w = 0;
        while (w < words && seen[w] == ~uint64_t{0}) ++w;
        want_value = w * 64 + (w < words ? std::countr_one(seen[w]) : 0);
        want_remoteness = want_value == 0 ? 1 + max_r : min_p_r == NONE ? 0 : 1 + min_p_r;
    }

    // 3. The position joins its lines, with what the table says of it.
    const uint16_t r = static_cast<uint16_t>(std::min<uint32_t>(remoteness, NONE - 1));
    for (unsigned i = 0; i < count; ++i) {
        uint8_t* rec = store + line[i] * stride;
        if (value < 64 * words) {
            uint8_t* word = rec + 8 * (value / 64);
            uint64_t v;
            std::memcpy(&v, word, 8);
            v |= uint64_t{1} << (value % 64);
            std::memcpy(word, &v, 8);
        }
        if (REMOTENESS) {
            const uint16_t m = std::max(load16(rec + 8 * words), r);
            std::memcpy(rec + 8 * words, &m, 2);
            if (value == 0) {
                const uint16_t n = std::max<uint16_t>(load16(rec + 8 * words + 2), NONE - r);
                std::memcpy(rec + 8 * words + 2, &n, 2);
            }
        }
    }
}

}  // namespace nimtb::engine
