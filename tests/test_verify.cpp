#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "engine/checks/verify.h"
#include "solve_universe.h"

using nimtb::engine::ArraySource;
using nimtb::engine::Convention;
using nimtb::engine::Rule;
using nimtb::engine::Universe;
using nimtb::engine::VerifyReport;
using nimtb::test::solve;

namespace {

// The same arrays, but declared unsafe for threads: verify takes its serial,
// streaming path.
class SerialSource : public ArraySource {
  public:
    using ArraySource::ArraySource;
    bool thread_safe() const override { return false; }
};

const nimtb::engine::Check& check(const VerifyReport& r, const std::string& name) {
    for (const auto& c : r.checks) {
        if (c.name == name) return c;
    }
    throw std::logic_error("no check " + name);
}

void expect_same(const VerifyReport& a, const VerifyReport& b) {
    EXPECT_EQ(a.p_positions, b.p_positions);
    EXPECT_EQ(a.value_histogram, b.value_histogram);
    EXPECT_EQ(a.remoteness_histogram, b.remoteness_histogram);
    ASSERT_EQ(a.checks.size(), b.checks.size());
    for (size_t i = 0; i < a.checks.size(); ++i) {
        EXPECT_EQ(a.checks[i].tested, b.checks[i].tested) << a.checks[i].name;
        EXPECT_EQ(a.checks[i].held, b.checks[i].held) << a.checks[i].name;
        ASSERT_EQ(a.checks[i].counterexamples.size(), b.checks[i].counterexamples.size());
        for (size_t j = 0; j < a.checks[i].counterexamples.size(); ++j) {
            EXPECT_EQ(a.checks[i].counterexamples[j].rank, b.checks[i].counterexamples[j].rank);
        }
    }
}

// Verifies the arrays in parallel and by the serial, streaming path, expects
// the same report, and returns it.
VerifyReport verify_both_ways(const nimtb::engine::Solution& s, Convention c, const Universe& u) {
    ArraySource parallel(s.value, s.remoteness);
    SerialSource serial(s.value, s.remoteness);
    const VerifyReport a = nimtb::engine::verify(s.rule, c, u, parallel);
    expect_same(a, nimtb::engine::verify(s.rule, c, u, serial));
    return a;
}

}  // namespace

TEST(Verify, TheoremsHoldOnSolvedTables) {
    for (Convention c : {Convention::normal, Convention::misere}) {
        const auto s = solve("nim", c, 4, 12);
        ArraySource source(s.value, s.remoteness);
        const VerifyReport r = nimtb::engine::verify(s.rule, c, Universe(4, 12), source);
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(check(r, "consistency").held, s.positions);
        EXPECT_EQ(check(r, c == Convention::normal ? "bouton" : "misere-nim").held, s.positions);
        EXPECT_EQ(r.p_positions, s.p_positions);
    }
}

TEST(Verify, FindsATamperedValueAndTheSmallestCounterexamples) {
    auto s = solve("nim", Convention::normal, 3, 15);
    const Universe u(3, 15);
    const uint64_t rank = u.rank(nimtb::engine::Heaps{3, 4, 5});
    s.value.data<uint8_t>()[rank] = 3;  // really 2
    ArraySource source(s.value, s.remoteness);
    const VerifyReport r = nimtb::engine::verify(s.rule, Convention::normal, u, source);
    EXPECT_FALSE(r.ok());
    const auto& bouton = check(r, "bouton");
    EXPECT_EQ(bouton.tested - bouton.held, 1u);
    ASSERT_EQ(bouton.counterexamples.size(), 1u);
    EXPECT_EQ(bouton.counterexamples[0].heaps, (nimtb::engine::Heaps{3, 4, 5}));
    EXPECT_EQ(bouton.counterexamples[0].stored, 3u);
    EXPECT_EQ(bouton.counterexamples[0].expected, 2u);
    // Its parents now see a wrong child too: the consistency check names the
    // smallest positions first.
    const auto& consistency = check(r, "consistency");
    ASSERT_FALSE(consistency.counterexamples.empty());
    EXPECT_EQ(consistency.counterexamples[0].heaps, (nimtb::engine::Heaps{3, 4, 5}));
}

TEST(Verify, SerialAndParallelReportsAreIdentical) {
    auto s = solve("subtract:1,3,4", Convention::misere, 4, 20);
    for (uint64_t r : {17u, 900u, 5000u}) s.value.data<uint8_t>()[r] ^= 1;  // a few wrong entries
    const VerifyReport a = verify_both_ways(s, Convention::misere, Universe(4, 20));
    EXPECT_FALSE(a.ok());
    EXPECT_TRUE(check(a, "misere-rule-on-values").applies);
}

