#pragma once
// Positions, universes and their indexes (docs/FORMAT.md).
//
// A universe is the set of positions a table holds. A position is kept as
// its heaps sorted ascending and padded with zeros to K entries:
// a[0] <= a[1] <= ... <= a[K-1]. Two kinds:
//
// - box, index colex-multiset-v1: every multiset of at most K heaps of at
//   most H tokens. The rank is sum over i = 0..K-1 of C(a[i] + i, i + 1), the
//   combinatorial number system on c[i] = a[i] + i, a bijection onto
//   [0, C(H+K, K)).
// - total-bounded, index colex-total-v1: every multiset of at most N tokens
//   in all, of at most K heaps (K = N when not limited). The rank is the
//   number of members that precede the position in colex order (compare the
//   largest heaps first): sum over i of Q(i, a[i], N - (a[i+1] + ... + a[K-1])),
//   where Q(m, a, r) counts the members whose top heaps agree above index m
//   and whose heap m is below a (tables built once).
//
// In both, rank order is colex order, so every move of every family (which
// lowers heaps or splits one into smaller ones) leads to a smaller rank.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::engine {

// Heap sizes. Inside a universe: sorted ascending and padded to K entries.
using Heaps = std::vector<uint32_t>;

// Parses `3 4 5`, `3,4,5` or a mix; an empty text is the empty position. The
// heaps come back in the order written. Refuses negative numbers, numbers
// above 2^32 - 1 and non-numbers with a message naming the offending heap.
Heaps parse_heaps(std::string_view text);

// The same for heaps of up to `max` tokens (`max_text` names the bound in the
// message, as "2^63 - 1"): whole numbers separated by spaces, commas, tabs or
// line breaks, in the order written, empty heaps kept. A word quoted back in
// a message is cut to its first 20 characters.
std::vector<uint64_t> parse_heap_sizes(std::string_view text, uint64_t max,
                                       std::string_view max_text);

// Writes heaps as `3 4 5`, leaving out empty heaps; the empty position is `(empty)`.
std::string format_heaps(std::span<const uint32_t> heaps);

// What a universe is, without its index: a box of at most K heaps of at most
// H tokens, or at most N tokens in all on at most K heaps (K = N when not
// limited). A small value, valid by construction: box() and total() are the
// one place the limits are checked, and refuse what is no universe
// (InputError: no heap, no token) and what nimtb's tables cannot hold
// (ResourceError, with the figure). A solve request holds one; Universe
// builds its index from it.
class Bounds {
  public:
    static constexpr unsigned MAX_HEAPS = 64;             // of a box
    static constexpr uint32_t MAX_HEAP_SIZE = 1'000'000;  // of a box
    static constexpr uint32_t MAX_TOTAL = 128;

    static Bounds box(uint64_t max_heaps, uint64_t max_heap_size);
    // max_heaps 0: no limit but the total's.
    static Bounds total(uint64_t max_total, uint64_t max_heaps = 0);

    bool is_box() const { return total_ == 0; }
    unsigned max_heaps() const { return k_; }  // K; for a total, at most N
    // The largest heap a position can hold (H, or N under a total).
    uint32_t max_heap_size() const { return h_; }
    uint32_t max_total() const { return total_; }  // N; 0 for a box
    // "at most K heaps of at most H tokens", "at most N tokens in all, on at most K heaps"
    std::string describe() const;
    bool operator==(const Bounds&) const = default;

  private:
    Bounds(unsigned k, uint32_t h, uint32_t total) : k_(k), h_(h), total_(total) {}
    unsigned k_;
    uint32_t h_;
    uint32_t total_;
};

class Universe {
  public:
    static constexpr unsigned MAX_HEAPS = Bounds::MAX_HEAPS;
    static constexpr uint32_t MAX_HEAP_SIZE = Bounds::MAX_HEAP_SIZE;
    static constexpr uint32_t MAX_TOTAL = Bounds::MAX_TOTAL;

    // The universe of `bounds`, with its index's tables. Throws
    // ResourceError when it has 2^64 positions or more.
    explicit Universe(const Bounds& bounds);
    // A box: Universe(Bounds::box(max_heaps, max_heap_size)).
    Universe(unsigned max_heaps, uint32_t max_heap_size);
    // Total-bounded: Universe(Bounds::total(max_total, max_heaps)).
    static Universe total_bounded(uint32_t max_total, unsigned max_heaps = 0);

    Bounds bounds() const { return is_box() ? Bounds::box(k_, h_) : Bounds::total(total_, k_); }
    bool is_box() const { return total_ == 0; }
    const char* index_name() const { return is_box() ? "colex-multiset-v1" : "colex-total-v1"; }
    unsigned max_heaps() const { return k_; }
    // The largest heap a position can hold (H, or N in a total-bounded universe).
    uint32_t max_heap_size() const { return h_; }
    // N in a total-bounded universe; 0 for a box.
    uint32_t max_total() const { return total_; }
    // The number of positions.
    uint64_t size() const { return size_; }

    // Box only. C(a + i, i + 1): what heap size `a` at sorted index `i` adds to a rank.
    uint64_t term(unsigned i, uint32_t a) const { return terms_[size_t(i) * (h_ + 1) + a]; }
    // Box only. Row i of the term table, indexed by heap size.
    const uint64_t* term_row(unsigned i) const { return terms_.data() + size_t(i) * (h_ + 1); }

    // The rank of a position given as its non-empty heaps in ascending order
    // (`count` of them, at most K), without padding.
    uint64_t rank_compact(const uint32_t* ascending, unsigned count) const;
    // The number of ways to fill the m lowest heaps of a position with sizes
    // <= `largest` and at most `budget` tokens in all (a box ignores the
    // budget): the size of a block of positions that share their top heaps.
    uint64_t completions(unsigned m, uint32_t largest, uint32_t budget) const;

    // Checks heaps against the universe (at most K non-empty, each at most H)
    // and returns them sorted and padded; the message names the offending heap.
    Heaps normalise(std::span<const uint32_t> heaps) const;
    // True when normalise() accepts the heaps: a position of the universe.
    bool holds(std::span<const uint32_t> heaps) const;

    // Rank of sorted, padded heaps (as returned by normalise).
    uint64_t rank(std::span<const uint32_t> sorted) const;
    // The position of a rank in [0, size()).
    Heaps unrank(uint64_t rank) const;
    void unrank(uint64_t rank, uint32_t* sorted) const;
    // Steps sorted heaps to the position of the next rank; false after the last.
    bool next(uint32_t* sorted) const;
    bool next(Heaps& sorted) const { return next(sorted.data()); }

    // "at most K heaps of at most H tokens", "at most N tokens in all (at most K heaps)"
    std::string describe() const;

  private:
    void index_box();
    void index_total();
    // Total-bounded: Q(m, a, r), m < K, a <= N + 1, r <= N.
    uint64_t q(unsigned m, uint32_t a, uint32_t r) const {
        return q_[(size_t(m) * (h_ + 2) + a) * (total_ + 1) + r];
    }

    unsigned k_ = 0;
    uint32_t h_ = 0;
    uint32_t total_ = 0;
    uint64_t size_ = 0;
    std::vector<uint64_t> terms_;
    std::vector<uint64_t> q_;     // total-bounded: Q(m, a, r)
    std::vector<uint64_t> fill_;  // total-bounded: P(m, v, s), the block sizes
};

// C(n, k), or UINT64_MAX when it does not fit in 64 bits.
uint64_t binomial(uint64_t n, uint64_t k);

}  // namespace nimtb::engine
