#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "engine/checks/verify.h"
#include "engine/sequences/period.h"
#include "solve_universe.h"

using nimtb::engine::ArraySource;
using nimtb::engine::Basis;
using nimtb::engine::Convention;
using nimtb::engine::Periodicity;
using nimtb::engine::Rule;
using nimtb::engine::Universe;

namespace {

// g(0..n) of a subtraction game straight from the definition, without the
// solver: the mex of the values reachable by an amount of `set`.
std::vector<uint32_t> subtraction_values(const std::vector<uint32_t>& set, uint32_t n,
                                         Convention c) {
    std::vector<uint32_t> g;
    for (uint32_t h = 0; h <= n; ++h) {
        std::vector<bool> seen(set.size() + 2, false);
        bool any = false;
        for (uint32_t s : set) {
            if (s <= h) {
                seen[g[h - s]] = true;
                any = true;
            }
        }
        uint32_t mex = 0;
        while (seen[mex]) ++mex;
        g.push_back(any ? mex : (c == Convention::normal ? 0 : 1));
    }
    return g;
}

struct Truth {
    uint32_t preperiod, period;
};

// The period of a long sequence, found by looking at it whole: the smallest
// p, then the smallest n0, with g(n) = g(n+p) to the end, over at least 20
// periods. Independent of the window proof under test.
Truth true_period(const std::vector<uint32_t>& g) {
    const uint32_t n = static_cast<uint32_t>(g.size());
    for (uint32_t p = 1; 21 * p < n; ++p) {
        for (uint32_t n0 = 0; n0 + 21 * p < n; ++n0) {
            bool holds = true;
            for (uint32_t i = n0; i + p < n && holds; ++i) holds = g[i] == g[i + p];
            if (holds) return {n0, p};
        }
    }
    ADD_FAILURE() << "no period within " << n;
    return {0, 0};
}

Periodicity verified_period(const char* rule, Convention c, uint32_t h) {
    const auto s = nimtb::test::solve(rule, c, 1, h);
    ArraySource source(s.value, s.remoteness);
    return nimtb::engine::verify(s.rule, c, Universe(1, h), source).single_heaps.period;
}

}  // namespace

// The cases the issue names, through a solved table and verify.
TEST(Periodicity, NamedSubtractionGames) {
    Periodicity p = verified_period("subtract:2,4,7", Convention::normal, 60);
    EXPECT_EQ(p.basis, Basis::proof);
    EXPECT_EQ(p.preperiod, 8u);
    EXPECT_EQ(p.period, 3u);

    p = verified_period("subtract:2,5,7", Convention::normal, 80);
    EXPECT_EQ(p.basis, Basis::proof);
    EXPECT_EQ(p.preperiod, 0u);
    EXPECT_EQ(p.period, 22u);

    p = verified_period("subtract:2,5,7", Convention::normal, 20);
    EXPECT_EQ(p.basis, Basis::none);
    EXPECT_EQ(p.period, 0u);
    EXPECT_NE(p.explanation.find("no period proven for H <= 20"), std::string::npos)
        << p.explanation;

    // Too short a table for subtract:1,3,4's period 7 (it needs H >= 10).
    p = verified_period("subtract:1,3,4", Convention::normal, 9);
    EXPECT_EQ(p.basis, Basis::none);
    p = verified_period("subtract:1,3,4", Convention::normal, 10);
    EXPECT_EQ(p.basis, Basis::proof);
    EXPECT_EQ(p.period, 7u);
}