// A table large enough for several batches of parallel slices: each
// counterexample is listed once, smallest first, as the serial pass lists them.
TEST(Verify, CounterexamplesAreListedOnceAcrossBatches) {
    const Universe u = Universe::total_bounded(44);
    ASSERT_GT(u.size(), 16u * (1u << 14));  // more than one batch of 16 slices
    nimtb::engine::SolveOptions o;
    o.convention = Convention::misere;
    const auto s = nimtb::engine::solve(Rule::parse("octal:0.77"), u, o);
    const VerifyReport a = verify_both_ways(s, Convention::misere, u);
    EXPECT_TRUE(a.ok());
    const auto& tame = check(a, "misere-rule-on-values");
    ASSERT_EQ(tame.counterexamples.size(), nimtb::engine::MAX_COUNTEREXAMPLES);
    std::set<uint64_t> ranks;
    for (const auto& ex : tame.counterexamples) EXPECT_TRUE(ranks.insert(ex.rank).second);
    // Misere Kayles is not tame: 1 5 is a P-position, where the misere-Nim
    // rule on normal-play values (1 and 4) predicts a win for the player to move.
    EXPECT_EQ(tame.counterexamples[0].heaps, (nimtb::engine::Heaps{1, 5}));
}

// The line check of Nim tables against the plain check (every child looked
// up): the same report on correct tables and on tables with values and
// remoteness changed here and there, in both conventions, 8- and 16-bit.
TEST(Verify, LineCheckAgreesWithThePlainCheck) {
    uint32_t x = 7;
    auto random = [&] {
        x = x * 1103515245u + 12345u;
        return x >> 8;
    };
    for (Convention c : {Convention::normal, Convention::misere}) {
        for (const auto& [k, h] :
             {std::pair{1u, 20u}, std::pair{3u, 14u}, std::pair{4u, 9u}, std::pair{2u, 150u}}) {
            auto s = solve("nim", c, k, h);
            const Universe u(k, h);
            for (int round = 0; round < 4; ++round) {
                ArraySource source(s.value, s.remoteness);
                const VerifyReport lines = nimtb::engine::verify(s.rule, c, u, source, {}, true);
                const VerifyReport plain = nimtb::engine::verify(s.rule, c, u, source, {}, false);
                expect_same(lines, plain);
                EXPECT_EQ(lines.ok(), round == 0) << k << " " << h;
                // Damage two entries for the next round.
                const uint64_t a = random() % s.positions, b = random() % s.positions;
                if (s.value.bits() == 8) {
                    s.value.data<uint8_t>()[a] ^= static_cast<uint8_t>(1 + random() % 3);
                } else {
                    s.value.data<uint16_t>()[a] ^= static_cast<uint16_t>(1 + random() % 3);
                }
                if (s.remoteness.bits() == 8) {
                    s.remoteness.data<uint8_t>()[b] += 2;
                } else {
                    s.remoteness.data<uint16_t>()[b] += 2;
                }
            }
        }
    }
}

// The mutation test of the issue: one value, then one remoteness, changed in
// a table of 120 million positions; verify names that position first.
// (Named VerifyLarge: the sanitizer runs leave it out for its size.)
TEST(VerifyLarge, NamesAChangedEntryInAHundredMillionPositions) {
    const Universe u(6, 63);
    ASSERT_GE(u.size(), 100'000'000u);
    nimtb::engine::SolveOptions o;
    o.convention = Convention::misere;
    auto s = nimtb::engine::solve(Rule::nim(), u, o);
    const nimtb::engine::Heaps position{5, 17, 22, 40, 41, 58};
    const uint64_t rank = u.rank(position);
    ArraySource source(s.value, s.remoteness);
    auto first_failure = [&] {
        const VerifyReport r = nimtb::engine::verify(s.rule, Convention::misere, u, source);
        const auto& consistency = check(r, "consistency");
        EXPECT_FALSE(r.ok());
        EXPECT_FALSE(consistency.counterexamples.empty());
        return consistency.counterexamples.empty() ? nimtb::engine::Counterexample{}
                                                   : consistency.counterexamples.front();
    };
    const uint8_t value = s.value.data<uint8_t>()[rank];
    s.value.data<uint8_t>()[rank] = static_cast<uint8_t>(value ^ 1);
    auto ex = first_failure();
    EXPECT_EQ(ex.heaps, position);
    EXPECT_EQ(ex.stored, value ^ 1u);
    EXPECT_EQ(ex.expected, value);
    s.value.data<uint8_t>()[rank] = value;
    const uint16_t remoteness = s.remoteness.data<uint16_t>()[rank];
    s.remoteness.data<uint16_t>()[rank] = static_cast<uint16_t>(remoteness + 2);
    ex = first_failure();
    EXPECT_EQ(ex.heaps, position);
    EXPECT_EQ(ex.stored, remoteness + 2u);
    EXPECT_EQ(ex.expected, remoteness);
}

