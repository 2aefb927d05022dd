#pragma once
// The values of a rule that splits heaps (octal codes with a 4 bit, grundy,
// lasker), heap after heap, by the two methods of long_sequence()
// (sequence.h): plain, every pair of every split, O(n) a heap; and sparse,
// the pairs with a rare heap, then a scan of small pairs for the rare values
// below the candidate, on one thread or two. Header-only, for sequence.cpp
// alone (as the solver's kernels are for solver.cpp): the choices of the
// inner loops stay visible to the compiler.

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/base/errors.h"
#include "engine/sequences/pair_scan.h"
#include "engine/sequences/sequence.h"

namespace nimtb::engine::split_values {

constexpr uint32_t VALUES = 1u << 16;  // values are stored in 16 bits

inline bool rare_under(uint32_t mask, uint32_t v) {
    return std::popcount(v & mask) % 2 == 0;
}

// How many heaps >= 1 have each value, and the mask under which the fewest
// of them are rare: with N heaps and H the Walsh-Hadamard transform of the
// counts, H[M] = sum over v of count[v] (-1)^popcount(v & M), the heaps rare
// under M number (N + H[M]) / 2. O(V log V) for values below V.
class ValueCounts {
  public:
    ValueCounts() : count_(VALUES, 0) {}
    void add(uint32_t v) {
        ++count_[v];
        ++heaps_;
        top_ = std::max(top_, v);
    }
    // The best mask and how many heaps are rare under it.
    std::pair<uint32_t, uint64_t> best_mask() const {
        const size_t size = size_t{1} << std::max(1u, std::bit_width(top_));
        std::vector<int64_t> h(count_.begin(), count_.begin() + static_cast<ptrdiff_t>(size));
        for (size_t half = 1; half < size; half *= 2) {
            for (size_t i = 0; i < size; i += 2 * half) {
                for (size_t j = i; j < i + half; ++j) {
                    const int64_t x = h[j], y = h[j + half];
                    h[j] = x + y;
                    h[j + half] = x - y;
                }
            }
        }
        uint32_t best = 1;
        for (uint32_t m = 2; m < size; ++m)
            if (h[m] < h[best]) best = m;
        return {best, static_cast<uint64_t>((static_cast<int64_t>(heaps_) + h[best]) / 2)};
    }

  private:
    std::vector<uint64_t> count_;
    uint64_t heaps_ = 0;
    uint32_t top_ = 0;
};

// The values of one heap's options, marked in a stamp array: seen(v) is true
// when stamp[v] holds the current heap's mark.
class Options {
  public:
    Options() : stamp_(VALUES, 0) {}
    void next() { ++mark_; }
    void add(uint32_t v) { stamp_[v] = mark_; }
    bool seen(uint32_t v) const { return stamp_[v] == mark_; }
    uint32_t mex() const {
        uint32_t v = 0;
        while (seen(v)) ++v;
        return v;
    }
    // For a loop that marks many values: the mark, and the array to store it
    // in (held in locals, the compiler need not reload them after each store).
    uint32_t mark() const { return mark_; }
    uint32_t* stamps() { return stamp_.data(); }

  private:
    std::vector<uint32_t> stamp_;
    uint32_t mark_ = 0;
};

// What a heap of n leaves, with the split options as the sizes m = n - k of
// the parts together.
class Heap {
  public:
    explicit Heap(const SplitMoves& moves) : moves_(moves) {}
    // The options of a heap of n that leave at most one heap, into `o`
    // (but one that leaves heap `skip`), and the sizes to split into `sums`.
    void singles(uint64_t n, const uint16_t* g, uint64_t skip, Options& o,
                 std::vector<uint64_t>& sums) const {
        sums.clear();
        for (const SplitMoves::Digit& d : moves_.digits) {
            if ((d.bits & 1) && n == d.k) o.add(0);
            if ((d.bits & 2) && n > d.k && n - d.k != skip) o.add(g[n - d.k]);
            if ((d.bits & 4) && n >= d.k + 2) sums.push_back(n - d.k);
        }
    }
    // visit(value) for every option of heap n that leaves heap q (< n).
    template <class Visit>
    void options_through(uint64_t n, uint64_t q, const uint16_t* g, Visit&& visit) const {
        for (const SplitMoves::Digit& d : moves_.digits) {
            if ((d.bits & 2) && n > d.k && n - d.k == q) visit(g[q]);
            if ((d.bits & 4) && n >= d.k + 2) {
                const uint64_t m = n - d.k;
                if (q < m && pair(m, m - q)) visit(uint32_t(g[m - q] ^ g[q]));
            }
        }
    }
    // The largest part a of a split of m into a + (m - a), a <= m - a.
    uint64_t last_part(uint64_t m) const { return moves_.unequal ? (m - 1) / 2 : m / 2; }
    bool unequal() const { return moves_.unequal; }
    // Whether a split of m into a + (m - a) is a move (a >= 1).
    bool pair(uint64_t m, uint64_t a) const {
        return a >= 1 && a < m && !(moves_.unequal && 2 * a == m);
    }

