// The distributed solve's parts that need no MPI: the deal of blocks to
// processes (mpi/deal.h), the page store a process sweeps over
// (mpi/page_store.h), checked for 1 to 5 processes without mpirun, and the
// line chain's checkpoint (mpi/chain_checkpoint.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "engine/base/errors.h"
#include "engine/game/universe.h"
#include "engine/solve/solve_order.h"
#include "mpi/chain_checkpoint.h"
#include "mpi/deal.h"
#include "mpi/page_store.h"

namespace nimtb::mpi {
namespace {

using engine::Universe;

std::vector<Universe> universes() {
    return {Universe(3, 12), Universe(4, 9), Universe(5, 6), Universe::total_bounded(18),
            Universe::total_bounded(14, 4)};
}

// Every process computes the same deal, every block has one owner, each
// process's blocks fill its arrays without gap or overlap, and all of them
// together are the universe.
TEST(Deal, EveryProcessSeesOneDealThatCoversTheUniverse) {
    for (const Universe& u : universes()) {
        const engine::SolveOrder plan = engine::make_order(u, engine::choose_block_heaps(u));
        for (int processes = 1; processes <= 5; ++processes) {
            std::vector<Layout> layouts;
            for (int rank = 0; rank < processes; ++rank)
                layouts.push_back(deal(plan, rank, processes, u, {}));
            uint64_t total = 0;
            for (int rank = 0; rank < processes; ++rank) {
                const Layout& l = layouts[size_t(rank)];
                EXPECT_EQ(l.first, layouts[0].first);
                EXPECT_EQ(l.owner, layouts[0].owner);
                EXPECT_EQ(l.offset, layouts[0].offset);
                // Its blocks, in its local plan's order, one after the other in its arrays.
                uint64_t at = 0;
                for (const engine::Block& b : l.local_plan.blocks) {
                    EXPECT_EQ(b.first, at);
                    at += b.count;
                }
                EXPECT_EQ(at, l.local_positions);
                EXPECT_EQ(l.local_plan.levels(), plan.levels());
                total += l.local_positions;
            }
            EXPECT_EQ(total, u.size()) << u.describe() << " on " << processes;
            // The blocks by rank tile [0, size).
            const Layout& l = layouts[0];
            uint64_t next = 0;
            for (size_t b = 0; b < l.first.size(); ++b) {
                EXPECT_EQ(l.first[b], next);
                next += l.count[b];
                EXPECT_GE(l.owner[b], 0);
                EXPECT_LT(l.owner[b], processes);
            }
            EXPECT_EQ(next, u.size());
        }
    }
}

// Within a level, no process has more than another plus the level's largest
// block: the deal is greedy, largest first.
TEST(Deal, EachLevelIsSharedEvenly) {
    const Universe u(5, 9);
    const engine::SolveOrder plan = engine::make_order(u, engine::choose_block_heaps(u));
    for (int processes = 2; processes <= 4; ++processes) {
        const Layout l = deal(plan, 0, processes, u, {});
        for (size_t level = 0; level < plan.levels(); ++level) {
            std::vector<uint64_t> load(size_t(processes), 0);
            uint64_t largest = 0;
            for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
                const size_t at = l.find(plan.blocks[b].first);
                load[size_t(l.owner[at])] += plan.blocks[b].count;
                largest = std::max(largest, plan.blocks[b].count);
            }
            const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
            EXPECT_LE(*hi - *lo, largest) << "level " << level;
        }
    }
}

// The line chain's deal: a block goes to the owner of its group (its two
// largest heaps), a piece is a run of m2 of one m on one process, and no
// process holds much more than an even share of the positions or of the
// lines at any number of processes.
TEST(Deal, TheLineChainDealsGroupsEvenly) {
    // (K, H, processes, whether the largest row is cut into pieces)
    for (const auto& [k, h, processes, cut] :
         {std::tuple{3u, 20u, 3, false}, std::tuple{6u, 63u, 8, true}, std::tuple{8u, 63u, 8, true},
          std::tuple{2u, 30u, 4, false}, std::tuple{2u, 6u, 3, true},
          std::tuple{3u, 12u, 3, true}}) {
        const Universe u(k, h);
        const ChainDeal pieces = chain_deal(u, processes);
        const std::vector<int>& by_group = pieces.owner;
        ASSERT_EQ(by_group.size(), size_t{h + 1} * (h + 1));
        std::vector<uint64_t> positions(static_cast<size_t>(processes), 0),
            lines(static_cast<size_t>(processes), 0);
        uint64_t all_lines = 0;
        for (uint32_t m = 0; m <= h; ++m) {
            for (uint32_t m2 = 0; m2 <= m; ++m2) {
                const size_t g = chain_group(u, m2, m);
                const int owner = by_group[g];
                ASSERT_GE(owner, 0);
                ASSERT_LE(pieces.first[g], m2);
                ASSERT_LE(m2, pieces.last[g]);
                ASSERT_LE(pieces.last[g], m);
                EXPECT_EQ(by_group[chain_group(u, pieces.first[g], m)], owner);
                EXPECT_EQ(by_group[chain_group(u, pieces.last[g], m)], owner);
                positions[size_t(owner)] += chain_group_positions(u, m2);
                lines[size_t(owner)] += chain_group_lines(u, m2);
                all_lines += chain_group_lines(u, m2);
            }
        }
        // Every position in one group, every line (a position of K - 1 heaps) in one.
        EXPECT_EQ(std::accumulate(positions.begin(), positions.end(), uint64_t{0}), u.size());
        EXPECT_EQ(all_lines, engine::binomial(uint64_t{h} + k - 1, k - 1));
        if (k >= 6) {
            const double even = 1.0 / processes;
            EXPECT_LE(
                double(*std::max_element(positions.begin(), positions.end())) / double(u.size()),
                1.25 * even);
            EXPECT_LE(double(*std::max_element(lines.begin(), lines.end())) / double(all_lines),
                      1.25 * even);
        }
        // A group's lines are one run of line indices, the runs in order.
        uint64_t next_line = 0;
        for (uint32_t m = 0; m <= h; ++m) {
            for (uint32_t m2 = 0; m2 <= m; ++m2) {
                if (chain_group_lines(u, m2) == 0) continue;
                EXPECT_EQ(chain_group_first_line(u, m2, m), next_line) << m << " " << m2;
                next_line += chain_group_lines(u, m2);
            }
        }
        // Rows of half an even share or more are cut into pieces (test_mpi solves such deals).
        EXPECT_EQ(pieces.first[size_t{h} * (h + 1) + h] > 0, cut) << k << " " << h;
        const engine::SolveOrder plan = engine::make_order(u, engine::choose_block_heaps(u));
        const Layout l = deal(plan, 1, processes, u, by_group);
        std::vector<uint32_t> heaps(u.max_heaps()), last(u.max_heaps());
        for (size_t b = 0; b < l.first.size(); ++b) {
            u.unrank(l.first[b], heaps.data());
            u.unrank(l.first[b] + l.count[b] - 1, last.data());
            EXPECT_EQ(chain_group(u, heaps.data()), chain_group(u, last.data()));
            EXPECT_EQ(l.owner[b], by_group[chain_group(u, heaps.data())]);
        }
    }
}

// The line chain's blocks: the most top heaps (up to 5, below K) whose
// blocks average CHAIN_BLOCK_POSITIONS positions, never fewer than one
// process's; so its levels hold a small part of a large universe.
TEST(Deal, TheLineChainsBlocksShareMoreTopHeapsInLargerUniverses) {
    for (const auto& [k, j] :
         {std::pair{4u, 2u}, {6u, 3u}, {7u, 3u}, {8u, 4u}, {9u, 5u}, {10u, 5u}}) {
        const Universe u(k, 63);
        const unsigned chosen = chain_block_heaps(u);
        EXPECT_EQ(chosen, j) << "K=" << k;
        EXPECT_GE(chosen, engine::choose_block_heaps(u));
        if (chosen > engine::choose_block_heaps(u)) {
            EXPECT_GE(u.size() / engine::binomial(63 + chosen, chosen), CHAIN_BLOCK_POSITIONS);
        }
        if (chosen < 5 && chosen + 1 < k) {
            EXPECT_LT(u.size() / engine::binomial(63 + chosen + 1, chosen + 1),
                      CHAIN_BLOCK_POSITIONS);
        }
    }
    EXPECT_EQ(chain_block_heaps(Universe(4, 20)), engine::choose_block_heaps(Universe(4, 20)));
}

TEST(Deal, FindAndOverlapsNameTheBlocksOfEveryRank) {
    const Universe u(4, 7);
    const engine::SolveOrder plan = engine::make_order(u, engine::choose_block_heaps(u));
    const Layout l = deal(plan, 0, 3, u, {});
    for (uint64_t rank = 0; rank < u.size(); ++rank) {
        const size_t b = l.find(rank);
        EXPECT_LE(l.first[b], rank);
        EXPECT_LT(rank, l.first[b] + l.count[b]);
    }
    for (uint64_t lo : {uint64_t{0}, uint64_t{5}, uint64_t{64}}) {
        const uint64_t hi = std::min(u.size(), lo + 100);
        uint64_t covered = lo;
        for_each_overlap(l, lo, hi, [&](uint64_t start, uint64_t end, size_t b) {
            EXPECT_EQ(start, covered);
            EXPECT_LE(end, l.first[b] + l.count[b]);
            covered = end;
        });
        EXPECT_EQ(covered, hi);
    }
}

// A child inside the block being swept is read from the process's own
// arrays; one below it from the slot its page was fetched into.
TEST(PageStore, ReadsTheBlockAndTheFetchedPages) {
    const unsigned bits = 6;  // pages of 64 ranks
    const uint64_t page = uint64_t{1} << bits;
    std::vector<uint8_t> own(100), own_remoteness(100);
    std::iota(own.begin(), own.end(), uint8_t{0});
    std::iota(own_remoteness.begin(), own_remoteness.end(), uint8_t{100});
    // Pages 1 and 3 of the universe fetched into slots 1 and 0.
    std::vector<int32_t> slot(8, -1);
    slot[1] = 1;
    slot[3] = 0;
    std::vector<uint8_t> page_value(2 * page), page_remoteness(2 * page);
    for (uint64_t i = 0; i < page; ++i) {
        page_value[i] = static_cast<uint8_t>(3 * 64 + i);  // page 3 in slot 0
        page_value[page + i] = static_cast<uint8_t>(64 + i);
        page_remoteness[i] = static_cast<uint8_t>(i);
    }
    const uint64_t block_first = 300;
    const PagedStore<uint8_t, uint8_t> store{own.data(),
                                             own_remoteness.data(),
                                             block_first,
                                             page_value.data(),
                                             page_remoteness.data(),
                                             slot.data(),
                                             bits};
    EXPECT_EQ(store.child_value(300), 0);
    EXPECT_EQ(store.child_value(342), 42);
    EXPECT_EQ(store.child_remoteness(342), 142);
    EXPECT_EQ(store.child_value(64 + 5), uint8_t(64 + 5));
    EXPECT_EQ(store.child_value(3 * 64 + 7), uint8_t(3 * 64 + 7));
    EXPECT_EQ(store.child_remoteness(3 * 64 + 7), 7);
    store.set(350, 9, 8);
    EXPECT_EQ(own[50], 9);
    EXPECT_EQ(own_remoteness[50], 8);
}

TEST(PageStore, PagesAreAtLeast64RanksAndAtMost2To21OfThem) {
    EXPECT_EQ(page_bits(Universe(2, 10)), 6u);
    const Universe big(7, 63);
    EXPECT_LE(big.size() >> page_bits(big), uint64_t{1} << 21);
}

// A swept level's arrival area serves the next: the smallest idle one that
// holds the slots, else the largest grown; at most IDLE_AREAS idle.
TEST(LineChainAreas, AreReusedSmallestFirstElseGrown) {
    const Universe u(4, 10);
    LineChain c(u, engine::LineShape{}, chain_deal(u, 1), 0, 2);
    const auto take = [&](uint64_t bytes) {
        Arrivals x;
        x.bytes = bytes;
        x.area = c.take_area(bytes);
        return x;
    };
    EXPECT_TRUE(c.take_area(0).empty());
    Arrivals one = take(1 << 21), three = take(3 << 21);
    void* const one_at = one.area.data();
    void* const three_at = three.area.data();
    c.retire(one);
    c.retire(three);
    EXPECT_TRUE(one.area.empty());
    EXPECT_EQ(c.idle_areas.size(), 2u);
    Arrivals fits = take(2 << 21);  // the smallest that holds it
    EXPECT_EQ(fits.area.data(), three_at);
    EXPECT_EQ(c.take_area(1 << 20).data(), one_at);
    EXPECT_TRUE(c.idle_areas.empty());
    c.retire(fits);
    Arrivals grown = take(5 << 21);  // none holds it: the largest, grown
    EXPECT_TRUE(c.idle_areas.empty());
    EXPECT_EQ(grown.area.bytes(), size_t{5} << 21);
    // Three retired at once: the smallest let go.
    Arrivals small = take(1 << 20), middle = take(2 << 20);
    c.retire(grown);
    c.retire(small);
    c.retire(middle);
    EXPECT_EQ(c.idle_areas.size(), LineChain::IDLE_AREAS);
    for (const engine::LargeBuffer& idle : c.idle_areas) EXPECT_GE(idle.bytes(), size_t{2} << 20);
}

// A chain's state saved and restored: the same home lines and arrivals,
// byte for byte, only the pages that are not zero in the file; a damaged,
// cut or lengthened file, or another solve's, refused with "is damaged".
TEST(ChainCheckpoint, SavesAndRestoresTheChainsState) {
    const Universe u(5, 30);
    const auto chain = [&](const Universe& x) {
        LineChain c(x, engine::LineShape{}, chain_deal(x, 1), 0, 2);
        c.done_after.assign(8, {});
        return c;
    };
    // Slots of later levels, as Solver::arrivals_for makes them: here, of
    // two blocks and three pages and a bit.
    const auto arrivals_for = [](size_t level) {
        Arrivals x;
        x.b0 = level;
        x.b1 = level + 2;
        x.slot = {0, Arrivals::NONE, 512, Arrivals::NONE};
        x.filled.assign(4, 0);
        x.bytes = 3 * 4096 + 72;
        x.area = engine::LargeBuffer(x.bytes, false);
        return x;
    };
    LineChain c = chain(u);
    ASSERT_GT(c.seen.bytes(), 3 * 4096u);
    uint64_t* seen = c.seen_words();
    seen[3] = 0x8001;
    seen[c.seen.bytes() / 8 - 1] = 5;  // the last word, in a page cut short
    static_cast<uint16_t*>(c.remoteness.data())[1000] = 7;
    for (const size_t level : {5, 7}) {
        Arrivals x = arrivals_for(level);
        x.filled[0] = level;
        x.words()[level] = 0xabc;
        x.words()[3 * 512 + 8] = 1;  // the last page
        c.later.emplace(level, std::move(x));
    }
    char folder[] = "/tmp/nimtb-chain-checkpoint-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    const ChainCheckpoint ck(folder);
    const ChainStateHead head{4, {1234, 1234}, 56, 7, 89};
    ck.save(head, c);
    ck.save({3, {}, 0, 0, 0}, c);
    EXPECT_EQ(ck.levels(), (std::vector<uint64_t>{3, 4}));
    ck.keep_only(4);
    EXPECT_EQ(ck.levels(), std::vector<uint64_t>{4});
    const std::string path = std::string(folder) + "/chain-000004.state";
    // Nearly all of the home lines are zero, and so are not in the file.
    EXPECT_LT(std::filesystem::file_size(path), 4096u);

    LineChain back = chain(u);
    const ChainStateHead got = ck.restore(4, back, arrivals_for);
    EXPECT_EQ(got.level, 4u);
    EXPECT_EQ(got.spilled[0], 1234u);
    EXPECT_EQ(got.p_positions, 56u);
    EXPECT_EQ(got.max_remoteness, 89u);
    EXPECT_EQ(std::memcmp(back.seen.data(), c.seen.data(), c.seen.bytes()), 0);
    EXPECT_EQ(std::memcmp(back.remoteness.data(), c.remoteness.data(), c.remoteness.bytes()), 0);
    ASSERT_EQ(back.later.size(), 2u);
    for (const auto& [level, x] : c.later) {
        const Arrivals& y = back.later.at(level);
        EXPECT_EQ(y.filled, x.filled);
        EXPECT_EQ(std::memcmp(y.area.data(), x.area.data(), x.bytes), 0);
    }
    // Only into a chain just made, whose areas read as zeros where the file has none.
    EXPECT_THROW(ck.restore(4, back, arrivals_for), std::logic_error);

    const auto refused = [&](const Universe& x, const char* words) {
        LineChain fresh = chain(x);
        try {
            ck.restore(4, fresh, arrivals_for);
            ADD_FAILURE() << "restored";
        } catch (const TableError& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    refused(Universe(5, 29), "the state of other lines");
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const auto written = [&](const std::string& b) { std::ofstream(path, std::ios::binary) << b; };
    for (const size_t at : {size_t{0}, size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
        std::string damaged = bytes;
        damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
        written(damaged);
        refused(u, "is damaged");
    }
    written(bytes.substr(0, bytes.size() - 3));
    refused(u, "is damaged");
    written(bytes + "x");
    refused(u, "bytes after its frame");
    written(bytes);
    LineChain again = chain(u);
    EXPECT_EQ(ck.restore(4, again, arrivals_for).level, 4u);
    ck.remove();
    EXPECT_TRUE(ck.levels().empty());
    std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace nimtb::mpi