// Misère tables of one-heap rules: the quotient (computed from the rules)
// predicts every position; a table with one value changed is refused at it.
TEST(Verify, MisereQuotientPredictsEveryPositionOfMisereTables) {
    for (const char* rule : {"subtract:1,3,4", "nim"}) {
        auto s = solve(rule, Convention::misere, 3, 12);
        const VerifyReport a = verify_both_ways(s, Convention::misere, Universe(3, 12));
        const auto& q = check(a, "misere-quotient");
        ASSERT_TRUE(q.applies) << rule << ": " << q.description;
        EXPECT_EQ(q.held, q.tested) << rule;
        EXPECT_EQ(q.tested, a.positions);
    }
    const Universe u = Universe::total_bounded(18);
    nimtb::engine::SolveOptions o;
    o.convention = Convention::misere;
    auto s = nimtb::engine::solve(Rule::parse("octal:0.07"), u, o);
    EXPECT_TRUE(check(verify_both_ways(s, Convention::misere, u), "misere-quotient").passed());
    const uint64_t r = u.rank(u.normalise(nimtb::engine::Heaps{3, 6, 9}));
    s.value.data<uint8_t>()[r] = s.value.data<uint8_t>()[r] == 0 ? 1 : 0;  // outcome flipped
    const VerifyReport damaged = verify_both_ways(s, Convention::misere, u);
    const auto& q = check(damaged, "misere-quotient");
    ASSERT_EQ(q.tested - q.held, 1u);
    EXPECT_EQ(q.counterexamples[0].rank, r);
    // Normal play, and rules on several heaps: not applicable.
    auto n = solve("subtract:1,3,4", Convention::normal, 3, 12);
    EXPECT_FALSE(
        check(verify_both_ways(n, Convention::normal, Universe(3, 12)), "misere-quotient").applies);
}

// The theorems go along runs of positions that differ in the smallest heap
// only: every 7th entry of two heaps or more changed (its outcome flipped), in a box and in a
// total-bounded universe, is named, and no other; the smallest of them are
// the counterexamples, with their heaps and both answers, in both passes.
TEST(Verify, TheoremsNameExactlyTheChangedEntries) {
    struct Case {
        const char* rule;
        Convention convention;
        const char* check;
        bool outcome;  // the check compares outcomes, not values
    };
    const Case cases[] = {{"nim", Convention::normal, "bouton", false},
                          {"nim", Convention::misere, "misere-nim", true},
                          {"subtract:1,3,4", Convention::normal, "sprague-grundy", false},
                          {"subtract:1,3,4", Convention::misere, "misere-quotient", true}};
    for (const Universe& u : {Universe(4, 12), Universe::total_bounded(14, 4)}) {
        for (const Case& c : cases) {
            SCOPED_TRACE(std::string(c.rule) + " " + c.check + " in " + u.describe());
            nimtb::engine::SolveOptions o;
            o.convention = c.convention;
            auto s = nimtb::engine::solve(Rule::parse(c.rule), u, o);
            uint8_t* v = s.value.data<uint8_t>();
            std::vector<nimtb::engine::Counterexample> changed;
            for (uint64_t r = 3; r < u.size(); r += 7) {
                nimtb::engine::Heaps heaps;
                for (uint32_t h : u.unrank(r)) {
                    if (h) heaps.push_back(h);
                }
                // Single heaps left as they are: Sprague-Grundy's check reads them.
                if (heaps.size() < 2) continue;
                const uint8_t was = v[r];
                v[r] = was == 0 ? 1 : 0;
                changed.push_back({heaps, r, c.outcome ? (v[r] == 0 ? 0u : 1u) : v[r],
                                   c.outcome ? (was == 0 ? 0u : 1u) : was});
            }
            std::stable_sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) {
                const auto tokens = [](const auto& e) {
                    return std::accumulate(e.heaps.begin(), e.heaps.end(), uint64_t{0});
                };
                return tokens(a) < tokens(b);
            });
            const VerifyReport report = verify_both_ways(s, c.convention, u);
            const auto& named = check(report, c.check);
            ASSERT_TRUE(named.applies);
            EXPECT_EQ(named.tested, u.size());
            EXPECT_EQ(named.tested - named.held, changed.size());
            ASSERT_EQ(named.counterexamples.size(), nimtb::engine::MAX_COUNTEREXAMPLES);
            for (size_t i = 0; i < named.counterexamples.size(); ++i) {
                const auto& got = named.counterexamples[i];
                EXPECT_EQ(got.rank, changed[i].rank);
                EXPECT_EQ(got.heaps, changed[i].heaps);
                EXPECT_EQ(got.stored, changed[i].stored);
                EXPECT_EQ(got.expected, changed[i].expected);
            }
        }
    }
}
