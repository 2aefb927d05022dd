#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/base/memory.h"
#include "engine/game/moves.h"
#include "engine/solve/solver.h"
#include "reference.h"
#include "solve_universe.h"

using nimtb::engine::Convention;
using nimtb::engine::Heaps;
using nimtb::engine::Kernel;
using nimtb::engine::Rule;
using nimtb::engine::Solution;
using nimtb::engine::SolveMethod;
using nimtb::engine::SolveOptions;
using nimtb::engine::Universe;
using nimtb::test::solve;

namespace {

void expect_matches_reference(const char* rule_text, const Universe& u, unsigned threads = 0) {
    for (Convention c : {Convention::normal, Convention::misere}) {
        SolveOptions o;
        o.convention = c;
        o.threads = threads;
        const Solution s = nimtb::engine::solve(Rule::parse(rule_text), u, o);
        nimtb::test::ReferenceSolver ref(Rule::parse(rule_text), c);
        Heaps heaps(u.max_heaps(), 0);
        uint64_t p = 0;
        for (uint64_t r = 0; r < u.size(); ++r, u.next(heaps)) {
            const auto expected = ref.solve(heaps);
            ASSERT_EQ(s.value.get(r), expected.value)
                << rule_text << " " << to_string(c) << " at " << nimtb::engine::format_heaps(heaps);
            ASSERT_EQ(s.remoteness.get(r), expected.remoteness)
                << rule_text << " " << to_string(c) << " at " << nimtb::engine::format_heaps(heaps);
            p += expected.value == 0;
        }
        EXPECT_EQ(s.p_positions, p);
    }
}

void expect_matches_reference(const char* rule_text, unsigned k, uint32_t h) {
    expect_matches_reference(rule_text, Universe(k, h));
}

bool same_bits(const nimtb::engine::QuantityArray& a, const nimtb::engine::QuantityArray& b) {
    return a.bits() == b.bits() && a.size() == b.size() &&
           (a.empty() || std::memcmp(a.raw(), b.raw(), a.size() * (a.bits() / 8)) == 0);
}

}  // namespace

// A buffer gives back the whole pages inside a range (they read as zeros
// again) and keeps the rest: the distributed line chain's arrivals
// (mpi/line_chain.h) are given back a part at a time as they are swept.
TEST(LargeBuffer, GivesBackTheWholePagesOfARangeOnly) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    for (const bool huge : {false, true}) {
        // Huge pages from 2 MiB on: a range within one gives nothing back.
        const size_t unit = huge ? size_t{2} << 20 : page;
        nimtb::engine::LargeBuffer b(3 * unit, huge);
        auto* bytes = static_cast<unsigned char*>(b.data());
        std::memset(bytes, 0xab, 3 * unit);
        b.give_back(100, 2 * unit + 100);  // the second page whole, parts of the others
        b.give_back(2 * unit + 200, 3 * unit - 1);
        for (size_t at : {size_t{0}, size_t{99}, size_t{100}, unit - 1, 2 * unit, 3 * unit - 1})
            EXPECT_EQ(bytes[at], 0xab) << "huge " << huge << " byte " << at;
        for (size_t at : {unit, unit + unit / 2, 2 * unit - 1})
            EXPECT_EQ(bytes[at], 0) << "huge " << huge << " byte " << at;
        b.give_back(0, 3 * unit);
        EXPECT_EQ(bytes[0], 0);
        EXPECT_EQ(bytes[3 * unit - 1], 0);
    }
}

TEST(Solver, NimMatchesReference) {
    expect_matches_reference("nim", 1, 30);
    expect_matches_reference("nim", 3, 12);
    expect_matches_reference("nim", 4, 9);
    expect_matches_reference("nim", 6, 5);
}

