#pragma once
// Children as ranks for the families whose moves touch one heap (take,
// octal, grundy, lasker) in a total-bounded universe: the solver's hot loop
// for take-and-break games.
//
// Ranking each child from scratch (sort, then a table read per heap) costs
// a dozen reads per child. Here a move of heap v replaces it by at most two
// smaller heaps, and the child's rank is two or three reads from tables of
// the parent, which the sweep keeps from one position to the next.
//
// The index (universe.h, docs/FORMAT.md): with the parts in descending order
// p_1 >= ... >= p_n and S_j = p_1 + ... + p_j, a position's rank is
//   sum_j Q(K - j, p_j, N - S_{j-1}),
// Q(m, a, r) = the number of ways to fill heaps 0..m (ascending) with heap
// m below a and at most r tokens. With the prefixes
//   Pf(j, T)  = sum_{t <= j} Q(K - t, p_t, T - S_{t-1}),
//   Pf+(j, T) = the same with every part one heap higher (K - t + 1),
// a run of parts p_{c+1..d} entered with budget t adds
// Pf(d, t + S_c) - Pf(c, t + S_c) (Pf+ when the run moved up one heap).
// Removing the last copy of v = p_i moves the parts above the inserted
// heap up one, so inserting one heap w gives
//   rank = B(i) + D(w, v) + L(v - w),
//   B(i)    = Pf(i - 1, N) - Pf+(i, N + v),
//   D(w, c) = Pf+(a, N + c) - Pf(a, N + c - w) + Q(K - a, w, N - S_a + c),
//             a = the number of parts >= w (w goes in at place a),
//   L(c)    = Pf(n, N + c),
// and inserting none, B(i) + Pf+(n, N + v). Splits need K = N, where no
// position fills its heaps, Q does not depend on m and Pf+ = Pf; inserting
// x >= y >= 1 then gives B(i) + D(x, v) + D(y, v - x) + L(v - x - y).
// Budgets lie in [N, N + p_1], so a row of Pf has p_1 + 1 entries; D(w, .)
// depends only on the parts >= w, so it stays valid while the sweep in
// colex order changes the smaller parts. The sums wrap modulo 2^64, and the
// result is exact because the rank fits.

#include <array>
#include <cassert>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

class TotalChildren {
  public:
    // True when this generator serves `rule` in `u`: moves touch one heap
    // and leave at most two in its place, and the universe bounds the total
    // (with a heap limit, moves that split do not fit: check_closed refuses
    // them).
    static bool fits(const Rule& rule, const Universe& u);

    // Builds the tables shared by every copy; a copy has its own prefix
    // rows (one per thread).
    TotalChildren(const Rule& rule, const Universe& u);

    // Calls visit(child_rank) for every child of the sorted, padded position
    // `heaps` of rank `rank`, sweeping fastest when positions come in rank
    // order. A child reached from two heap sizes comes twice.
    template <class F>
    void operator()(const uint32_t* heaps, uint64_t rank, F&& visit);

  private:
    // Shared by every copy, read-only: F, and what one heap of each size
    // becomes under the rule.
    struct Tables {
        // Q(m, a, r): a in [0, N], r in [0, 2N]; m in [0, K] with a heap
        // limit (row K, for Pf+ of the top part, cancels: zeros), else one row.
        std::vector<uint64_t> q;
        std::vector<uint32_t> singles;  // per size v, the one heap left (0: none), descending
        std::vector<uint32_t> single_start;
        std::vector<std::pair<uint32_t, uint32_t>> pairs;  // per size v, the two heaps x >= y
        std::vector<uint32_t> pair_start;
    };

    const uint64_t* q(unsigned m, uint32_t a) const {
        return q_ + ((limited_ ? size_t(m) : 0) * (total_ + 1) + a) * (2 * total_ + 1);
    }
    uint64_t* pf(unsigned j) { return pf_.data() + size_t(j) * (total_ + 1); }
    uint64_t* pf_up(unsigned j) {
        return (limited_ ? pf_up_ : pf_).data() + size_t(j) * (total_ + 1);
    }
    uint64_t* d(uint32_t w) { return d_.data() + size_t(w) * (total_ + 1); }
    // Reads the parts of `heaps`, rebuilds the rows they changed, and
    // returns the number of parts.
    unsigned update(const uint32_t* heaps);

    std::shared_ptr<const Tables> tables_;
    const uint64_t* q_ = nullptr;  // tables_->q
    uint32_t total_ = 0;           // N
    unsigned k_ = 0;
    bool limited_ = false;  // K < N
    // Written at every position: kept inside the object, which lives in the
    // sweeping task's stack frame (small heap blocks of two threads can share
    // a cache line: see BruteKernel::Scratch in brute_kernel.h).
    std::array<uint32_t, Universe::MAX_TOTAL + 2> parts_{};  // 1-based, descending
    std::array<uint32_t, Universe::MAX_TOTAL + 2> sums_{};   // S_j
    std::vector<uint64_t> pf_;     // Pf(j, N + c): rows j = 0..n, columns c = 0..p_1
    std::vector<uint64_t> pf_up_;  // Pf+(j, N + c), with a heap limit
    std::vector<uint64_t> d_;      // D(w, c): rows w = 1..p_1, columns c = w..p_1
    unsigned valid_ = 0;           // the parts the rows were built for
};

template <class F>
void TotalChildren::operator()(const uint32_t* heaps, uint64_t rank, F&& visit) {
    const unsigned n = update(heaps);
    assert(pf(n)[0] == rank);  // the prefix rows rank the position itself
    (void)rank;
    const Tables& t = *tables_;
    const uint32_t* p = parts_.data();
    const uint64_t* last = pf(n);
    const uint64_t* last_up = pf_up(n);
    const uint64_t* dd = d_.data();
    const size_t stride = total_ + 1;
    for (unsigned i = 1; i <= n; ++i) {
        const uint32_t v = p[i];
        if (i < n && p[i + 1] == v) continue;  // move the last copy of a size only
        const uint64_t base = pf(i - 1)[0] - pf_up(i)[v];
        for (uint32_t e = t.single_start[v]; e != t.single_start[v + 1]; ++e) {
            const uint32_t w = t.singles[e];
            visit(w == 0 ? base + last_up[v] : base + dd[w * stride + v] + last[v - w]);
        }
        for (uint32_t e = t.pair_start[v]; e != t.pair_start[v + 1]; ++e) {  // K = N
            const auto [x, y] = t.pairs[e];
            const uint32_t c = v - x;
            visit(base + dd[x * stride + v] + dd[y * stride + c] + last[c - y]);
        }
    }
}

}  // namespace nimtb::engine