// Many sets, both conventions: the proof is found exactly at the smallest
// table that can hold its window, and it names the true period; one heap
// less and nothing is claimed.
TEST(Periodicity, ProvenExactlyWhereTheWindowFits) {
    const std::vector<std::vector<uint32_t>> sets = {
        {1, 2},    {1, 4},        {2, 3, 6}, {3, 5, 8},  {1, 5, 6}, {4, 7, 9},
        {2, 4, 7}, {1, 2, 5, 10}, {2, 7, 9}, {3, 4, 11}, {2, 5, 6}, {3, 6, 10}};
    for (const Convention c : {Convention::normal, Convention::misere}) {
        for (const auto& set : sets) {
            std::string text = "subtract:";
            for (uint32_t s : set) text += std::to_string(s) + (s == set.back() ? "" : ",");
            const Rule rule = Rule::parse(text);
            const std::vector<uint32_t> g = subtraction_values(set, 5000, c);
            const Truth t = true_period(g);
            const uint32_t largest = set.back();
            const uint32_t needed = t.preperiod + t.period + largest - 1;
            SCOPED_TRACE(text + (c == Convention::normal ? " normal" : " misere"));

            const Periodicity at = nimtb::engine::find_period(
                rule, c, std::span<const uint32_t>(g.data(), needed + 1));
            EXPECT_EQ(at.basis, Basis::proof);
            EXPECT_EQ(at.preperiod, t.preperiod);
            EXPECT_EQ(at.period, t.period);

            const Periodicity below =
                nimtb::engine::find_period(rule, c, std::span<const uint32_t>(g.data(), needed));
            EXPECT_EQ(below.basis, Basis::none);
            EXPECT_EQ(below.period, 0u);
            if (below.needed_max_heap) {
                EXPECT_GE(*below.needed_max_heap, needed);
            }

            // And the solver's own table agrees, through verify.
            const Periodicity solved = verified_period(text.c_str(), c, needed + 5);
            EXPECT_EQ(solved.basis, Basis::proof);
            EXPECT_EQ(solved.preperiod, t.preperiod);
            EXPECT_EQ(solved.period, t.period);
        }
    }
}

// Nim and all-but rules are arithmetic-periodic: reported as observed, never proven.
TEST(Periodicity, ArithmeticPeriodsAreObservations) {
    Periodicity p = verified_period("nim", Convention::normal, 30);
    EXPECT_EQ(p.basis, Basis::observation);
    EXPECT_EQ(p.preperiod, 0u);
    EXPECT_EQ(p.period, 1u);
    EXPECT_EQ(p.saltus, 1u);

    // Misere Nim: 1 0 2 3 4 ...
    p = verified_period("nim", Convention::misere, 30);
    EXPECT_EQ(p.basis, Basis::observation);
    EXPECT_EQ(p.preperiod, 2u);
    EXPECT_EQ(p.period, 1u);
    EXPECT_EQ(p.saltus, 1u);

    // allbut:2: 0 1 0 2 3 ... observed as g(n+p) = g(n) + s.
    p = verified_period("allbut:2", Convention::normal, 60);
    EXPECT_EQ(p.basis, Basis::observation);
    EXPECT_GT(p.saltus, 0u);
    EXPECT_NE(p.explanation.find("not proven"), std::string::npos);
}

// The observed pattern is the definition's: the smallest period, then the
// smallest preperiod, shown over three periods and eight heaps, holding
// from the preperiod to the table's end. Checked against that definition
// scanned pair by pair, on sequences with a planted pattern, a broken one,
// and noise (grundy's rule takes the observation path).
TEST(Periodicity, ObservedPatternIsTheDefinitions) {
    const Rule grundy = Rule::parse("grundy");
    uint64_t state = 12345;
    auto next = [&state](uint32_t bound) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<uint32_t>((state >> 33) % bound);
    };
    for (int trial = 0; trial < 400; ++trial) {
        const uint32_t n = 8 + next(120), p = 1 + next(12), n0 = next(n), s = next(3);
        std::vector<uint32_t> g(n);
        for (uint32_t h = 0; h < n; ++h) g[h] = h < n0 + p ? next(6) : g[h - p] + s;
        if (trial % 3 == 0) g[next(n)] += 1 + next(2);  // a break anywhere
        // The definition, scanned directly.
        std::optional<std::array<uint32_t, 3>> want;
        for (uint32_t q = 1; !want && std::max(3 * q, 8u) <= n; ++q) {
            for (uint32_t m = 0; !want && m + std::max(3 * q, 8u) <= n; ++m) {
                if (g[m + q] < g[m]) continue;
                const uint32_t d = g[m + q] - g[m];
                bool holds = true;
                for (uint32_t h = m; holds && h + q < n; ++h) holds = g[h + q] == g[h] + d;
                if (holds) want = std::array<uint32_t, 3>{m, q, d};
            }
        }
        const Periodicity got = nimtb::engine::find_period(grundy, Convention::normal, g);
        SCOPED_TRACE(trial);
        if (!want) {
            EXPECT_EQ(got.basis, Basis::none);
            continue;
        }
        EXPECT_EQ(got.basis, Basis::observation);
        EXPECT_EQ(got.preperiod, (*want)[0]);
        EXPECT_EQ(got.period, (*want)[1]);
        EXPECT_EQ(got.saltus, (*want)[2]);
    }
}