// Every family, both conventions, 1 and 2 threads, in the universes it fits.
TEST(Solver, EveryFamilyMatchesReference) {
    for (unsigned threads : {1u, 2u}) {
        expect_matches_reference("wythoff", Universe(2, 14), threads);
        expect_matches_reference("wythoff", Universe(3, 7), threads);
        expect_matches_reference("moore:2", Universe(3, 6), threads);
        expect_matches_reference("moore:3", Universe(4, 4), threads);
        expect_matches_reference("octal:0.12", Universe(3, 9), threads);
        for (const char* rule :
             {"octal:0.77", "octal:0.07", "octal:0.137", "octal:4.7", "octal:0.6", "octal:0.71",
              "grundy", "lasker", "nim", "subtract:1,3,4", "wythoff", "moore:2", "hex:0.F",
              "hex:8.0", "hex:C.9A"}) {
            expect_matches_reference(rule, Universe::total_bounded(16), threads);
        }
        expect_matches_reference("subtract:1-3", Universe::total_bounded(18, 3), threads);
        expect_matches_reference("nim", Universe::total_bounded(1), threads);
    }
}

TEST(Solver, WideningMidSolveMatchesReference) {
    // Remoteness passes 255 part-way (150 150 takes 300 moves): the array is
    // widened in place and the level solved again.
    expect_matches_reference("nim", 2, 150);
    expect_matches_reference("subtract:1-3", 2, 200);
}

TEST(Solver, SubtractionGameMatchesReference) {
    expect_matches_reference("subtract:1,3,4", 3, 14);
    expect_matches_reference("subtract:1,3,4", 5, 7);
}

TEST(Solver, MatchesGameMatchesReference) {
    expect_matches_reference("subtract:1-3", 1, 40);
    expect_matches_reference("subtract:1-3", 4, 9);
}

TEST(Solver, SubtractTwoFiveSevenMatchesReference) {
    // Heaps of 1 cannot move here, so terminal positions hold tokens.
    expect_matches_reference("subtract:2,5,7", 3, 14);
    expect_matches_reference("subtract:2,5,7", 4, 8);
}

TEST(Solver, AllButMatchesReference) {
    expect_matches_reference("allbut:2", 3, 12);
    expect_matches_reference("allbut:2", 4, 8);
}

TEST(Solver, WorkedExamplesOfTheDesign) {
    const Universe u(3, 7);
    const Solution normal = solve("nim", Convention::normal, 3, 7);
    const Solution misere = solve("nim", Convention::misere, 3, 7);
    EXPECT_EQ(normal.value.get(48), 2u);
    EXPECT_EQ(normal.remoteness.get(48), 11u);
    EXPECT_EQ(normal.value.get(3), 1u);
    EXPECT_EQ(normal.remoteness.get(3), 3u);
    EXPECT_EQ(misere.value.get(48), 2u);
    EXPECT_EQ(misere.remoteness.get(48), 10u);
    EXPECT_EQ(misere.value.get(3), 0u);
    EXPECT_EQ(misere.remoteness.get(3), 3u);
    EXPECT_EQ(misere.value.get(0), 1u);
    EXPECT_EQ(misere.remoteness.get(0), 0u);
    const Solution sub = solve("subtract:1,3,4", Convention::normal, 3, 10);
    const Solution sub_m = solve("subtract:1,3,4", Convention::misere, 3, 10);
    EXPECT_EQ(sub.value.get(89), 0u);
    EXPECT_EQ(sub.remoteness.get(89), 8u);
    EXPECT_EQ(sub_m.value.get(89), 1u);
    EXPECT_EQ(sub_m.remoteness.get(89), 8u);
}

TEST(Solver, BitIdenticalForEveryThreadCountAndBlockShape) {
    for (Convention c : {Convention::normal, Convention::misere}) {
        const Solution one = solve("nim", c, 5, 20, {.threads = 1});
        for (unsigned threads : {2u, 3u, 8u}) {
            for (unsigned block_heaps : {0u, 1u, 2u, 3u, 5u}) {
                const Solution many =
                    solve("nim", c, 5, 20, {.threads = threads, .block_heaps = block_heaps});
                EXPECT_TRUE(same_bits(one.value, many.value)) << threads << " threads";
                EXPECT_TRUE(same_bits(one.remoteness, many.remoteness)) << threads << " threads";
            }
        }
    }
    const Solution one = solve("subtract:1,3,4", Convention::normal, 6, 12, {.threads = 1});
    const Solution two = solve("subtract:1,3,4", Convention::normal, 6, 12, {.threads = 2});
    EXPECT_TRUE(same_bits(one.value, two.value));
    EXPECT_TRUE(same_bits(one.remoteness, two.remoteness));
}

