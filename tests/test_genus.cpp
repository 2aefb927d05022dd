// Conway's genus against the definition: γn of a heap is the misère Grundy
// value of the heap plus n nim-heaps of size 2, here the value the reference
// solver (tests/reference.h: every move of every heap, no lemma, no
// reduction) gives the position, the *2 being a heap of the rule that is
// the game *2 itself.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/quotients/genus.h"
#include "reference.h"

namespace nimtb::engine {
namespace {

// γ0 .. γ(count - 1) of a heap from its written superscript, whose last two
// values alternate for ever.
std::vector<uint32_t> expand(const Genus& g, size_t count) {
    std::vector<uint32_t> out = g.superscript;
    while (out.size() < count) out.push_back(out[out.size() - 2]);
    out.resize(count);
    return out;
}

struct Case {
    const char* rule;
    uint32_t star2;     // a heap of the rule that is the game *2
    uint32_t max_heap;  // heaps checked
    size_t copies;      // γ0 .. γ(copies - 1) checked
};

TEST(Genus, EveryHeapIsTheDefinitionsValueOfItsSumsWithStarTwos) {
    // Kayles' heap 2 is {0, *1} = *2; Dawson's Kayles' and 4.7's heap 4 is
    // {heap 2, heaps 1 + 1} = {*1, 0}. 4.7 splits heaps without taking a
    // token, so its positions of one number of tokens depend on each other.
    for (const Case c : {Case{"kayles", 2, 30, 6}, Case{"dawsons-kayles", 4, 22, 6},
                         Case{"octal:4.7", 4, 18, 6}}) {
        const Rule rule = Rule::parse(c.rule);
        const GenusTable t = genus_of_heaps(rule, c.max_heap);
        ASSERT_EQ(t.heaps.size(), c.max_heap + 1);
        test::ReferenceSolver misere(rule, Convention::misere), normal(rule, Convention::normal);
        for (uint32_t h = 0; h <= c.max_heap; ++h) {
            SCOPED_TRACE(fmt::format("{} heap {}", c.rule, h));
            const Heaps heap = h ? Heaps{h} : Heaps{};
            EXPECT_EQ(t.heaps[h].normal, normal.solve(heap).value);
            const std::vector<uint32_t> gammas = expand(t.heaps[h], c.copies);
            Heaps position = heap;
            for (size_t n = 0; n < c.copies; ++n) {
                EXPECT_EQ(gammas[n], misere.solve(position).value) << "γ" << n;
                position.push_back(c.star2);
            }
        }
    }
}

TEST(Genus, SplittingRulesReachHeapsOfSumsTheyCouldNotHold) {
    // The positions are the sums of heaps that are no *0, *1 or *2: Kayles
    // to heap 60 needs 251,247 of them where all sums would be 6,639,349.
    const GenusTable t = genus_of_heaps(Rule::parse("kayles"), 60);
    EXPECT_TRUE(t.splits);
    EXPECT_EQ(t.positions, 251'247u);
    EXPECT_EQ(t.alternates_from, 1u);
    EXPECT_EQ(t.heaps[5].text(), "4^{146}");
    GenusOptions few;
    few.max_positions = 1000;
    try {
        genus_of_heaps(Rule::parse("kayles"), 60, few);
        FAIL() << "held more positions than allowed";
    } catch (const ResourceError& e) {
        EXPECT_NE(std::string(e.what()).find("which reach heap 26"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace nimtb::engine