  private:
    const SplitMoves& moves_;
};

inline void store(std::vector<uint16_t>& g, uint64_t n, uint32_t v) {
    if (v >= VALUES) {
        throw InputError(fmt::format(
            "the value of heap {} is {}, beyond the 16 bits nimtb stores a sequence in", n, v));
    }
    g[n] = static_cast<uint16_t>(v);
}

// The plain method: every pair of every split, O(n) a heap.
inline void plain_value(const Heap& heap, std::vector<uint16_t>& g, uint64_t n, Options& o,
                        std::vector<uint64_t>& sums) {
    o.next();
    heap.singles(n, g.data(), std::numeric_limits<uint64_t>::max(), o, sums);
    for (const uint64_t m : sums) {
        for (uint64_t a = 1; 2 * a <= m; ++a) {
            if (heap.pair(m, a)) o.add(g[a] ^ g[m - a]);
        }
    }
    store(g, n, o.mex());
}

// The sparse method (long_sequence in sequence.h): pairs with a rare heap, then a scan
// of small pairs for the rare values below the candidate.
class Sparse {
  public:
    // What a thread works in: its option marks and step 3's table.
    struct Scratch {
        Options o;
        std::vector<uint8_t> wanted = std::vector<uint8_t>(VALUES, 0);
        // The same values below SCAN_VALUES as bits, for the vector scan.
        std::array<uint8_t, SCAN_VALUES / 8> wanted_bits{};
        std::vector<uint64_t> sums;
    };
    // A heap's options but those that involve heap `skip`, as far as they go.
    struct Partial {
        uint32_t candidate = 0;
        bool exact = false;  // every pair was tried: the marks hold every option but skip's
    };

    Sparse(const Heap& heap, uint32_t mask, const std::vector<uint16_t>& g, uint64_t known)
        : heap_(&heap), mask_(mask) {
        for (uint64_t n = 1; n < known; ++n) {
            if (rare_under(mask_, g[n])) {
                rare_.push_back(n);
                rare_value_.push_back(g[n]);
            }
        }
        rare_count_ = rare_.size();
        for (uint32_t v = 0; v < VALUES; ++v)
            if (rare_under(mask_, v)) rare_values_.push_back(v);
    }
    Sparse(Sparse&& other) noexcept
        : heap_(other.heap_),
          mask_(other.mask_),
          rare_(std::move(other.rare_)),
          rare_value_(std::move(other.rare_value_)),
          rare_count_(other.rare_count_.load()),
          rare_values_(std::move(other.rare_values_)) {}
    Sparse& operator=(Sparse&& other) noexcept {
        heap_ = other.heap_;
        mask_ = other.mask_;
        rare_ = std::move(other.rare_);
        rare_value_ = std::move(other.rare_value_);
        rare_count_ = other.rare_count_.load();
        rare_values_ = std::move(other.rare_values_);
        return *this;
    }
    uint32_t mask() const { return mask_; }
    uint64_t rare_heaps() const { return rare_count_; }
    // Room for `more` rare heaps, so that appending never moves the list
    // while another thread reads it.
    void reserve(uint64_t more) {
        rare_.reserve(rare_.size() + more);
        rare_value_.reserve(rare_value_.size() + more);
    }

    // g(n) from g(0..n-1), on one thread.
    void value(std::vector<uint16_t>& g, uint64_t n, Scratch& s) {
        const Partial p = partial(g.data(), n, NONE, s);
        publish(g, n, p.exact ? s.o.mex() : p.candidate);
    }