// The line kernel against the brute-force kernel, which stays the reference:
// bit-identical tables for every take rule (lines forced where automatic
// would not pick them, so that near children and lagging points are
// exercised too), both conventions, with and without remoteness, 1 and 3
// threads, several block shapes.
TEST(Solver, LineKernelIsBitIdenticalToBruteForce) {
    const char* rules[] = {"nim",          "allbut:1",      "allbut:2,5",
                           "allbut:1-3",   "allbut:1,4,6",  "subtract:1,3,4",
                           "subtract:1-3", "subtract:2-40", "subtract:1,2,4-40",
                           "subtract:3"};
    const std::pair<unsigned, uint32_t> boxes[] = {{1, 40}, {2, 17}, {3, 11}, {4, 8}, {6, 5}};
    for (const char* rule : rules) {
        for (auto [k, h] : boxes) {
            for (Convention c : {Convention::normal, Convention::misere}) {
                for (bool rem : {true, false}) {
                    const Solution brute =
                        solve(rule, c, k, h, {.kernel = Kernel::brute, .remoteness = rem});
                    EXPECT_EQ(brute.kernel, Kernel::brute);
                    for (unsigned threads : {1u, 3u}) {
                        for (unsigned block_heaps : {0u, 1u}) {
                            const Solution lines = solve(rule, c, k, h,
                                                         {.kernel = Kernel::lines,
                                                          .remoteness = rem,
                                                          .threads = threads,
                                                          .block_heaps = block_heaps});
                            const std::string what = std::string(rule) + " " + to_string(c) +
                                                     " K=" + std::to_string(k) +
                                                     " H=" + std::to_string(h);
                            EXPECT_EQ(lines.kernel, Kernel::lines) << what;
                            EXPECT_TRUE(same_bits(brute.value, lines.value)) << what;
                            EXPECT_TRUE(same_bits(brute.remoteness, lines.remoteness)) << what;
                            EXPECT_EQ(brute.p_positions, lines.p_positions) << what;
                        }
                    }
                }
            }
        }
    }
}

// Heaps of 64 or more: the line kernel's bitsets of 4 and 16 words a line
// (the smallest boxes that need them: brute force, the reference, is slow
// under the sanitizers).
TEST(Solver, LineKernelWithWideBitsetsIsBitIdenticalToBruteForce) {
    struct Case {
        const char* rule;
        unsigned k;
        uint32_t h;
    };
    for (const Case& x :
         {Case{"nim", 2, 64}, Case{"nim", 3, 64}, Case{"allbut:1", 3, 64}, Case{"nim", 2, 256}}) {
        for (Convention c : {Convention::normal, Convention::misere}) {
            const Solution brute = solve(x.rule, c, x.k, x.h, {.kernel = Kernel::brute});
            for (unsigned block_heaps : {0u, 1u}) {
                const Solution lines = solve(x.rule, c, x.k, x.h,
                                             {.kernel = Kernel::lines, .block_heaps = block_heaps});
                const std::string what = std::string(x.rule) + " " + to_string(c) +
                                         " K=" + std::to_string(x.k) + " H=" + std::to_string(x.h);
                EXPECT_EQ(lines.kernel, Kernel::lines) << what;
                EXPECT_TRUE(same_bits(brute.value, lines.value)) << what;
                EXPECT_TRUE(same_bits(brute.remoteness, lines.remoteness)) << what;
            }
        }
    }
}

