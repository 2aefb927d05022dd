#include "mpi/deal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace nimtb::mpi {

using engine::SolveOrder;
using engine::Universe;

size_t Layout::find(uint64_t rank) const {
    return static_cast<size_t>(std::upper_bound(first.begin(), first.end(), rank) - first.begin()) -
           1;
}

Layout deal(const SolveOrder& plan, int rank, int processes, const Universe& u,
            const std::vector<int>& by_group) {
    Layout l;
    const size_t n = plan.blocks.size();
    std::vector<int> owner(n);
    std::vector<uint64_t> offset(n);
    std::vector<uint64_t> filled(static_cast<size_t>(processes), 0);
    std::array<uint32_t, Universe::MAX_HEAPS> heaps{};
    l.local_plan.level_start.push_back(0);
    for (size_t level = 0; level < plan.levels(); ++level) {
        std::vector<uint64_t> load(static_cast<size_t>(processes), 0);
        for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
            auto least =
                static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            if (!by_group.empty()) {
                u.unrank(plan.blocks[b].first, heaps.data());
                least = static_cast<size_t>(by_group[chain_group(u, heaps.data())]);
            }
            owner[b] = static_cast<int>(least);
            offset[b] = filled[least];
            load[least] += plan.blocks[b].count;
            filled[least] += plan.blocks[b].count;
            if (owner[b] == rank) {
                l.local_plan.blocks.push_back({offset[b], plan.blocks[b].count});
                l.local_global_first.push_back(plan.blocks[b].first);
            }
        }
        l.local_plan.level_start.push_back(l.local_plan.blocks.size());
    }
    l.local_positions = filled[static_cast<size_t>(rank)];
    std::vector<size_t> order(n);
    for (size_t b = 0; b < n; ++b) order[b] = b;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return plan.blocks[x].first < plan.blocks[y].first; });
    for (size_t b : order) {
        l.first.push_back(plan.blocks[b].first);
        l.count.push_back(plan.blocks[b].count);
        l.offset.push_back(offset[b]);
        l.owner.push_back(owner[b]);
    }
    return l;
}

uint64_t chain_group_positions(const Universe& u, uint32_t m2) {
    return engine::binomial(uint64_t{m2} + u.max_heaps() - 2, u.max_heaps() - 2);
}

uint64_t chain_group_lines(const Universe& u, uint32_t m2) {
    if (u.max_heaps() == 2) return m2 == 0 ? 1 : 0;
    return engine::binomial(uint64_t{m2} + u.max_heaps() - 3, u.max_heaps() - 3);
}

uint64_t chain_group_first_line(const Universe& u, uint32_t m2, uint32_t m) {
    const unsigned k = u.max_heaps();
    return u.term(k - 2, m) + (k > 2 ? u.term(k - 3, m2) : 0);
}

unsigned chain_block_heaps(const Universe& u) {
    unsigned j = engine::choose_block_heaps(u);
    while (j + 1 < std::min(u.max_heaps(), 6u) &&
           u.size() / engine::binomial(uint64_t{u.max_heap_size()} + j + 1, j + 1) >=
               CHAIN_BLOCK_POSITIONS)
        ++j;
    return j;
}

ChainDeal chain_deal(const Universe& u, int processes) {
    const uint32_t sizes = u.max_heap_size() + 1;
    double lines = 0;
    for (uint32_t m2 = 0; m2 < sizes; ++m2)
        lines += double(chain_group_lines(u, m2)) * (sizes - m2);
    // A group's load: its share of the positions plus its share of the lines.
    const auto load_of = [&](uint32_t m2) {
        return double(chain_group_positions(u, m2)) / double(u.size()) +
               double(chain_group_lines(u, m2)) / lines;
    };
    // Pieces: the groups of one largest heap m, m2 = lo..hi, a run of the
    // SECOND chain (it crosses processes only between pieces). A row of m
    // of half an even share or more is cut into runs of about a quarter.
    struct Piece {
        uint32_t m, lo, hi;
        double load;
    };
    const double piece = 2.0 / (4.0 * processes);
    std::vector<Piece> pieces;
    for (uint32_t m = 0; m < sizes; ++m) {
        double row = 0;
        for (uint32_t m2 = 0; m2 <= m; ++m2) row += load_of(m2);
        const double target = row / std::max(1.0, std::floor(row / piece));
        Piece p{m, 0, 0, 0};
        for (uint32_t m2 = 0; m2 <= m; ++m2) {
            p.hi = m2;
            p.load += load_of(m2);
            if (p.load >= target || m2 == m) {
                pieces.push_back(p);
                p = {m, m2 + 1, 0, 0};
            }
        }
    }
    // Largest first, each to the process where it adds least to the
    // levels' busiest processes (a level's barrier waits for its busiest;
    // a position's level taken as the sum of its three largest heaps), among
    // those it leaves within 1.08 times an even share (else the least
    // loaded); ties to the least loaded. The same choices on every process.
    std::sort(pieces.begin(), pieces.end(), [](const Piece& x, const Piece& y) {
        return x.load != y.load ? x.load > y.load : std::pair(x.m, x.lo) > std::pair(y.m, y.lo);
    });
    const unsigned k = u.max_heaps();
    const size_t levels = 3 * size_t{u.max_heap_size()} + 1;
    const auto n = static_cast<size_t>(processes);
    std::vector<uint64_t> level_load(n * levels, 0), busiest(levels, 0), adds(levels, 0);
    std::vector<size_t> touched;
    std::vector<double> load(n, 0);
    const double cap = 1.08 * 2.0 / processes;
    ChainDeal d;
    d.owner.assign(size_t{sizes} * sizes, -1);
    d.first.assign(d.owner.size(), 0);
    d.last.assign(d.owner.size(), 0);
    for (const Piece& p : pieces) {
        touched.clear();
        for (uint32_t m2 = p.lo; m2 <= p.hi; ++m2) {
            for (uint32_t m3 = 0; m3 <= (k > 2 ? m2 : 0); ++m3) {
                const size_t level = size_t{p.m} + m2 + m3;
                if (adds[level] == 0) touched.push_back(level);
                adds[level] += k > 2 ? engine::binomial(uint64_t{m3} + k - 3, k - 3) : 1;
            }
        }
        const auto least =
            static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        size_t chosen = least;
        uint64_t best = UINT64_MAX;
        for (size_t q = 0; q < n; ++q) {
            if (load[q] + p.load > cap && q != least) continue;
            uint64_t cost = 0;
            for (size_t level : touched)
                cost += std::max(busiest[level], level_load[q * levels + level] + adds[level]) -
                        busiest[level];
            if (cost < best || (cost == best && load[q] < load[chosen])) {
                best = cost;
                chosen = q;
            }
        }
        for (size_t level : touched) {
            uint64_t& l = level_load[chosen * levels + level];
            l += adds[level];
            busiest[level] = std::max(busiest[level], l);
            adds[level] = 0;
        }
        for (uint32_t m2 = p.lo; m2 <= p.hi; ++m2) {
            const size_t g = chain_group(u, m2, p.m);
            d.owner[g] = static_cast<int>(chosen);
            d.first[g] = p.lo;
            d.last[g] = p.hi;
        }
        load[chosen] += p.load;
    }
    return d;
}

}  // namespace nimtb::mpi
