#pragma once
// What the steps of quotient.h share, inside engine/quotients/: the limits
// that stop them, the options of each heap, bit sets of contexts, and the
// walk of positions in order that both the exact check (step 2) and the
// refinements (step 3) make. Not part of the engine's interface.

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/base/errors.h"
#include "engine/game/rules.h"
#include "engine/quotients/monoid.h"
#include "engine/quotients/quotient.h"

namespace nimtb::engine::quotient_steps {

using Bits = std::vector<uint64_t>;

inline bool bit(const Bits& b, uint32_t i) {
    return (b[i >> 6] >> (i & 63)) & 1;
}
inline void set_bit(Bits& b, uint32_t i) {
    b[i >> 6] |= uint64_t{1} << (i & 63);
}

inline size_t words(const BipartiteMonoid& m) {
    return (m.order + 63) / 64;
}

// Thrown when the deadline has come; misere_quotient returns what it has.
struct TimeUp {};

// What stops a computation: Ctrl-C (or its like), a deadline, and the
// limits on a candidate's order and on the memory of any one step (a
// candidate's automaton, the failure search, the pairs). Past a limit the
// heap stops with a ResourceError, and the command names the largest
// quotient computed.
struct Limits {
    const std::atomic<bool>* cancel = nullptr;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    uint32_t max_order = DEFAULT_QUOTIENT_ORDER;
    // Not a stop but a bound on the check (QuotientOptions::max_copies):
    // when capped_heap is set, the least failure is sought only among
    // positions with at most max_copies copies of it.
    uint32_t capped_heap = 0, max_copies = 0;

    // Room for the multiplication table (order^2 products of 4 bytes) twice
    // over, and never less than 2 GiB.
    uint64_t memory() const {
        return std::max(uint64_t{2} << 30, uint64_t{8} * max_order * max_order);
    }

    void check() const {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        if (deadline && std::chrono::steady_clock::now() >= *deadline) throw TimeUp();
    }
    void within_budget(uint64_t bytes, uint32_t heap, const char* what) const {
        if (bytes > memory()) {
            throw ResourceError(fmt::format("quotient: {} for heap {} needs more than {} GiB", what,
                                            heap, memory() >> 30));
        }
    }
    // A candidate of more elements than a quotient may have is refused
    // before its multiplication table is built.
    void within_order(uint32_t blocks, uint32_t heap) const {
        if (blocks > max_order) {
            throw ResourceError(fmt::format(
                "quotient: a candidate for heap {} has more than {} elements", heap, max_order));
        }
    }
};

// The options of every heap 1..max_heap, each a position (largest heap
// first, empty heaps dropped), without repeats.
std::vector<std::vector<Heaps>> heap_moves(const Rule& rule, uint32_t max_heap);

// The distinct elements of `positions`, sorted.
std::vector<uint32_t> images(const BipartiteMonoid& m, const std::vector<Heaps>& positions);

// Adds to `out` the contexts z with t z in P.
void add_p_contexts(const BipartiteMonoid& m, uint32_t t, Bits& out);

// True when a with one more heap x comes before b with one more heap y,
// both of one number of tokens and heaps (the order of monoid.h).
inline bool before(const Heaps& a, uint32_t x, const Heaps& b, uint32_t y) {
    size_t i = 0, j = 0;
    bool x_read = false, y_read = false;
    for (size_t k = 0; k <= a.size(); ++k) {
        uint32_t u, v;
        if (!x_read && (i == a.size() || x >= a[i])) {
            u = x, x_read = true;
        } else {
            u = a[i++];
        }
        if (!y_read && (j == b.size() || y >= b[j])) {
            v = y, y_read = true;
        } else {
            v = b[j++];
        }
        if (u != v) return u < v;
    }
    return false;
}

// Positions made from the empty one by adding heaps (letters), walked in
// the order of positions. A position with one more heap has more tokens,
// so positions wait in buckets by tokens, each sorted when its turn comes.
// A successor is a walked position (a node, numbered by the caller) with
// one letter more, and a value the caller computes when it is queued.
class PositionWalk {
  public:
    explicit PositionWalk(std::vector<uint32_t> letters) : letters_(std::move(letters)) {}

    // Queues `node` (a position of `tokens` tokens) with each letter;
    // value(letter index) is that successor's value.
    template <class Value>
    void expand(uint32_t node, uint64_t tokens, Value&& value) {
        for (uint32_t l = 0; l < letters_.size(); ++l) {
            const uint64_t t = tokens + letters_[l];
            if (buckets_.size() <= t) buckets_.resize(t + 1);
            buckets_[t].push_back({node, l, value(l)});
        }
    }