namespace {

// A sink that keeps what a streamed solve hands over, in arrays of the whole
// universe, and checks that it comes in rank order, each rank once.
struct MemorySink : nimtb::engine::RankSink {
    std::vector<uint32_t> value, remoteness;
    uint64_t calls = 0;
    uint64_t memory(unsigned, unsigned) const override { return 0; }
    void take(uint64_t first, uint64_t count, const nimtb::engine::QuantityArray& v,
              const nimtb::engine::QuantityArray& r) override {
        EXPECT_EQ(first, value.size()) << "rank order, each rank once";
        for (uint64_t i = 0; i < count; ++i) {
            value.push_back(v.get(i));
            if (!r.empty()) remoteness.push_back(r.get(i));
        }
        ++calls;
    }
};

std::vector<uint32_t> entries(const nimtb::engine::QuantityArray& a) {
    std::vector<uint32_t> out(a.size());
    for (uint64_t i = 0; i < a.size(); ++i) out[i] = a.get(i);
    return out;
}

}  // namespace

// A grouped order (solve_order.h) is an order for take rules: each child of
// a position lies in an earlier level, or in the same block at a smaller
// rank; its groups cover the ranks in order, each a run of whole levels.
TEST(Solver, GroupedOrderSolvesChildrenFirst) {
    const std::pair<unsigned, uint32_t> boxes[] = {{3, 9}, {4, 7}, {5, 5}};
    for (const char* rule : {"nim", "subtract:1,3,4", "allbut:2"}) {
        const Rule r = Rule::parse(rule);
        for (const auto& box : boxes) {
            const unsigned k = box.first;  // not a structured binding: the lambda below uses it
            const Universe u(k, box.second);
            for (unsigned j = 2; j <= k; ++j) {
                for (unsigned p = 1; p < j; ++p) {
                    const nimtb::engine::SolveOrder order = nimtb::engine::make_order(u, j, p);
                    std::vector<size_t> level_of(u.size(), SIZE_MAX), block_of(u.size());
                    for (size_t l = 0; l < order.levels(); ++l) {
                        ASSERT_LT(order.level_start[l], order.level_start[l + 1])
                            << "no empty level";
                        for (size_t b = order.level_start[l]; b < order.level_start[l + 1]; ++b) {
                            for (uint64_t x = 0; x < order.blocks[b].count; ++x) {
                                level_of[order.blocks[b].first + x] = l;
                                block_of[order.blocks[b].first + x] = b;
                            }
                        }
                    }
                    uint64_t next = 0;
                    for (size_t g = 0; g < order.groups.size(); ++g) {
                        const auto& group = order.groups[g];
                        const size_t end = g + 1 < order.groups.size()
                                               ? order.groups[g + 1].first_level
                                               : order.levels();
                        EXPECT_EQ(group.first, next);
                        for (uint64_t x = group.first; x < group.first + group.count; ++x) {
                            EXPECT_GE(level_of[x], group.first_level);
                            EXPECT_LT(level_of[x], end);
                        }
                        next = group.first + group.count;
                    }
                    EXPECT_EQ(next, u.size());
                    Heaps heaps(k, 0);
                    for (uint64_t rank = 0; rank < u.size(); ++rank, u.next(heaps)) {
                        ASSERT_NE(level_of[rank], SIZE_MAX);
                        nimtb::engine::for_each_child(r, heaps, [&](std::span<const uint32_t> c) {
                            Heaps child(c.begin(), c.end());
                            const uint64_t cr = nimtb::engine::rank_child(u, child);
                            const bool before = level_of[cr] < level_of[rank] ||
                                                (block_of[cr] == block_of[rank] && cr < rank);
                            EXPECT_TRUE(before) << rule << " K=" << k << " j=" << j << " p=" << p
                                                << " rank " << rank << " child " << cr;
                        });
                    }
                }
            }
        }
    }
}