    // Step 1 to 3 for heap n with every heap below it known but `skip`
    // (n - 1 when another thread is computing it; NONE).
    Partial partial(const uint16_t* values, uint64_t n, uint64_t skip, Scratch& s) const {
        Options& o = s.o;
        o.next();
        heap_->singles(n, values, skip, o, s.sums);
        const std::vector<uint64_t>& sums = s.sums;
        // 1. Every pair with a rare part: all the common values the options
        // hold. The rare heaps below m, but the one that pairs with heap
        // `skip` and (unequal splits) m / 2, as at most three runs of the
        // list, each marked without a branch: the rare part's value from its
        // own list, the other part's from the values.
        const uint64_t* rare = rare_.data();
        const uint16_t* rare_value = rare_value_.data();
        const size_t rare_count = rare_count_.load(std::memory_order_acquire);
        const uint32_t mark = o.mark();
        uint32_t* stamp = o.stamps();
        auto mark_run = [&](uint64_t m, size_t from, size_t to) {
            const uint16_t* other = values + m;  // other[-a] = g(m - a)
            for (size_t i = from; i < to; ++i)
                stamp[rare_value[i] ^ other[-int64_t(rare[i])]] = mark;
        };
        for (const uint64_t m : sums) {
            const size_t end = std::lower_bound(rare, rare + rare_count, m) - rare;
            size_t cut[2] = {end, end};  // indices left out, ascending
            if (skip < m) cut[0] = std::lower_bound(rare, rare + end, m - skip) - rare;
            if (cut[0] < end && rare[cut[0]] != m - skip) cut[0] = end;
            if (heap_->unequal() && m % 2 == 0) {
                const size_t h = std::lower_bound(rare, rare + end, m / 2) - rare;
                if (h < end && rare[h] == m / 2) cut[1] = h;
            }
            if (cut[1] < cut[0]) std::swap(cut[0], cut[1]);
            size_t from = 0;
            for (const size_t c : cut) {
                if (c >= end) break;
                mark_run(m, from, c);
                from = c + 1;
            }
            mark_run(m, std::min(from, end), end);
        }
        // 2. The candidate: the smallest common value not among them.
        uint32_t candidate = 0;
        while (rare_under(mask_, candidate) || o.seen(candidate)) ++candidate;
        // 3. The rare values below it that no option reached yet, one byte
        // each: pairs of two common parts may reach them; small ones are
        // tried first, until none is missing or every pair has been tried.
        uint8_t* wanted = s.wanted.data();
        uint8_t* bits = s.wanted_bits.data();
        const bool vector = candidate <= SCAN_VALUES && vector_scan_available();
        auto want = [&](uint32_t v, bool on) {
            wanted[v] = on;
            if (vector) {
                const uint8_t b = uint8_t(1u << (v % 8));
                bits[v / 8] = on ? bits[v / 8] | b : bits[v / 8] & ~b;
            }
        };
        uint32_t missing = 0;
        for (const uint32_t v : rare_values_) {
            if (v >= candidate) break;
            if (!o.seen(v)) {
                want(v, true);
                ++missing;
            }
        }
        auto reach = [&](uint32_t v) {
            if (wanted[v]) {
                want(v, false);
                o.add(v);
                --missing;
            }
        };
        // The pairs (a, m - a), a <= m / 2, of every split size m, sixteen
        // values of a at a time: two reads, a XOR and a table read a pair,
        // no branch (a block with a hit is then read pair by pair). A pair
        // with heap `skip` is a = m - skip, at most one a split size.
        auto pair = [&](uint64_t m, uint64_t x) {
            if (m - x != skip) reach(values[x] ^ values[m - x]);
        };
        if (missing && sums.size() == 1) {  // one split size: the loop alone
            const uint64_t m = sums[0], last = heap_->last_part(m);
            // The pair with heap `skip`, if any, is a = m - skip <= 1 (m <=
            // n, skip = n - 1), and its value is not to be read: the vector
            // scan starts past it, the scalar blocks past the first sixteen.
            uint64_t a = 1;
            if (vector) {  // 32 pairs a block (pair_scan.h), but a = 1, skip's pair if any
                if (missing && a <= last) pair(m, a++);
                while (missing && a + 31 <= last) {
                    const WantedBlock b = first_wanted_block(values, m, a, last, bits);
                    a = b.x;
                    if (!b.hits) break;
                    for (uint32_t h = b.hits; h && missing; h &= h - 1)
                        pair(m, a + static_cast<unsigned>(std::countr_zero(h)));
                    a += 32;
                }
            }
            for (; missing && a <= std::min<uint64_t>(16, last); ++a) pair(m, a);
            for (; missing && a + 15 <= last; a += 16) {
                uint8_t hit = 0;
                for (uint64_t j = 0; j < 16; ++j) hit |= wanted[values[a + j] ^ values[m - a - j]];
                if (hit)
                    for (uint64_t x = a; x < a + 16; ++x) pair(m, x);
            }
            for (; missing && a <= last; ++a) pair(m, a);
        } else if (missing) {  // several split sizes, in turn for each block
            uint64_t longest = 0;
            for (const uint64_t m : sums) longest = std::max(longest, heap_->last_part(m));
            for (uint64_t a = 1; missing && a <= longest; a += 16) {
                for (const uint64_t m : sums) {
                    const uint64_t last = heap_->last_part(m);
                    if (a > 1 && a + 15 <= last) {  // the first block: see above
                        uint8_t hit = 0;
                        for (uint64_t j = 0; j < 16; ++j)
                            hit |= wanted[values[a + j] ^ values[m - a - j]];
                        if (!hit) continue;
                    }
                    for (uint64_t x = a; x <= std::min(a + 15, last); ++x) pair(m, x);
                }
            }
        }
        if (missing) {
            for (const uint32_t v : rare_values_) {
                if (v >= candidate) break;
                want(v, false);
            }
        }
        return {candidate, missing > 0};
    }

