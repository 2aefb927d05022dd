#pragma once
// Children as ranks for the families whose moves touch one heap (take,
// octal, grundy, lasker) in a total-bounded universe without a heap limit:
// the solver's hot loop for take-and-break games.
//
// Ranking each child from scratch (sort, then a table read per heap) costs
// a dozen reads per child. Here a move of heap v replaces it by at most two
// smaller heaps, and the child's rank is a handful of reads from prefix
// tables of the parent, kept from one position to the next.
//
// The index (universe.h, docs/FORMAT.md): with the parts in descending order
// p_1 >= ... >= p_n and S_j = p_1 + ... + p_j, a position's rank is
//   sum_j F(p_j, N - S_{j-1}),
// F(a, r) = the number of multisets of parts below a with total at most r
// (with no heap limit the heap index does not matter). Write
//   Pf(j, T) = sum_{t <= j} F(p_t, T - S_{t-1}),
// so that a run of parts p_{c+1..d} starting with budget t adds
// Pf(d, t + S_c) - Pf(c, t + S_c). Removing the last copy of v = p_i and
// inserting x >= y (x below p_a, at or above p_{a+1}; y likewise at b) gives
//   rank = Pf(i-1, N) - Pf(i, N+v)
//        + Pf(a, N+v)                    + F(x, N - S_a + v)
//        + Pf(b, N+v-x) - Pf(a, N+v-x)   + F(y, N - S_b + v - x)
//        + Pf(n, N+v-x-y) - Pf(b, N+v-x-y),
// with one inserted heap or none the shorter forms of the same sum. Every
// budget T lies in [N, 2N], so a row of Pf has N + 1 entries; the rows of a
// position's largest parts stay valid while the sweep changes its smallest.
// The sums wrap modulo 2^64, and the result is exact because the rank fits.

#include <cassert>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engine/rules.h"
#include "engine/universe.h"

namespace nimtb::engine {

class TotalChildren {
  public:
    // True when this generator serves `rule` in `u`: moves touch one heap,
    // and the universe bounds the total without limiting the heaps.
    static bool fits(const Rule& rule, const Universe& u);

    // Builds the tables shared by every copy; a copy has its own prefix
    // rows (one per thread).
    TotalChildren(const Rule& rule, const Universe& u);

    // Calls f(child_rank) for every child of the sorted, padded position
    // `heaps` of rank `rank`. A child reached from two heap sizes comes twice.
    template <class F>
    void operator()(const uint32_t* heaps, uint64_t rank, F&& f);

  private:
    // What one heap of each size becomes, from the rule: shared, read-only.
    struct Tables {
        uint32_t total = 0;             // N
        std::vector<uint64_t> f;        // F(a, r), a in [0, N], r in [0, 2N]
        std::vector<uint32_t> singles;  // per size v, the one heap left (0: none), descending
        std::vector<uint32_t> single_start;
        std::vector<std::pair<uint32_t, uint32_t>> pairs;  // per size v, the two heaps x >= y
        std::vector<uint32_t> pair_start;
    };

    uint64_t f(uint32_t a, uint32_t r) const { return f_[size_t(a) * (2 * n_total_ + 1) + r]; }
    uint64_t* row(unsigned j) { return pf_.data() + size_t(j) * (n_total_ + 1); }
    // Reads the parts of `heaps` and rebuilds the rows they changed.
    unsigned update(const uint32_t* heaps);

    std::shared_ptr<const Tables> tables_;
    const uint64_t* f_ = nullptr;  // tables_->f
    uint32_t n_total_ = 0;
    unsigned k_ = 0;
    std::vector<uint32_t> parts_;  // 1-based, descending
    std::vector<uint32_t> sums_;   // S_j
    std::vector<uint64_t> pf_;     // Pf(j, N + c), rows j = 0..n, columns c = 0..N
    unsigned valid_ = 0;           // rows 0..valid_ hold the current parts
};

template <class F>
void TotalChildren::operator()(const uint32_t* heaps, uint64_t rank, F&& visit) {
    const unsigned n = update(heaps);
    assert(row(n)[0] == rank);  // the prefix rows rank the position itself
    (void)rank;
    const Tables& t = *tables_;
    const uint32_t total = n_total_;
    const uint32_t* p = parts_.data();
    const uint32_t* s = sums_.data();
    const uint64_t* last = row(n);
    for (unsigned i = 1; i <= n; ++i) {
        const uint32_t v = p[i];
        if (i < n && p[i + 1] == v) continue;  // move the last copy of a size only
        const uint64_t base = row(i - 1)[0] - row(i)[v];
        // a: the last index whose part is >= the (larger) inserted heap.
        unsigned a = i;
        for (uint32_t e = t.single_start[v]; e != t.single_start[v + 1]; ++e) {
            const uint32_t w = t.singles[e];
            if (w == 0) {
                visit(base + last[v]);
                continue;
            }
            while (a < n && p[a + 1] >= w) ++a;
            while (a > i && p[a] < w) --a;
            const uint64_t* ra = row(a);
            visit(base + ra[v] + f(w, total - s[a] + v) + last[v - w] - ra[v - w]);
        }
        a = i;
        unsigned b = n;
        for (uint32_t e = t.pair_start[v]; e != t.pair_start[v + 1]; ++e) {
            const auto [x, y] = t.pairs[e];
            while (a < n && p[a + 1] >= x) ++a;
            while (a > i && p[a] < x) --a;
            if (b < a) b = a;
            while (b < n && p[b + 1] >= y) ++b;
            while (b > a && p[b] < y) --b;
            const uint64_t* ra = row(a);
            const uint64_t* rb = row(b);
            const uint32_t d = v - x;
            visit(base + ra[v] + f(x, total - s[a] + v) + rb[d] - ra[d] + f(y, total - s[b] + d) +
                  last[d - y] - rb[d - y]);
        }
    }
}

}  // namespace nimtb::engine