// A streamed solve hands over, group by group, exactly the arrays of a solve
// in memory, with the same summary, for every thread count and block shape;
// it keeps no arrays itself.
TEST(Solver, StreamedSolveHandsOverTheArraysOfASolveInMemory) {
    const std::pair<unsigned, uint32_t> boxes[] = {{3, 30}, {4, 20}, {5, 12}, {7, 6}};
    for (auto [k, h] : boxes) {
        for (Convention c : {Convention::normal, Convention::misere}) {
            for (bool rem : {true, false}) {
                const Solution whole = solve("nim", c, k, h, {.remoteness = rem});
                EXPECT_FALSE(whole.streamed);
                for (unsigned threads : {1u, 3u}) {
                    for (unsigned block_heaps : {0u, 3u}) {
                        MemorySink sink;
                        const Solution s = solve("nim", c, k, h,
                                                 {.remoteness = rem,
                                                  .threads = threads,
                                                  .block_heaps = block_heaps,
                                                  .sink = &sink,
                                                  .stream = true});
                        const std::string what = to_string(c) + std::string(" K=") +
                                                 std::to_string(k) + " H=" + std::to_string(h);
                        EXPECT_TRUE(s.streamed) << what;
                        EXPECT_TRUE(s.value.empty() && s.remoteness.empty()) << what;
                        EXPECT_GT(sink.calls, 1u) << what;
                        EXPECT_EQ(sink.value, entries(whole.value)) << what;
                        EXPECT_EQ(sink.remoteness, entries(whole.remoteness)) << what;
                        EXPECT_EQ(s.p_positions, whole.p_positions) << what;
                        EXPECT_EQ(s.max_value, whole.max_value) << what;
                        EXPECT_EQ(s.max_remoteness, whole.max_remoteness) << what;
                    }
                }
            }
        }
    }
}

// Streaming is automatic where the arrays would not fit but the window
// does; asked for where the kernel reads solved positions back, or with a
// checkpoint, it is refused at once.
TEST(Solver, StreamsWhereTheArraysDoNotFitAndRefusesWhereItCannot) {
    MemorySink sink;
    SolveOptions o{.convention = Convention::misere, .sink = &sink};
    const nimtb::engine::SolvePlan memory =
        nimtb::engine::plan_solve(Rule::nim(), Universe(6, 40), o);
    EXPECT_FALSE(memory.streamed);
    o.memory_limit = memory.memory - 1;
    const nimtb::engine::SolvePlan streamed =
        nimtb::engine::plan_solve(Rule::nim(), Universe(6, 40), o);
    EXPECT_TRUE(streamed.streamed);
    EXPECT_LT(streamed.memory, memory.memory);
    EXPECT_EQ(streamed.order.groups.front().first, 0u);
    EXPECT_EQ(streamed.order.groups.back().first + streamed.order.groups.back().count,
              Universe(6, 40).size());
    // A checkpoint keeps the arrays in memory: refused, with the way out.
    struct NoLevels : nimtb::engine::LevelStore {
        size_t restore(const std::string&, const nimtb::engine::SolveOrder&, Solution&) override {
            return 0;
        }
        void save(const nimtb::engine::SolveOrder&, size_t, const Solution&) override {}
    } levels;
    o.levels = &levels;
    o.memory_limit = streamed.memory + 1;
    try {
        nimtb::engine::solve(Rule::nim(), Universe(6, 40), o);
        FAIL() << "accepted";
    } catch (const nimtb::ResourceError& e) {
        EXPECT_NE(std::string(e.what()).find("it streams to disk in"), std::string::npos)
            << e.what();
    }
    o.levels = nullptr;
    o.memory_limit = 0;
    o.stream = true;
    EXPECT_THROW(nimtb::engine::plan_solve(Rule::parse("allbut:1,2"), Universe(4, 20), o),
                 nimtb::InputError);
    EXPECT_THROW(nimtb::engine::plan_solve(Rule::nim(), Universe(2, 20), o), nimtb::InputError);
    o.kernel = Kernel::brute;
    EXPECT_THROW(nimtb::engine::plan_solve(Rule::nim(), Universe(4, 20), o), nimtb::InputError);
    o.kernel = Kernel::automatic;
    o.sink = nullptr;  // nowhere to put the positions (a distributed solve)
    EXPECT_THROW(nimtb::engine::plan_solve(Rule::nim(), Universe(4, 20), o), nimtb::InputError);
}