    // g(n) from a partial that skipped heap n - 1, now that g(n - 1) is
    // known: its options through heap n - 1 added. nullopt when they reach
    // the candidate, so that heap n is to be computed again.
    std::optional<uint32_t> complete(const uint16_t* values, uint64_t n, const Partial& p,
                                     Scratch& s) const {
        bool candidate_reached = false;
        heap_->options_through(n, n - 1, values, [&](uint32_t v) {
            s.o.add(v);
            candidate_reached |= v == p.candidate;
        });
        if (p.exact) return s.o.mex();  // every option is marked
        // Every value below the candidate is reached; the candidate is
        // unless through heap n - 1, and what lies beyond is not known then.
        if (candidate_reached) return std::nullopt;
        return p.candidate;
    }

    // Stores g(n) and, when rare, appends heap n for the threads that read on.
    void publish(std::vector<uint16_t>& g, uint64_t n, uint32_t value) {
        store(g, n, value);
        if (rare_under(mask_, value)) {
            // Within the room reserved: the lists do not move.
            rare_.push_back(n);
            rare_value_.push_back(static_cast<uint16_t>(value));
            rare_count_.store(rare_.size(), std::memory_order_release);
        }
    }

    static constexpr uint64_t NONE = std::numeric_limits<uint64_t>::max();

  private:
    const Heap* heap_;
    uint32_t mask_;
    std::vector<uint64_t> rare_;        // heaps >= 1 whose value is rare, ascending
    std::vector<uint16_t> rare_value_;  // their values, in the same order
    std::atomic<size_t> rare_count_{0};
    std::vector<uint32_t> rare_values_;  // the values rare under the mask, ascending
};

// Heaps [first, stop) by the sparse method on two threads, heap n on thread
// n % 2. A heap depends on heap n - 1 only through a move that takes one
// token and leaves one heap, or a split of n into 1 + (n - 1): each thread
// computes its heap without those (partial) while the other thread finishes
// heap n - 1, then adds them (complete), or computes the heap again when
// they reach its candidate. `after(n)`, called on the thread that stored
// g(n), in order of n, returns true to stop (heaps after it are dropped).
// Returns the heap after the last stored.
template <class After>
inline uint64_t sparse_two_threads(Sparse& sparse, std::vector<uint16_t>& g, uint64_t first,
                                   uint64_t stop, After after) {
    sparse.reserve(stop - first);
    std::atomic<uint64_t> stored{first};  // heaps below it are stored (release)
    std::atomic<bool> halt{false};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto run = [&](unsigned parity) {
        Sparse::Scratch s;
        try {
            for (uint64_t n = first + parity; n < stop; n += 2) {
                // Heaps below n - 1 are stored: this thread stored n - 2.
                for (unsigned spins = 0; stored.load(std::memory_order_acquire) < n - 1; ++spins) {
                    if (halt.load(std::memory_order_relaxed)) return;
                    if (spins > 256) std::this_thread::yield();  // the other thread was preempted
                }
                const Sparse::Partial p = sparse.partial(g.data(), n, n - 1, s);
                for (unsigned spins = 0; stored.load(std::memory_order_acquire) < n; ++spins) {
                    if (halt.load(std::memory_order_relaxed)) return;
                    if (spins > 256) std::this_thread::yield();
                }
                if (halt.load(std::memory_order_relaxed)) return;  // heap n - 1 was the last
                std::optional<uint32_t> v = sparse.complete(g.data(), n, p, s);
                if (!v) {
                    const Sparse::Partial again = sparse.partial(g.data(), n, Sparse::NONE, s);
                    v = again.exact ? s.o.mex() : again.candidate;
                }
                sparse.publish(g, n, *v);
                const bool stop_here = after(n);
                if (stop_here) halt = true;  // seen by the other thread with heap n
                stored.store(n + 1, std::memory_order_release);
                if (stop_here) return;
            }
        } catch (...) {
            std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            halt = true;
        }
    };
    std::thread other(run, 1u);
    run(0u);
    other.join();
    if (failure) std::rethrow_exception(failure);
    return stored.load();
}

}  // namespace nimtb::engine::split_values
