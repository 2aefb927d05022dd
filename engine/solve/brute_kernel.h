#pragma once
// The brute-force kernel of the retrograde solver (solver.h): every child of
// every position visited, for every family of rules and both universes. Its
// child generators and its store are template parameters, chosen at compile
// time, so that one process (solver.cpp) and a distributed solve (mpi/)
// run the same loop over different storage.

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdint>
#include <limits>

#include "engine/game/moves.h"
#include "engine/game/rules.h"
#include "engine/game/total_children.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

// Set by a kernel's loop bodies when a number does not fit.
struct Overflow {
    std::atomic<bool> value{false};
    std::atomic<bool> remoteness{false};
};

// Child generators for the kernel, chosen at compile time. Each calls
// f(child_rank) for every child of sorted, padded heaps of rank `rank`; each
// task sweeps with its own copy, which may keep state from one position to
// the next (TotalChildren, in total_children.h: one-heap families under a
// total).
//
// Take families in a box: ranks computed incrementally (ALL: Nim amounts).
template <bool ALL>
struct TakeChildren {
    const Universe& u;
    const TakeAmounts& amounts;
    template <class F>
    void operator()(const uint32_t* heaps, uint64_t rank, F&& f) const {
        for_each_take_child<ALL>(u, amounts, heaps, rank,
                                 [&](uint32_t, uint32_t, uint64_t c) { f(c); });
    }
};

// Every family, every universe: children as heap lists, each ranked. The
// scratch lists are allocated once per position, not per child.
struct FamilyChildren {
    const Rule& rule;
    const Universe& u;
    template <class F>
    void operator()(const uint32_t* heaps, uint64_t, F&& f) const {
        const unsigned k = u.max_heaps();
        unsigned zeros = 0;
        while (zeros < k && heaps[zeros] == 0) ++zeros;
        Heaps scratch;
        scratch.reserve(k - zeros + 1);
        for_each_child(rule, std::span<const uint32_t>(heaps + zeros, k - zeros),
                       [&](const Heaps& child) {
                           scratch.assign(child.begin(), child.end());
                           f(rank_child(u, scratch));
                       });
    }
};

// Where the brute-force kernel reads children and writes positions: the
// whole arrays, indexed by rank (one process). A distributed solve gives the
// kernel another store with the same three members, which reads children
// that other processes solved from its own buffers.
template <class V, class R>
struct ArrayStore {
    V* value;
    R* remoteness;
    V child_value(uint64_t c) const { return value[c]; }
    R child_remoteness(uint64_t c) const { return remoteness[c]; }
    void set(uint64_t rank, V v, R r) const {
        value[rank] = v;
        if (remoteness) remoteness[rank] = r;
    }
};

// The brute-force kernel for one child generator, one choice of stored
// quantities (REM), one pair of element types and one store. The choices
// are made at compile time so that the inner loop is a table read, a load
// and a few bit operations per child.
template <class Children, bool REM, class V, class R, class Store = ArrayStore<V, R>>
struct BruteKernel {
    const Universe& u;
    Children children_of;
    Store store;
    V terminal;
    Overflow* overflow;

    // Children's values fit in V, so the mex bitset needs one bit more.
    static constexpr unsigned WORDS = (uint64_t{1} << (sizeof(V) * 8)) / 64 + 1;
    // A task's own buffers, inside its own stack frame: buffers from the
    // heap, written at every position, could share a cache line with the
    // other thread's (Kayles misere N=60 ran 1.25 s instead of 0.75 s on
    // two threads when they did).
    struct Scratch {
        std::array<uint32_t, std::max(Universe::MAX_HEAPS, Universe::MAX_TOTAL)> heaps;
        std::array<uint64_t, WORDS> seen;
        Children children_of;
    };
    Scratch scratch() const { return {{}, {}, children_of}; }

    // Solves ranks [first, first + count) in order; returns the child look-ups.
    uint64_t sweep(uint64_t first, uint64_t count, Scratch& scratch) const {
        uint32_t* heaps = scratch.heaps.data();
        uint64_t* seen = scratch.seen.data();
        Children& generate = scratch.children_of;
        u.unrank(first, heaps);
        uint64_t lookups = 0;
        for (uint64_t rank = first; rank < first + count; ++rank) {
            uint32_t max_value = 0;
            uint32_t max_rem = 0, min_rem_p = std::numeric_limits<uint32_t>::max();
            uint64_t children = 0;
            generate(heaps, rank, [&](uint64_t c) {
                assert(c < rank);  // every move leads to a colex-smaller position
                const uint32_t v = store.child_value(c);
                seen[v >> 6] |= uint64_t{1} << (v & 63);
                max_value = std::max(max_value, v);
                ++children;
                if constexpr (REM) {
                    const uint32_t r = store.child_remoteness(c);
                    max_rem = std::max(max_rem, r);
                    if (v == 0) min_rem_p = std::min(min_rem_p, r);
                }
            });
            lookups += children;
            if (children == 0) {
                store.set(rank, terminal, 0);
            } else {
                const unsigned top = max_value >> 6;
                uint32_t mex = (top + 1) * 64;
                for (unsigned w = 0; w <= top; ++w) {
                    if (~seen[w]) {
                        mex = w * 64 + static_cast<uint32_t>(std::countr_one(seen[w]));
                        break;
                    }
                }
                std::fill(seen, seen + top + 1, 0);
                if (mex > std::numeric_limits<V>::max()) {
                    overflow->value.store(true, std::memory_order_relaxed);
                }
                R r = 0;
                if constexpr (REM) {
                    const uint32_t rem = 1 + (mex == 0 ? max_rem : min_rem_p);
                    if (rem > std::numeric_limits<R>::max()) {
                        overflow->remoteness.store(true, std::memory_order_relaxed);
                    }
                    r = static_cast<R>(rem);
                }
                store.set(rank, static_cast<V>(mex), r);
            }
            u.next(heaps);
        }
        return lookups;
    }
};

// Calls f.template operator()<REM, V, R>() with the element types of arrays
// of `value_bits` and `remoteness_bits` (0: no remoteness, R then unused):
// the kernel's instantiation for the widths a level runs at.
template <class F>
decltype(auto) with_widths(unsigned value_bits, unsigned remoteness_bits, F&& f) {
    const bool v8 = value_bits == 8;
    if (remoteness_bits == 0) {
        return v8 ? f.template operator()<false, uint8_t, uint8_t>()
                  : f.template operator()<false, uint16_t, uint8_t>();
    }
    const bool r8 = remoteness_bits == 8;
    if (v8) {
        return r8 ? f.template operator()<true, uint8_t, uint8_t>()
                  : f.template operator()<true, uint8_t, uint16_t>();
    }
    return r8 ? f.template operator()<true, uint16_t, uint8_t>()
              : f.template operator()<true, uint16_t, uint16_t>();
}

// Calls f(generator) with the fastest child generator for `rule` in `u`:
// one-heap families under a total rank children from the parent's tables,
// take families in a box incrementally, every other family child by child.
// `amounts` is TakeAmounts(rule, u.max_heap_size()), built once by the caller.
template <class F>
decltype(auto) with_children(const Rule& rule, const Universe& u, const TakeAmounts& amounts,
                             F&& f) {
    if (TotalChildren::fits(rule, u)) return f(TotalChildren(rule, u));
    if (!rule.take_family() || !u.is_box()) return f(FamilyChildren{rule, u});
    if (amounts.all) return f(TakeChildren<true>{u, amounts});
    return f(TakeChildren<false>{u, amounts});
}

}  // namespace nimtb::engine