TEST(Solver, AutomaticKernelTakesLinesWhereTheyPay) {
    EXPECT_EQ(solve("nim", Convention::misere, 3, 10).kernel, Kernel::lines);
    EXPECT_EQ(solve("allbut:1,2", Convention::normal, 3, 10).kernel, Kernel::lines);
    // Every child of the matches game is near: nothing to summarise.
    EXPECT_EQ(solve("subtract:1-3", Convention::normal, 3, 10).kernel, Kernel::brute);
    // A split leaves its line; a total bound cuts lines short.
    EXPECT_EQ(
        nimtb::engine::solve(Rule::parse("octal:0.77"), Universe::total_bounded(12), {}).kernel,
        Kernel::brute);
    EXPECT_EQ(nimtb::engine::solve(Rule::nim(), Universe::total_bounded(12), {}).kernel,
              Kernel::brute);
    EXPECT_THROW(
        nimtb::engine::solve(Rule::parse("wythoff"), Universe(2, 5), {.kernel = Kernel::lines}),
        nimtb::InputError);
}

// A 16-bit remoteness array started by the line kernel ends at the smallest
// width that holds it, as the brute-force kernel's does.
TEST(Solver, LineKernelStoresRemotenessAtTheSmallestWidth) {
    const Solution s = solve("nim", Convention::misere, 5, 60);  // longest game 300 moves
    EXPECT_EQ(s.kernel, Kernel::lines);
    EXPECT_LE(s.max_remoteness, 255u);
    EXPECT_EQ(s.remoteness.bits(), 8u);
    const Solution wide = solve("nim", Convention::normal, 2, 200);
    EXPECT_EQ(wide.remoteness.bits(), 16u);
}

TEST(Solver, UsesTheSmallestWidths) {
    const Solution small = solve("subtract:1-3", Convention::normal, 2, 20);
    EXPECT_EQ(small.value.bits(), 8u);
    EXPECT_EQ(small.remoteness.bits(), 8u);
    // 200 200 is lost: the loser takes one token at a time and the winner mirrors.
    const Solution big = solve("nim", Convention::normal, 2, 200);
    EXPECT_EQ(big.remoteness.bits(), 16u);
    EXPECT_EQ(big.remoteness.get(Universe(2, 200).rank(Heaps{200, 200})), 400u);
}

TEST(Solver, WidensValuesThatOutgrowEightBits) {
    SolveOptions o;
    o.value_bits = 8;  // as if the first guess were wrong
    const Solution s = nimtb::engine::solve(Rule::nim(), Universe(1, 300), o);
    EXPECT_EQ(s.value.bits(), 16u);
    EXPECT_EQ(s.value.get(300), 300u);
    EXPECT_EQ(s.max_value, 300u);
    // The line kernel's bitset held values below 256 (8-bit V): brute force
    // took over at the first level that met 256, and the table is exact.
    EXPECT_EQ(s.kernel, Kernel::lines);
    EXPECT_GT(s.brute_from_level, 0u);
    for (uint32_t n = 0; n <= 300; ++n) ASSERT_EQ(s.value.get(n), n);
}

namespace {

// Levels kept in memory, as service/request/checkpoint.h keeps them in files; `crash_at`
// makes save() throw right after saving that level, as a killed solve stops.
struct MemoryLevels : nimtb::engine::LevelStore {
    struct Saved {
        std::vector<uint32_t> value, remoteness;
        size_t brute_from_level;
    };
    std::string key;
    std::vector<Saved> levels;
    size_t crash_at = SIZE_MAX;
    size_t saves = 0;
    size_t restored = 0;

