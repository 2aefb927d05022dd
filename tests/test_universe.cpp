#include <gtest/gtest.h>

#include <algorithm>

#include "engine/universe.h"

using nimtb::engine::Heaps;
using nimtb::InputError;
using nimtb::engine::Universe;

TEST(Universe, CountIsBinomial) {
    EXPECT_EQ(Universe(3, 7).size(), 120u);
    EXPECT_EQ(Universe(1, 0).size(), 1u);
    EXPECT_EQ(Universe(5, 63).size(), 10424128u);
    EXPECT_EQ(Universe(6, 40).size(), 9366819u);
}

TEST(Universe, RankUnrankNextAreOneBijectionOnAGrid) {
    for (unsigned k = 1; k <= 5; ++k) {
        for (uint32_t h = 0; h <= 9; ++h) {
            const Universe u(k, h);
            Heaps heaps(k, 0);
            for (uint64_t r = 0; r < u.size(); ++r) {
                ASSERT_TRUE(std::is_sorted(heaps.begin(), heaps.end()));
                ASSERT_LE(heaps.back(), h);
                ASSERT_EQ(u.rank(heaps), r) << "k=" << k << " h=" << h;
                ASSERT_EQ(u.unrank(r), heaps) << "k=" << k << " h=" << h;
                ASSERT_EQ(u.next(heaps), r + 1 < u.size());
            }
        }
    }
}

TEST(Universe, WorkedExampleRanks) {
    const Universe u(3, 7);
    EXPECT_EQ(u.rank(u.normalise(Heaps{3, 4, 5})), 48u);
    EXPECT_EQ(u.rank(u.normalise(Heaps{5, 3, 4})), 48u);
    EXPECT_EQ(u.rank(u.normalise(Heaps{0, 3, 4, 5})), 48u);
    EXPECT_EQ(u.rank(u.normalise(Heaps{1, 1, 1})), 3u);
    EXPECT_EQ(u.rank(u.normalise(Heaps{})), 0u);
    EXPECT_EQ(Universe(3, 10).rank(Heaps{2, 2, 7}), 89u);
}

TEST(Universe, EndRanksOfABillionPositionUniverse) {
    const Universe u(6, 200);  // C(206, 6) = 98,619,368,491 positions
    EXPECT_EQ(u.size(), 98619368491u);
    EXPECT_EQ(u.rank(Heaps{200, 200, 200, 200, 200, 200}), u.size() - 1);
    EXPECT_EQ(u.unrank(u.size() - 1), (Heaps{200, 200, 200, 200, 200, 200}));
    EXPECT_EQ(u.unrank(u.size() - 2), (Heaps{199, 200, 200, 200, 200, 200}));
    EXPECT_EQ(u.unrank(0), (Heaps{0, 0, 0, 0, 0, 0}));
    Heaps last(6, 200);
    EXPECT_FALSE(u.next(last));
    Heaps h = u.unrank(u.size() - 2);
    EXPECT_TRUE(u.next(h));
    EXPECT_EQ(h, (Heaps{200, 200, 200, 200, 200, 200}));
}

TEST(Universe, RefusesCountsBeyond64Bits) {
    try {
        Universe(40, 1000);
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("more than 2^64 positions"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(Universe(0, 5), InputError);
    EXPECT_THROW(Universe(65, 1), InputError);
}

TEST(Positions, ParseSpacesAndCommas) {
    EXPECT_EQ(nimtb::engine::parse_heaps("3 4 5"), (Heaps{3, 4, 5}));
    EXPECT_EQ(nimtb::engine::parse_heaps("3,4,5"), (Heaps{3, 4, 5}));
    EXPECT_EQ(nimtb::engine::parse_heaps(" 3, 4  5 "), (Heaps{3, 4, 5}));
    EXPECT_EQ(nimtb::engine::parse_heaps(""), Heaps{});
    EXPECT_EQ(nimtb::engine::format_heaps(Heaps{0, 3, 4}), "3 4");
    EXPECT_EQ(nimtb::engine::format_heaps(Heaps{0, 0}), "(empty)");
}

void expect_position_refused(const Universe& u, const char* text, const char* fragment) {
    try {
        u.normalise(nimtb::engine::parse_heaps(text));
        ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
            << "'" << text << "' gave: " << e.what();
    }
}

TEST(Positions, RefusalsNameTheOffendingHeap) {
    const Universe u(3, 7);
    expect_position_refused(u, "3 -4 5", "heap 2 ('-4') is negative");
    expect_position_refused(u, "3 x 5", "heap 2 ('x') is not a number");
    expect_position_refused(u, "3 4.5", "heap 2 ('4.5') is not a number");
    expect_position_refused(u, "1 2 3 4", "heap 4 is non-empty heap number 4");
    expect_position_refused(u, "1 2 3 4", "at most 3 heaps of at most 7 tokens");
    expect_position_refused(u, "3 8", "heap 2 has 8 tokens");
    expect_position_refused(u, "99999999999", "too large");
    EXPECT_EQ(u.normalise(nimtb::engine::parse_heaps("0 1 0 2 3")), (Heaps{1, 2, 3}));
}