    // Calls visit(node, letter index, value, tokens) for each queued
    // successor in order while it returns true; wanted(value) false drops a
    // successor unvisited. position_of(node) is a node's position.
    template <class PositionOf, class Wanted, class Visit>
    void run(PositionOf&& position_of, Wanted&& wanted, Visit&& visit, const Limits& limits) {
        for (uint64_t t = 1; t < buckets_.size(); ++t) {
            limits.check();
            std::vector<Successor> bucket = std::move(buckets_[t]);
            std::erase_if(bucket, [&](const Successor& s) { return !wanted(s.value); });
            std::sort(bucket.begin(), bucket.end(), [&](const Successor& a, const Successor& b) {
                const Heaps& pa = position_of(a.node);
                const Heaps& pb = position_of(b.node);
                if (pa.size() != pb.size()) return pa.size() > pb.size();
                return before(pa, letters_[a.letter], pb, letters_[b.letter]);
            });
            for (const Successor& s : bucket) {
                if (!visit(s.node, s.letter, s.value, t)) return;
            }
        }
    }

    uint32_t letter(uint32_t index) const { return letters_[index]; }

  private:
    struct Successor {
        uint32_t node, letter;
        uint64_t value;
    };
    std::vector<uint32_t> letters_;
    std::vector<std::vector<Successor>> buckets_;
};

// The number of each element met, UINT32_MAX for the others: a table when
// elements are packed in at most DENSE_BITS bits, a hash map when wider (a
// refinement's product, most of whose packed values are never reached).
class Numbering {
  public:
    static constexpr unsigned DENSE_BITS = 26;

    explicit Numbering(unsigned bits) : dense_(bits <= DENSE_BITS) {
        if (dense_) table_.assign(uint64_t{1} << bits, UINT32_MAX);
    }
    uint32_t operator[](uint64_t x) const {
        if (dense_) return table_[x];
        const auto it = map_.find(x);
        return it == map_.end() ? UINT32_MAX : it->second;
    }
    void set(uint64_t x, uint32_t number) {
        if (dense_) {
            table_[x] = number;
        } else {
            map_.emplace(x, number);
        }
    }

  private:
    bool dense_;
    std::vector<uint32_t> table_;
    std::unordered_map<uint64_t, uint32_t> map_;
};

// Numbers each element reachable from the identity (0) by the letters
// (heap sizes) in the order of its smallest position, and calls
// visit(element, that position) in that order. step(element, i) multiplies
// by letter i. Adding a heap keeps the order of positions, so each element
// is first met at its smallest.
template <class Step, class Visit>
void in_position_order(const std::vector<uint32_t>& letters, Step&& step, Visit&& visit,
                       Numbering& number, uint32_t heap, const Limits& limits) {
    std::vector<Heaps> positions{Heaps{}};
    PositionWalk walk(letters);
    number.set(0, 0);
    visit(uint64_t{0}, Heaps{});
    walk.expand(0, 0, [&](uint32_t l) { return step(uint64_t{0}, size_t{l}); });
    walk.run([&](uint32_t node) -> const Heaps& { return positions[node]; },
             [&](uint64_t x) { return number[x] == UINT32_MAX; },
             [&](uint32_t node, uint32_t letter, uint64_t x, uint64_t tokens) {
                 if (number[x] != UINT32_MAX) return true;
                 const auto id = static_cast<uint32_t>(positions.size());
                 // Each element: its position, its number and a successor per letter.
                 limits.within_budget(uint64_t{id} * (letters.size() * 16 + 192), heap,
                                      "a candidate");
                 number.set(x, id);
                 positions.push_back(with_heap(positions[node], walk.letter(letter)));
                 visit(x, static_cast<const Heaps&>(positions.back()));
                 walk.expand(id, tokens, [&](uint32_t l) { return step(x, size_t{l}); });
                 return true;
             },
             limits);
}

// Step 1: the candidate for heaps 1..n from `base` (Q_{n-1}), by the
// periodic extension.
BipartiteMonoid extend(const BipartiteMonoid& base, uint32_t n,
                       const std::vector<std::vector<Heaps>>& moves, const Limits& limits);

// Step 2: the smallest position `m` predicts wrongly, nullopt when none.
std::optional<QuotientFailure> least_failure(const BipartiteMonoid& m,
                                             const std::vector<std::vector<Heaps>>& moves,
                                             const Limits& limits);

// A heap given a part of its own in a refinement: its copies counted up to
// `index`, then modulo `period` (the cyclic monoid C(index, period)).
struct FreePart {
    uint32_t heap, index, period;
    uint32_t size() const { return index + period; }
};

// Step 3: a monoid with free parts for some heaps, finer than `m` with
// keep_old (refine.cpp says how and why it converges).
BipartiteMonoid refine_with_free_parts(const BipartiteMonoid& m, const std::vector<FreePart>& parts,
                                       bool keep_old, const std::vector<std::vector<Heaps>>& moves,
                                       const Limits& limits);

// Step 3 by pairs: a finer monoid for heaps below the refuted candidate's
// last, to extend again.
BipartiteMonoid refine_by_pairs(const BipartiteMonoid& candidate,
                                const std::vector<std::vector<Heaps>>& moves, const Limits& limits);

// A candidate and its least failure, if any.
struct Candidate {
    BipartiteMonoid m;
    std::optional<QuotientFailure> failure;
};

// Step 3 by least failures: a refinement of `m` whose least failure comes
// after `failure`.
Candidate refine_past_failure(const BipartiteMonoid& m, const QuotientFailure& failure,
                              const std::vector<std::vector<Heaps>>& moves, const Limits& limits);

}  // namespace nimtb::engine::quotient_steps