    size_t restore(const std::string& plan_key, const nimtb::engine::SolveOrder& plan,
                   Solution& s) override {
        if (!key.empty() && key != plan_key) throw std::runtime_error("another plan: " + plan_key);
        key = plan_key;
        for (size_t l = 0; l < levels.size(); ++l) {
            size_t i = 0;
            for (size_t b = plan.level_start[l]; b < plan.level_start[l + 1]; ++b) {
                for (uint64_t r = plan.blocks[b].first;
                     r < plan.blocks[b].first + plan.blocks[b].count; ++r, ++i) {
                    set(s.value, r, levels[l].value[i]);
                    if (!s.remoteness.empty()) set(s.remoteness, r, levels[l].remoteness[i]);
                }
            }
            s.brute_from_level = levels[l].brute_from_level;
        }
        restored = levels.size();
        return levels.size();
    }

    void save(const nimtb::engine::SolveOrder& plan, size_t level, const Solution& s) override {
        EXPECT_EQ(level, levels.size()) << "levels are saved in order, once each";
        Saved saved{{}, {}, s.brute_from_level};
        for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
            for (uint64_t r = plan.blocks[b].first; r < plan.blocks[b].first + plan.blocks[b].count;
                 ++r) {
                saved.value.push_back(s.value.get(r));
                if (!s.remoteness.empty()) saved.remoteness.push_back(s.remoteness.get(r));
            }
        }
        levels.push_back(std::move(saved));
        ++saves;
        if (level == crash_at) throw std::runtime_error("killed");
    }

    static void set(nimtb::engine::QuantityArray& a, uint64_t rank, uint32_t v) {
        if (a.bits() == 8 && v > 255) a.widen();
        if (a.bits() == 8) {
            a.data<uint8_t>()[rank] = static_cast<uint8_t>(v);
        } else {
            a.data<uint16_t>()[rank] = static_cast<uint16_t>(v);
        }
    }
};

}  // namespace

// A solve stopped after any level and resumed from the levels saved ends
// with the same arrays as a solve never stopped, for every kernel: lines
// (with and without lagging points), brute force of take rules, of every
// family, under a total, and the switch from lines to brute force with a
// widening in between.
TEST(Solver, ResumesFromSavedLevelsWithTheSameArrays) {
    struct Case {
        const char* rule;
        Convention c;
        Universe u;
        SolveOptions o;
    };
    const std::vector<Case> cases = {
        {"nim", Convention::misere, Universe(4, 12), {}},
        {"allbut:1,2", Convention::normal, Universe(3, 15), {.kernel = Kernel::lines}},
        {"subtract:1,3,4", Convention::misere, Universe(4, 10), {}},
        {"octal:0.77", Convention::misere, Universe::total_bounded(18), {}},
        {"grundy", Convention::normal, Universe::total_bounded(16), {}},
        {"wythoff", Convention::normal, Universe(2, 30), {}},
        {"moore:2", Convention::misere, Universe(3, 8), {}},
        {"nim", Convention::normal, Universe(1, 300), {.value_bits = 8}},
    };
    for (const Case& k : cases) {
        SolveOptions o = k.o;
        o.convention = k.c;
        const Rule rule = Rule::parse(k.rule);
        const Solution whole = nimtb::engine::solve(rule, k.u, o);
        MemoryLevels counting;
        o.levels = &counting;
        nimtb::engine::solve(rule, k.u, o);
        const size_t levels = counting.levels.size();
        ASSERT_GT(levels, 3u) << k.rule;
        for (size_t crash : {size_t{0}, levels / 3, levels - 2}) {
            MemoryLevels store;
            store.crash_at = crash;
            o.levels = &store;
            EXPECT_THROW(nimtb::engine::solve(rule, k.u, o), std::runtime_error);
            store.crash_at = SIZE_MAX;
            store.saves = 0;
            const Solution resumed = nimtb::engine::solve(rule, k.u, o);
            EXPECT_EQ(store.restored, crash + 1) << k.rule;
            EXPECT_EQ(store.saves, levels - crash - 1) << k.rule << ": it starts where it stopped";
            EXPECT_TRUE(same_bits(whole.value, resumed.value))
                << k.rule << " stopped after " << crash;
            EXPECT_TRUE(same_bits(whole.remoteness, resumed.remoteness)) << k.rule << " " << crash;
            EXPECT_EQ(whole.kernel, resumed.kernel) << k.rule;
            EXPECT_EQ(whole.brute_from_level, resumed.brute_from_level) << k.rule;
            EXPECT_EQ(whole.p_positions, resumed.p_positions);
        }
        // A store saved under another plan refuses.
        MemoryLevels other;
        other.key = "another plan";
        o.levels = &other;
        EXPECT_THROW(nimtb::engine::solve(rule, k.u, o), std::runtime_error) << k.rule;
    }
}

