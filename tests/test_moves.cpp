#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/game/move_generator.h"
#include "engine/game/moves.h"
#include "engine/game/total_children.h"
#include "reference.h"

using nimtb::engine::Heaps;
using nimtb::engine::MoveGenerator;
using nimtb::engine::Rule;
using nimtb::engine::Universe;

namespace {

// Every position of `u`: the generator's children are exactly the
// reference's, each once, and the fast child ranks (what verify reads) are
// the same set.
void expect_moves_match_reference(const char* rule_text, const Universe& u) {
    const Rule rule = Rule::parse(rule_text);
    MoveGenerator gen(rule, u);
    Heaps heaps(u.max_heaps(), 0);
    std::vector<uint64_t> fast;
    do {
        std::set<uint64_t> expected;
        for (const Heaps& child : nimtb::test::reference_children(rule, heaps))
            expected.insert(u.rank(u.normalise(child)));
        const auto moves = gen.moves(heaps);
        std::set<uint64_t> got;
        // A child is listed once per shape of the move (the sizes of the heaps it changes):
        // Wythoff's take from both beside a take from one that leaves the same position.
        std::set<std::pair<uint64_t, Heaps>> shapes;
        for (const auto& m : moves) {
            got.insert(m.child_rank);
            ASSERT_EQ(u.rank(u.normalise(m.result)), m.child_rank);  // the result is the child
            ASSERT_LT(m.child_rank, u.rank(heaps));                  // colex-smaller
            Heaps changed;
            for (size_t i = 0; i < heaps.size(); ++i)
                if (i >= m.result.size() || m.result[i] != heaps[i]) changed.push_back(heaps[i]);
            std::sort(changed.begin(), changed.end());
            ASSERT_TRUE(shapes.insert({m.child_rank, changed}).second)
                << "a move listed twice at " << u.rank(heaps);
        }
        ASSERT_EQ(got, expected) << rule_text << " at rank " << u.rank(heaps);
        gen.child_ranks(heaps, fast);
        ASSERT_EQ(std::set<uint64_t>(fast.begin(), fast.end()), expected) << rule_text;
    } while (u.next(heaps));
}

}  // namespace

TEST(Moves, TakeFamiliesMatchReference) {
    expect_moves_match_reference("nim", Universe(1, 12));
    expect_moves_match_reference("nim", Universe(3, 8));
    expect_moves_match_reference("nim", Universe(5, 5));
    expect_moves_match_reference("subtract:1,3,4", Universe(4, 9));
    expect_moves_match_reference("subtract:1,3,4", Universe(2, 15));
    expect_moves_match_reference("subtract:1-3", Universe(4, 8));
    expect_moves_match_reference("allbut:2", Universe(4, 8));
    expect_moves_match_reference("subtract:1,3,4", Universe::total_bounded(14));
    expect_moves_match_reference("nim", Universe::total_bounded(12, 3));
}

TEST(Moves, SeveralHeapFamiliesMatchReference) {
    expect_moves_match_reference("wythoff", Universe(2, 12));
    expect_moves_match_reference("wythoff", Universe(3, 7));
    expect_moves_match_reference("moore:2", Universe(3, 6));
    expect_moves_match_reference("moore:3", Universe(4, 4));
    expect_moves_match_reference("wythoff", Universe::total_bounded(12));
}

TEST(Moves, TakeAndBreakFamiliesMatchReference) {
    for (const char* rule : {"octal:0.77", "octal:0.07", "octal:0.137", "octal:4.7", "octal:0.4",
                             "octal:0.6", "octal:0.71", "octal:0.1", "grundy", "lasker", "hex:0.F",
                             "hex:0.8", "hex:8.0", "hex:C.9A", "hex:0.0F"}) {
        expect_moves_match_reference(rule, Universe::total_bounded(13));
    }
    // Octal codes that never split fit a box.
    expect_moves_match_reference("octal:0.12", Universe(3, 9));
    expect_moves_match_reference("octal:0.31", Universe(3, 9));
}

// The solver's generator for one-heap families under a total: at every
// position, in rank order as the solver sweeps, the set of child ranks is
// the reference's, each child below the position.
void expect_total_children_match_reference(const char* rule_text, uint32_t total,
                                           unsigned max_heaps = 0) {
    const Rule rule = Rule::parse(rule_text);
    const Universe u = Universe::total_bounded(total, max_heaps);
    ASSERT_TRUE(nimtb::engine::TotalChildren::fits(rule, u));
    nimtb::engine::TotalChildren children(rule, u);
    Heaps heaps(u.max_heaps(), 0);
    uint64_t rank = 0;
    do {
        std::set<uint64_t> expected;
        for (const Heaps& child : nimtb::test::reference_children(rule, heaps))
            expected.insert(u.rank(u.normalise(child)));
        std::set<uint64_t> got;
        children(heaps.data(), rank, [&](uint64_t c) {
            EXPECT_LT(c, rank);
            got.insert(c);
        });
        ASSERT_EQ(got, expected) << rule_text << " at " << nimtb::engine::format_heaps(heaps);
        ++rank;
    } while (u.next(heaps));
    EXPECT_EQ(rank, u.size());
}

