#pragma once
// Positions and the colex-multiset-v1 index (DESIGN.md).
//
// A universe holds every multiset of at most K heaps of at most H tokens. A
// position is kept as its heaps sorted ascending and padded with zeros to K
// entries: a[0] <= a[1] <= ... <= a[K-1]. Its rank is
//     sum over i = 0..K-1 of C(a[i] + i, i + 1),
// the combinatorial number system on c[i] = a[i] + i, a bijection onto
// [0, C(H+K, K)). Rank order is colex order, so every move (which lowers a
// heap) leads to a smaller rank.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/rules.h"

namespace nimtb::engine {

// Heap sizes. Inside a universe: sorted ascending and padded to K entries.
using Heaps = std::vector<uint32_t>;

// Parses `3 4 5`, `3,4,5` or a mix; an empty text is the empty position. The
// heaps come back in the order written. Refuses negative numbers and
// non-numbers with a message naming the offending heap.
Heaps parse_heaps(std::string_view text);

// Writes heaps as `3 4 5`, leaving out empty heaps; the empty position is `(empty)`.
std::string format_heaps(std::span<const uint32_t> heaps);

class Universe {
  public:
    static constexpr unsigned MAX_HEAPS = 64;
    static constexpr uint32_t MAX_HEAP_SIZE = 1'000'000;

    // Throws InputError when K or H is out of range or C(H+K, K) does not fit
    // in 64 bits.
    Universe(unsigned max_heaps, uint32_t max_heap_size);

    unsigned max_heaps() const { return k_; }
    uint32_t max_heap_size() const { return h_; }
    // C(H+K, K): the number of positions.
    uint64_t size() const { return size_; }

    // C(a + i, i + 1): what heap size `a` at sorted index `i` adds to a rank.
    uint64_t term(unsigned i, uint32_t a) const { return terms_[size_t(i) * (h_ + 1) + a]; }
    // Row i of the term table, indexed by heap size.
    const uint64_t* term_row(unsigned i) const { return terms_.data() + size_t(i) * (h_ + 1); }

    // Checks heaps against the universe (at most K non-empty, each at most H)
    // and returns them sorted and padded; the message names the offending heap.
    Heaps normalise(std::span<const uint32_t> heaps) const;

    // Rank of sorted, padded heaps (as returned by normalise).
    uint64_t rank(std::span<const uint32_t> sorted) const;
    // The position of a rank in [0, size()).
    Heaps unrank(uint64_t rank) const;
    void unrank(uint64_t rank, uint32_t* sorted) const;
    // Steps sorted heaps to the position of the next rank; false after the last.
    bool next(uint32_t* sorted) const;
    bool next(Heaps& sorted) const { return next(sorted.data()); }

    std::string describe() const;  // "at most K heaps of at most H tokens"

  private:
    unsigned k_;
    uint32_t h_;
    uint64_t size_;
    std::vector<uint64_t> terms_;
};

// C(n, k), or UINT64_MAX when it does not fit in 64 bits.
uint64_t binomial(uint64_t n, uint64_t k);

}  // namespace nimtb::engine