TEST(Solver, ReportsProgressToTheEnd) {
    SolveOptions o;
    uint64_t last = 0, calls = 0;
    o.progress = [&](uint64_t done, uint64_t total) {
        EXPECT_GE(done, last);
        EXPECT_EQ(total, 1771u);
        last = done;
        ++calls;
    };
    nimtb::engine::solve(Rule::nim(), Universe(3, 20), o);
    EXPECT_EQ(last, 1771u);
    EXPECT_GT(calls, 10u);
}

TEST(Solver, CancelsCleanlyFromAnotherThread) {
    std::atomic<bool> stop{false};
    SolveOptions o;
    o.cancel = &stop;
    o.progress = [&](uint64_t done, uint64_t) {
        if (done > 0) stop = true;  // as a signal handler or UI thread would
    };
    EXPECT_THROW(nimtb::engine::solve(Rule::nim(), Universe(4, 30), o), nimtb::Cancelled);
}

TEST(Solver, RefusesWhatDoesNotFitInMemory) {
    SolveOptions o;
    o.memory_limit = 1 << 20;
    o.kernel = Kernel::lines;
    try {
        nimtb::engine::solve(Rule::nim(), Universe(4, 63), o);
        FAIL() << "accepted";
    } catch (const nimtb::ResourceError& e) {
        // Two 8-bit arrays of C(67, 4) = 766480 positions, and the line
        // kernel's store: C(66, 3) = 45760 lines of one word and two 8-bit
        // remoteness numbers.
        const std::string m = e.what();
        EXPECT_NE(m.find("needs 1.9 MiB"), std::string::npos) << m;
        EXPECT_NE(m.find("only 1.0 MiB"), std::string::npos) << m;
    }
    o.kernel = Kernel::brute;  // the arrays alone
    try {
        nimtb::engine::solve(Rule::nim(), Universe(4, 63), o);
        FAIL() << "accepted";
    } catch (const nimtb::ResourceError& e) {
        EXPECT_NE(std::string(e.what()).find("needs 1.5 MiB"), std::string::npos) << e.what();
    }
    // Room for the arrays but not for the line store: automatic solves by
    // brute force.
    o.kernel = Kernel::automatic;
    o.memory_limit = 1'700'000;
    EXPECT_EQ(nimtb::engine::solve(Rule::nim(), Universe(4, 63), o).kernel, Kernel::brute);
}

TEST(Solver, SpragueGrundyMethodEqualsBruteForceInNormalPlay) {
    for (const char* rule : {"nim", "subtract:1,3,4", "subtract:2,5,7", "allbut:2"}) {
        SolveOptions o;
        o.method = SolveMethod::sprague_grundy;
        const Solution sg = nimtb::engine::solve(Rule::parse(rule), Universe(4, 15), o);
        const Solution brute = solve(rule, Convention::normal, 4, 15);
        EXPECT_TRUE(sg.remoteness.empty());
        ASSERT_EQ(sg.value.size(), brute.value.size());
        for (uint64_t r = 0; r < sg.value.size(); ++r) {
            ASSERT_EQ(sg.value.get(r), brute.value.get(r)) << rule << " at rank " << r;
        }
    }
}

TEST(Solver, SpragueGrundyMethodRefusesMisere) {
    SolveOptions o;
    o.method = SolveMethod::sprague_grundy;
    o.convention = Convention::misere;
    EXPECT_THROW(nimtb::engine::solve(Rule::nim(), Universe(3, 7), o), nimtb::InputError);
}
