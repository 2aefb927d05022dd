#include <gtest/gtest.h>

#include <set>

#include "engine/moves.h"
#include "reference.h"

using nimtb::engine::Heaps;
using nimtb::engine::MoveGenerator;
using nimtb::engine::Rule;
using nimtb::engine::Universe;

namespace {

void expect_moves_match_reference(const char* rule_text, unsigned k, uint32_t h) {
    const Rule rule = Rule::parse(rule_text);
    const Universe u(k, h);
    const MoveGenerator gen(rule, u);
    Heaps heaps(k, 0);
    do {
        std::set<uint64_t> expected;
        for (const Heaps& child : nimtb::test::reference_children(rule, heaps))
            expected.insert(u.rank(child));
        const auto moves = gen.moves(heaps);
        std::set<uint64_t> got;
        for (const auto& m : moves) {
            got.insert(m.child_rank);
            // The move's description leads to the child it names.
            Heaps child = heaps;
            auto it = std::find(child.begin(), child.end(), m.heap_size);
            ASSERT_NE(it, child.end());
            *it -= m.amount;
            ASSERT_EQ(u.rank(u.normalise(child)), m.child_rank);
        }
        ASSERT_EQ(got.size(), moves.size()) << "a child listed twice at " << u.rank(heaps);
        ASSERT_EQ(got, expected) << rule_text << " at rank " << u.rank(heaps);
    } while (u.next(heaps));
}

}  // namespace

TEST(Moves, NimMatchesReference) {
    expect_moves_match_reference("nim", 1, 12);
    expect_moves_match_reference("nim", 3, 8);
    expect_moves_match_reference("nim", 5, 5);
}

TEST(Moves, SubtractionGameMatchesReference) {
    expect_moves_match_reference("subtract:1,3,4", 4, 9);
    expect_moves_match_reference("subtract:1,3,4", 2, 15);
}

TEST(Moves, MatchesGameMatchesReference) {
    expect_moves_match_reference("subtract:1-3", 4, 8);
}

TEST(Moves, AllButMatchesReference) {
    expect_moves_match_reference("allbut:2", 4, 8);
}

TEST(Moves, EqualHeapsGiveEachChildOnce) {
    const Universe u(2, 5);
    const MoveGenerator gen(Rule::nim(), u);
    EXPECT_EQ(gen.moves(Heaps{5, 5}).size(), 5u);
    EXPECT_EQ(gen.moves(Heaps{0, 0}).size(), 0u);
}