TEST(Moves, TotalChildrenMatchReference) {
    for (const char* rule :
         {"nim", "subtract:1,3,4", "allbut:2", "octal:0.77", "octal:0.07", "octal:0.137",
          "octal:4.7", "octal:0.4", "octal:0.6", "octal:0.71", "octal:0.1", "grundy", "lasker"}) {
        expect_total_children_match_reference(rule, 15);
    }
    expect_total_children_match_reference("octal:0.77", 1);
    // With a heap limit (moves that do not split): the parts above an
    // inserted heap move up one heap, which the index counts.
    for (unsigned heaps : {1u, 2u, 3u, 5u}) {
        for (const char* rule : {"nim", "subtract:1,3,4", "allbut:2", "octal:0.12", "octal:0.31"})
            expect_total_children_match_reference(rule, 16, heaps);
    }
    expect_total_children_match_reference("nim", 15, 14);
    // Starting anywhere: a copy set down at a rank in the middle of a sweep.
    for (const auto& [text, u] : {std::pair{"octal:0.77", Universe::total_bounded(12)},
                                  std::pair{"subtract:1,3,4", Universe::total_bounded(14, 3)}}) {
        const Rule rule = Rule::parse(text);
        for (uint64_t start : {uint64_t{0}, uint64_t{17}, u.size() / 2, u.size() - 1}) {
            nimtb::engine::TotalChildren fresh(rule, u);
            Heaps heaps = u.unrank(start);
            std::set<uint64_t> got, expected;
            fresh(heaps.data(), start, [&](uint64_t c) { got.insert(c); });
            for (const Heaps& child : nimtb::test::reference_children(rule, heaps))
                expected.insert(u.rank(u.normalise(child)));
            EXPECT_EQ(got, expected) << text << " from rank " << start;
        }
    }
    EXPECT_FALSE(nimtb::engine::TotalChildren::fits(Rule::nim(), Universe(3, 10)));
    EXPECT_TRUE(nimtb::engine::TotalChildren::fits(Rule::nim(), Universe::total_bounded(10, 3)));
    EXPECT_FALSE(nimtb::engine::TotalChildren::fits(Rule::parse("octal:0.77"),
                                                    Universe::total_bounded(10, 3)));
    EXPECT_FALSE(
        nimtb::engine::TotalChildren::fits(Rule::parse("wythoff"), Universe::total_bounded(10)));
}

TEST(Moves, EqualHeapsGiveEachChildOnce) {
    const Universe u(2, 5);
    const MoveGenerator gen(Rule::nim(), u);
    EXPECT_EQ(gen.moves(Heaps{5, 5}).size(), 5u);
    EXPECT_EQ(gen.moves(Heaps{0, 0}).size(), 0u);
    const MoveGenerator w(Rule::parse("wythoff"), u);
    EXPECT_EQ(w.moves(Heaps{2, 2}).size(), 4u);  // 1 2, 0 2, 1 1, 0 0
}

TEST(Moves, DescribedAsAPersonSeesThem) {
    using nimtb::engine::describe_move;
    EXPECT_EQ(describe_move(Heaps{3, 5}, Heaps{3, 3}), "take 2 from the 5");
    EXPECT_EQ(describe_move(Heaps{0, 7}, Heaps{0, 3, 4}), "split 7 into 3 and 4");
    EXPECT_EQ(describe_move(Heaps{7}, Heaps{4, 2}), "take 1 from the 7, leaving 2 and 4");
    EXPECT_EQ(describe_move(Heaps{5, 8}, Heaps{2, 5}), "take 3 from the 5 and from the 8");
    EXPECT_EQ(describe_move(Heaps{3, 5, 6}, Heaps{2, 3, 6}), "take 1 from the 3 and 2 from the 5");
}

TEST(Moves, UniversesThatCannotHoldASplitAreRefused) {
    using nimtb::engine::check_closed;
    EXPECT_THROW(check_closed(Rule::parse("octal:0.77"), Universe(4, 10)), nimtb::InputError);
    EXPECT_THROW(check_closed(Rule::parse("grundy"), Universe::total_bounded(20, 3)),
                 nimtb::InputError);
    EXPECT_NO_THROW(check_closed(Rule::parse("grundy"), Universe::total_bounded(20)));
    EXPECT_NO_THROW(check_closed(Rule::parse("wythoff"), Universe(2, 20)));
    EXPECT_NO_THROW(check_closed(Rule::parse("octal:0.12"), Universe(2, 20)));
}
