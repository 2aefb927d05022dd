#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "engine/game/universe.h"

using nimtb::InputError;
using nimtb::ResourceError;
using nimtb::engine::Heaps;
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

TEST(Bounds, AreValuesCheckedOnceAndCarriedByTheUniverse) {
    using nimtb::engine::Bounds;
    const Bounds box = Bounds::box(3, 7), total = Bounds::total(12, 20);
    EXPECT_EQ(box.describe(), "at most 3 heaps of at most 7 tokens");
    EXPECT_EQ(total.max_heaps(), 12u);  // no more heaps than tokens
    EXPECT_EQ(total.describe(), "at most 12 tokens in all");
    EXPECT_EQ(Universe(box).bounds(), box);
    EXPECT_EQ(Universe(total).bounds(), total);
    EXPECT_EQ(Universe(Bounds::total(12, 3)).bounds(), Bounds::total(12, 3));
    EXPECT_NE(box, Bounds::box(3, 8));
    EXPECT_EQ(Universe(box).size(), Universe(3, 7).size());
    EXPECT_THROW(Bounds::box(65, 1), ResourceError);
    EXPECT_THROW(Bounds::box(2, 1'000'001), ResourceError);
    EXPECT_THROW(Bounds::total(129), ResourceError);
    EXPECT_THROW(Bounds::total(0), InputError);
    EXPECT_THROW(Bounds::box(0, 3), InputError);
}

TEST(Universe, RefusesCountsBeyond64Bits) {
    try {
        Universe(40, 1000);
        FAIL() << "accepted";
    } catch (const nimtb::ResourceError& e) {  // too large, as for memory: exit 1
        EXPECT_NE(std::string(e.what()).find("more than 2^64 positions"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(Universe(0, 5), InputError);
    EXPECT_THROW(Universe(65, 1), ResourceError);
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
    expect_position_refused(u, "1 2 3 4", "the position has 4 non-empty heaps");
    expect_position_refused(u, "3,,4", "heap 2 is empty between commas");
    expect_position_refused(u, ",3 4", "heap 1 is empty between commas");
    expect_position_refused(u, "3,4,", "heap 3 is empty between commas");
    EXPECT_EQ(u.normalise(nimtb::engine::parse_heaps(" 3 , 4,5 ")), (Heaps{3, 4, 5}));
    const Universe n(nimtb::engine::Bounds::total(12));
    expect_position_refused(n, "6 6 1", "the heaps hold 13 tokens in all");
    // holds(): what normalise() accepts.
    EXPECT_TRUE(u.holds(Heaps{0, 7, 3, 0, 1}));
    EXPECT_FALSE(u.holds(Heaps{1, 2, 3, 4}));
    EXPECT_FALSE(u.holds(Heaps{8}));
    EXPECT_TRUE(n.holds(Heaps{6, 6}));
    EXPECT_FALSE(n.holds(Heaps{6, 6, 1}));
    expect_position_refused(u, "1 2 3 4", "at most 3 heaps of at most 7 tokens");
    expect_position_refused(u, "3 8", "heap 2 has 8 tokens");
    expect_position_refused(u, "99999999999", "too large");
    EXPECT_EQ(u.normalise(nimtb::engine::parse_heaps("0 1 0 2 3")), (Heaps{1, 2, 3}));
}

// Every multiset of at most k parts with sum <= n, listed independently in
// colex order (largest heap compared first), against rank, unrank and next.
TEST(TotalBounded, RankUnrankNextFollowColexOrderOfEveryMember) {
    for (uint32_t n = 1; n <= 12; ++n) {
        for (unsigned k : {1u, 2u, 3u, 5u, 0u}) {
            const Universe u = Universe::total_bounded(n, k);
            const unsigned kk = u.max_heaps();
            ASSERT_EQ(kk, k == 0 ? n : std::min(k, n));
            std::vector<Heaps> members;
            Heaps a(kk, 0);
            // Every padded ascending vector with entries <= n, filtered.
            std::function<void(unsigned, uint32_t)> fill = [&](unsigned i, uint32_t lo) {
                if (i == kk) {
                    uint32_t sum = 0;
                    for (uint32_t x : a) sum += x;
                    if (sum <= n) members.push_back(a);
                    return;
                }
                for (uint32_t x = lo; x <= n; ++x) {
                    a[i] = x;
                    fill(i + 1, x);
                }
            };
            fill(0, 0);
            std::sort(members.begin(), members.end(), [](const Heaps& x, const Heaps& y) {
                return std::lexicographical_compare(x.rbegin(), x.rend(), y.rbegin(), y.rend());
            });
            ASSERT_EQ(u.size(), members.size()) << "n=" << n << " k=" << k;
            Heaps heaps(kk, 0);
            for (uint64_t r = 0; r < members.size(); ++r) {
                ASSERT_EQ(heaps, members[r]) << "n=" << n << " k=" << k << " r=" << r;
                ASSERT_EQ(u.rank(heaps), r);
                ASSERT_EQ(u.unrank(r), heaps);
                ASSERT_EQ(u.next(heaps), r + 1 < members.size());
            }
        }
    }
}

TEST(TotalBounded, CountsPartitionsAndRefusesTooMuch) {
    // Partitions of 0..10 summed: 1+1+2+3+5+7+11+15+22+30+42.
    EXPECT_EQ(Universe::total_bounded(10).size(), 139u);
    EXPECT_EQ(Universe::total_bounded(10).describe(), "at most 10 tokens in all");
    EXPECT_EQ(Universe::total_bounded(10, 3).describe(),
              "at most 10 tokens in all, on at most 3 heaps");
    EXPECT_EQ(Universe::total_bounded(10).index_name(), std::string("colex-total-v1"));
    const Universe u = Universe::total_bounded(10, 3);
    EXPECT_THROW(u.normalise(Heaps{5, 6}), InputError);
    EXPECT_THROW(u.normalise(Heaps{1, 1, 1, 1}), InputError);
    EXPECT_EQ(u.normalise(Heaps{5, 0, 5}), (Heaps{0, 5, 5}));
    EXPECT_THROW(Universe::total_bounded(0), InputError);
    EXPECT_THROW(Universe::total_bounded(Universe::MAX_TOTAL + 1), ResourceError);
    // The compact rank (non-empty heaps only) equals the padded one.
    const Heaps padded = u.normalise(Heaps{2, 5});
    const uint32_t compact[] = {2, 5};
    EXPECT_EQ(u.rank_compact(compact, 2), u.rank(padded));
}
