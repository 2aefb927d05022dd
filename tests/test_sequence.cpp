#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/checks/verify.h"
#include "engine/sequences/big_heaps.h"
#include "engine/sequences/pair_scan.h"
#include "engine/sequences/period.h"
#include "engine/sequences/reference_values.h"
#include "engine/sequences/runs.h"
#include "engine/sequences/sequence.h"
#include "reference.h"
#include "solve_universe.h"

using nimtb::engine::Basis;
using nimtb::engine::Convention;
using nimtb::engine::grundy_sequence;
using nimtb::engine::Rule;
using nimtb::engine::Universe;

namespace {

// Published sequences (OEIS, https://oeis.org), copied as printed there.
// A002186, Kayles (octal 0.77), n = 0..104.
const std::vector<uint32_t> KAYLES = {
    0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2,
    8, 5, 4, 7, 2, 1, 8, 6, 7, 4, 1, 2, 3, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4,
    7, 2, 1, 4, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 6, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1,
    8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1};
// A002187, Dawson's Chess (octal 0.137), n = 0..131; Dawson's Kayles (0.07)
// has these values one heap later.
const std::vector<uint32_t> DAWSONS_CHESS = {
    0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1,
    1, 0, 4, 5, 2, 7, 4, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 2, 3, 3,
    0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2,
    4, 4, 5, 5, 9, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3,
    1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 9, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4};
// A002188, Grundy's game, n = 0..104.
const std::vector<uint32_t> GRUNDY = {
    0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0,
    4, 1, 2, 3, 1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 5, 4, 1, 5, 4, 1, 5, 4, 1, 0, 2, 1, 0,
    2, 1, 5, 2, 1, 3, 2, 1, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 5,
    2, 4, 5, 2, 4, 3, 7, 4, 3, 7, 4, 3, 7, 4, 3, 5, 2, 3, 5, 2, 3, 5, 2, 3};

}  // namespace

TEST(Sequence, AgreesWithPublishedSequences) {
    EXPECT_EQ(grundy_sequence(Rule::parse("octal:0.77"), 104), KAYLES);
    EXPECT_EQ(grundy_sequence(Rule::parse("octal:0.137"), 131), DAWSONS_CHESS);
    std::vector<uint32_t> dawsons_kayles = {0};
    dawsons_kayles.insert(dawsons_kayles.end(), DAWSONS_CHESS.begin(), DAWSONS_CHESS.end() - 1);
    EXPECT_EQ(grundy_sequence(Rule::parse("octal:0.07"), 131), dawsons_kayles);
    EXPECT_EQ(grundy_sequence(Rule::parse("grundy"), 104), GRUNDY);
    // Lasker's Nim, by its published formula (Lasker 1931; Winning Ways ch. 4):
    // g(4k+1) = 4k+1, g(4k+2) = 4k+2, g(4k+3) = 4k+4, g(4k+4) = 4k+3.
    const std::vector<uint32_t> lasker = grundy_sequence(Rule::parse("lasker"), 200);
    EXPECT_EQ(lasker[0], 0u);
    for (uint32_t n = 1; n <= 200; ++n) {
        const uint32_t want = n % 4 == 3 ? n + 1 : n % 4 == 0 ? n - 1 : n;
        ASSERT_EQ(lasker[n], want) << n;
    }
    // The take families agree with their tables' single heaps.
    const auto s = nimtb::test::solve("subtract:1,3,4", Convention::normal, 1, 40);
    const std::vector<uint32_t> g = grundy_sequence(Rule::parse("subtract:1,3,4"), 40);
    for (uint32_t n = 0; n <= 40; ++n) EXPECT_EQ(s.value.get(n), g[n]);
    EXPECT_THROW(grundy_sequence(Rule::parse("wythoff"), 10), nimtb::InputError);
}

// Kayles has period 12 from heap 71 (A002186: last exception at 70); the
// octal periodicity theorem proves it once the window 71..165 is computed.
TEST(Sequence, OctalPeriodsProvenByGuyAndSmith) {
    const Rule kayles = Rule::parse("octal:0.77");
    auto p = nimtb::engine::find_period(kayles, Convention::normal, grundy_sequence(kayles, 400));
    EXPECT_EQ(p.basis, Basis::proof);
    EXPECT_EQ(p.period, 12u);
    EXPECT_EQ(p.preperiod, 71u);
    // 2 n0 + 2 p + t - 1 = 142 + 24 + 1 = 167: one heap less proves nothing.
    p = nimtb::engine::find_period(kayles, Convention::normal, grundy_sequence(kayles, 167));
    EXPECT_EQ(p.basis, Basis::proof);
    p = nimtb::engine::find_period(kayles, Convention::normal, grundy_sequence(kayles, 166));
    EXPECT_EQ(p.basis, Basis::none);
    EXPECT_EQ(p.period, 0u);
    // Dawson's Chess: period 34, last exception at 51.
    const Rule chess = Rule::parse("octal:0.137");
    p = nimtb::engine::find_period(chess, Convention::normal, grundy_sequence(chess, 400));
    EXPECT_EQ(p.basis, Basis::proof);
    EXPECT_EQ(p.period, 34u);
    EXPECT_EQ(p.preperiod, 52u);
    // Misere values of an octal game: never proven by this theorem.
    p = nimtb::engine::find_period(chess, Convention::misere, grundy_sequence(chess, 400));
    EXPECT_NE(p.basis, Basis::proof);
}

// Whole-position normal-play tables of take-and-break games equal the XOR
// of single-heap values: checked here, not assumed by the solver.
TEST(Sequence, WholePositionTablesAreTheXorOfSingleHeaps) {
    for (const char* text : {"octal:0.77", "octal:0.07", "octal:0.137", "grundy", "lasker"}) {
        const Rule rule = Rule::parse(text);
        const Universe u = Universe::total_bounded(30);
        nimtb::engine::SolveOptions o;
        const auto s = nimtb::engine::solve(rule, u, o);
        const std::vector<uint32_t> g = grundy_sequence(rule, 30);
        nimtb::engine::Heaps heaps(u.max_heaps(), 0);
        for (uint64_t r = 0; r < u.size(); ++r, u.next(heaps)) {
            uint32_t x = 0;
            for (uint32_t a : heaps) x ^= g[a];
            ASSERT_EQ(s.value.get(r), x) << text << " at " << nimtb::engine::format_heaps(heaps);
        }
        nimtb::engine::ArraySource source(s.value, s.remoteness);
        const auto report = nimtb::engine::verify(rule, Convention::normal, u, source);
        EXPECT_TRUE(report.ok()) << text;
        EXPECT_TRUE(report.check(nimtb::engine::CheckId::sprague_grundy).applies);
        EXPECT_EQ(report.check(nimtb::engine::CheckId::sprague_grundy).held, u.size());
    }
}

// Wythoff's and Moore's theorems, checked on solved tables.
TEST(Sequence, WythoffAndMooreTheoremsHold) {
    using nimtb::engine::CheckId;
    const auto w = nimtb::test::solve("wythoff", Convention::normal, 2, 60);
    nimtb::engine::ArraySource ws(w.value, w.remoteness);
    auto r = nimtb::engine::verify(w.rule, Convention::normal, Universe(2, 60), ws);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.check(CheckId::wythoff).held, Universe(2, 60).size());
    EXPECT_FALSE(r.check(CheckId::sprague_grundy).applies);  // moves touch two heaps
    const auto m = nimtb::test::solve("moore:2", Convention::normal, 4, 9);
    nimtb::engine::ArraySource ms(m.value, m.remoteness);
    r = nimtb::engine::verify(m.rule, Convention::normal, Universe(4, 9), ms);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.check(CheckId::moore).held, Universe(4, 9).size());
    // A wrong P-position is caught by the theorem.
    auto bad = nimtb::test::solve("wythoff", Convention::normal, 2, 20);
    const Universe u(2, 20);
    bad.value.data<uint8_t>()[u.rank(nimtb::engine::Heaps{3, 5})] = 1;  // really 0
    nimtb::engine::ArraySource bs(bad.value, bad.remoteness);
    r = nimtb::engine::verify(bad.rule, Convention::normal, u, bs);
    EXPECT_FALSE(r.ok());
    ASSERT_FALSE(r.check(CheckId::wythoff).counterexamples.empty());
    EXPECT_EQ(r.check(CheckId::wythoff).counterexamples[0].heaps, (nimtb::engine::Heaps{3, 5}));
}

namespace {

using nimtb::engine::long_sequence;
using nimtb::engine::SequenceMethod;
using nimtb::engine::SequenceOptions;

std::vector<uint16_t> long_values(const char* rule, uint64_t n, SequenceMethod m) {
    SequenceOptions o;
    o.method = m;
    return long_sequence(Rule::parse(rule), n, o).values;
}

}  // namespace

TEST(LongSequence, PlainMethodMatchesTheReference) {
    for (const char* rule :
         {"octal:0.77", "octal:0.07", "octal:0.137", "octal:4.7", "octal:0.16", "octal:0.45",
          "octal:0.6", "octal:0.51", "grundy", "lasker", "subtract:1,3,4", "nim", "subtract:2-5,9",
          "subtract:7", "allbut:2,5", "allbut:1-3,7", "allbut:1", "subtract:1-40,100"}) {
        const std::vector<uint32_t> want = grundy_sequence(Rule::parse(rule), 1500);
        const std::vector<uint16_t> got = long_values(rule, 1500, SequenceMethod::automatic);
        ASSERT_EQ(std::vector<uint32_t>(got.begin(), got.end()), want) << rule;
    }
    // Hexadecimal codes against the values from the moves of the rules'
    // definition (tests/reference.h): the mex of the XOR of each move's parts.
    for (const char* rule : {"hex:0.F", "hex:0.8", "hex:8.0", "hex:C.9A", "hex:0.0F"}) {
        std::vector<uint32_t> want;
        for (uint32_t n = 0; n <= 120; ++n) {
            std::vector<bool> seen(256, false);
            for (const auto& child : nimtb::test::reference_children(Rule::parse(rule), {n})) {
                uint32_t x = 0;
                for (uint32_t part : child) x ^= want[part];
                seen[x] = true;
            }
            uint32_t mex = 0;
            while (seen[mex]) ++mex;
            want.push_back(mex);
        }
        const std::vector<uint16_t> got = long_values(rule, 120, SequenceMethod::automatic);
        ASSERT_EQ(std::vector<uint32_t>(got.begin(), got.end()), want) << rule;
    }
}

TEST(LongSequence, SparseSpaceMethodMatchesThePlainOne) {
    // The sparse method from heap 64 on, so that it runs from a poorly chosen
    // mask too; then from its own start.
    EXPECT_EQ(long_values("grundy", 104, SequenceMethod::sparse),
              std::vector<uint16_t>(GRUNDY.begin(), GRUNDY.end()));
    for (const char* rule : {"grundy", "octal:0.16", "octal:0.45", "octal:0.156", "octal:0.77",
                             "octal:0.07", "octal:4.7", "octal:0.6", "octal:0.777"}) {
        const auto plain = long_values(rule, 1 << 13, SequenceMethod::plain);
        EXPECT_EQ(long_values(rule, 1 << 13, SequenceMethod::sparse), plain) << rule;
        EXPECT_EQ(long_values(rule, 1 << 13, SequenceMethod::automatic), plain) << rule;
    }
    SequenceOptions o;
    const auto grundy = long_sequence(Rule::parse("grundy"), 1 << 14, o);
    EXPECT_EQ(grundy.method, SequenceMethod::sparse);
    // Step 3 with vector instructions (where this processor has them) and
    // without: the same values, on one thread and on two.
    for (const unsigned threads : {1u, 2u}) {
        SequenceOptions t;
        t.threads = threads;
        const auto vector = long_sequence(Rule::parse("octal:0.6"), 1 << 15, t).values;
        nimtb::engine::split_values::allow_vector_scan(false);
        const auto scalar = long_sequence(Rule::parse("octal:0.6"), 1 << 15, t).values;
        nimtb::engine::split_values::allow_vector_scan(true);
        EXPECT_EQ(vector, scalar) << threads << " threads";
        EXPECT_EQ(long_sequence(Rule::parse("grundy"), 1 << 14, t).values,
                  long_values("grundy", 1 << 14, SequenceMethod::plain))
            << threads << " threads";
    }
    EXPECT_EQ(grundy.mask & 127,
              126u);  // Flammenkamp's mask (values < 128 so far): every bit but the lowest
    EXPECT_LT(grundy.rare_heaps, 1300u);
}

TEST(LongSequence, ProvesThePublishedPeriods) {
    SequenceOptions o;
    o.until_proven = true;
    // Winning Ways, ch. 4, and Flammenkamp's tables: (preperiod, period).
    for (const auto& [rule, preperiod, period] :
         {std::tuple{"octal:0.45", 498u, 20u}, std::tuple{"octal:0.156", 3479u, 349u},
          std::tuple{"octal:0.77", 71u, 12u}, std::tuple{"octal:0.07", 53u, 34u},
          std::tuple{"subtract:1,3,4", 0u, 7u}}) {
        const auto s = long_sequence(Rule::parse(rule), 1 << 16, o);
        EXPECT_EQ(s.period.basis, Basis::proof) << rule << ": " << s.period.explanation;
        EXPECT_EQ(s.period.preperiod, preperiod) << rule;
        EXPECT_EQ(s.period.period, period) << rule;
        // It stopped at the proof: the window's last heap (short periods
        // are looked at every 64 heaps).
        EXPECT_LT(s.values.size(), 3 * (preperiod + period) + 20 + 64) << rule;
    }
    // Nothing is proven for a game still open (0.6), up to the limit.
    const auto open = long_sequence(Rule::parse("octal:0.6"), 5000, o);
    EXPECT_EQ(open.period.basis, Basis::none);
    EXPECT_EQ(open.values.size(), 5001u);
    EXPECT_NE(open.period.explanation.find("no period proven for heaps up to 5000"),
              std::string::npos);
}

TEST(LongSequence, RefusesWhatItCannotDo) {
    SequenceOptions o;
    o.until_proven = true;
    EXPECT_THROW(long_sequence(Rule::parse("grundy"), 100, o), nimtb::InputError);
    o.until_proven = false;
    o.method = SequenceMethod::sparse;
    EXPECT_THROW(long_sequence(Rule::parse("subtract:1,3,4"), 100, o), nimtb::InputError);
    o.method = SequenceMethod::automatic;
    EXPECT_THROW(long_sequence(Rule::parse("wythoff"), 100, o), nimtb::InputError);
    std::atomic<bool> stop{true};
    o.cancel = &stop;
    EXPECT_THROW(long_sequence(Rule::parse("grundy"), 1 << 17, o), nimtb::Cancelled);
}

TEST(LongSequence, EveryProvenPeriodHoldsFarBeyondItsWindow) {
    // Every code of up to two digits: a period proven from the values up to
    // its window must hold on values computed four times further. (A window
    // from heap 0 once "proved" period 1 for 0.04, whose g(4) is 1.)
    for (const char d0 : {'0', '4'}) {
        for (int d1 = 0; d1 < 8; ++d1) {
            for (int d2 = 0; d2 < 8; ++d2) {
                const std::string code =
                    std::string("octal:") + d0 + "." + char('0' + d1) + char('0' + d2);
                if (d0 == '0' && d1 == 0 && d2 == 0) continue;  // no move at all
                SequenceOptions o;
                o.until_proven = true;
                const auto proven = long_sequence(Rule::parse(code), 2000, o);
                if (proven.period.basis != Basis::proof) continue;
                const uint64_t far = 4 * proven.values.size() + 100;
                const auto g = long_sequence(Rule::parse(code), far, {}).values;
                const uint64_t n0 = proven.period.preperiod, p = proven.period.period;
                for (uint64_t n = n0; n + p < g.size(); ++n)
                    ASSERT_EQ(g[n], g[n + p])
                        << code << ": period " << p << " from " << n0 << " fails at heap " << n;
                if (n0 > 0) {
                    EXPECT_NE(g[n0 - 1], g[n0 - 1 + p]) << code << ": not the smallest";
                }
            }
        }
    }
}

TEST(OneHeapGame, FormulasAreTheRulesValues) {
    for (const char* text : {"nim", "lasker"}) {
        const Rule rule = Rule::parse(text);
        const auto f = nimtb::engine::formula(rule);
        ASSERT_TRUE(f) << text;
        EXPECT_EQ(f->period.basis, Basis::theorem);
        const std::vector<uint32_t> g = grundy_sequence(rule, 3000);
        for (uint64_t n = 0; n <= 3000; ++n) ASSERT_EQ(f->game.value(n), g[n]) << text << " " << n;
    }
    EXPECT_FALSE(nimtb::engine::formula(Rule::parse("octal:0.77")));
}

TEST(OneHeapGame, EveryWinningMoveLeavesAPositionOfValueZero) {
    // Values only (no period): every heap within them; a formula: any heap.
    std::mt19937_64 random(7);
    for (const char* text : {"grundy", "octal:0.77", "octal:4.7", "subtract:1,3,4",
                             "subtract:2-5,9", "allbut:2,3", "nim", "lasker"}) {
        const Rule rule = Rule::parse(text);
        const std::vector<uint32_t> g = grundy_sequence(rule, 400);
        const auto f = nimtb::engine::formula(rule);
        const nimtb::engine::OneHeapGame game =
            f ? f->game
              : nimtb::engine::OneHeapGame(rule, std::vector<uint16_t>(g.begin(), g.end()));
        EXPECT_EQ(game.known_up_to(), f ? UINT64_MAX : 400u) << text;
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<uint64_t> heaps(1 + random() % 4);
            for (uint64_t& h : heaps) h = 1 + random() % 400;
            uint32_t want = 0;
            for (uint64_t h : heaps) want ^= g[h];
            ASSERT_EQ(game.value(heaps), want) << text;
            const auto m = game.winning_move(heaps);
            ASSERT_EQ(m.has_value(), want != 0) << text;
            if (!m) continue;
            std::vector<uint64_t> after;
            for (size_t i = 0; i < heaps.size(); ++i)
                if (i != m->index) after.push_back(heaps[i]);
            uint64_t left = 0;
            for (uint64_t h : m->leaves) {
                after.push_back(h);
                left += h;
            }
            ASSERT_EQ(left + m->taken, heaps[m->index]) << text;
            ASSERT_EQ(game.value(after), 0u) << text << " " << m->phrase;
        }
    }
    const Rule grundy = Rule::parse("grundy");
    const std::vector<uint32_t> g = grundy_sequence(grundy, 50);
    const nimtb::engine::OneHeapGame known(grundy, std::vector<uint16_t>(g.begin(), g.end()));
    EXPECT_THROW(known.value(51), nimtb::InputError);
    EXPECT_THROW(nimtb::engine::OneHeapGame(Rule::parse("wythoff"), {0}), nimtb::InputError);
}

TEST(SubtractionRuns, AreTheValuesAndTheirProvenPeriod) {
    // Sets of every shape, some scaled so that runs are long: the runs give
    // the values heap by heap, and the period the window method proves.
    std::mt19937_64 random(11);
    std::vector<std::string> rules = {"subtract:1,3,4", "subtract:2-5,9", "subtract:7",
                                      "subtract:1-3"};
    for (int i = 0; i < 40; ++i) {
        std::string text = "subtract:";
        const uint64_t scale = 1 + random() % 5;
        const int count = 1 + int(random() % 4);
        for (int k = 0; k < count; ++k) {
            if (k) text += ',';
            text += std::to_string(scale * (1 + random() % 12));
        }
        rules.push_back(text);
    }
    for (const std::string& text : rules) {
        const Rule rule = Rule::parse(text);
        SequenceOptions o;
        o.until_proven = true;
        const nimtb::engine::LongSequence dense = long_sequence(rule, 1 << 20, o);
        ASSERT_EQ(dense.period.basis, Basis::proof) << text;
        const auto runs = nimtb::engine::subtraction_runs(rule, 1 << 20);
        ASSERT_TRUE(runs) << text;
        EXPECT_EQ(runs->period, dense.period.period) << text;
        EXPECT_EQ(runs->preperiod, dense.period.preperiod) << text;
        const nimtb::engine::OneHeapGame game(rule, *runs);
        const std::vector<uint32_t> g = grundy_sequence(rule, 3000);
        for (uint64_t h = 0; h <= 3000; ++h) ASSERT_EQ(game.value(h), g[h]) << text << " " << h;
        for (int trial = 0; trial < 100; ++trial) {
            const std::vector<uint64_t> heaps = {1 + random() % 3000, 1 + random() % 3000};
            const auto m = game.winning_move(heaps);
            ASSERT_EQ(m.has_value(), game.value(heaps) != 0) << text;
            if (!m) continue;
            std::vector<uint64_t> after = {heaps[1 - m->index]};
            after.insert(after.end(), m->leaves.begin(), m->leaves.end());
            ASSERT_EQ(game.value(after), 0u) << text << " " << m->phrase;
        }
    }
    // A game whose values change every billion heaps, known after three runs.
    const auto big = nimtb::engine::subtraction_runs(Rule::parse("subtract:1000000000"), 100);
    ASSERT_TRUE(big);
    EXPECT_EQ(big->period, 2000000000u);
    EXPECT_EQ(big->preperiod, 0u);
    const nimtb::engine::OneHeapGame game(Rule::parse("subtract:1000000000"), *big);
    EXPECT_EQ(game.value(uint64_t{1} << 62), ((uint64_t{1} << 62) / 1000000000) % 2);
}

TEST(LongSequence, TwoThreadsGiveTheValuesOfOne) {
    // Rules that split with and without a take (octal 4.x splits without
    // one: heap n depends on n - 1 by a split), with one and several split
    // sizes; long enough for stretches on two threads and a mask chosen again.
    for (const char* text : {"grundy", "octal:0.74", "octal:4.7", "octal:0.16", "octal:0.07",
                             "octal:0.137", "octal:4.4", "octal:0.6"}) {
        SequenceOptions one, two;
        one.threads = 1;
        two.threads = 2;
        const Rule rule = Rule::parse(text);
        const auto a = long_sequence(rule, 40000, one), b = long_sequence(rule, 40000, two);
        ASSERT_EQ(a.values, b.values) << text;
        EXPECT_EQ(a.mask, b.mask) << text;
        EXPECT_EQ(a.rare_heaps, b.rare_heaps) << text;
        if (rule.kind() == nimtb::engine::RuleKind::grundy) continue;  // no theorem to stop at
        one.until_proven = two.until_proven = true;
        const auto c = long_sequence(rule, 1 << 16, one), d = long_sequence(rule, 1 << 16, two);
        ASSERT_EQ(c.values, d.values) << text;  // stopped at the same heap
        EXPECT_EQ(c.period.period, d.period.period) << text;
        EXPECT_EQ(c.period.preperiod, d.period.preperiod) << text;
    }
    EXPECT_EQ(long_values("grundy", 5000, SequenceMethod::sparse),
              long_values("grundy", 5000, SequenceMethod::plain));
}

// Small enough for ThreadSanitizer (tools/sanitize.sh runs SequenceThreads.*).
TEST(SequenceThreads, TwoThreadsHandHeapsOverWithoutARace) {
    for (const char* text : {"grundy", "octal:0.74", "octal:4.7"}) {
        SequenceOptions one, two;
        one.threads = 1;
        two.threads = 2;
        const Rule rule = Rule::parse(text);
        ASSERT_EQ(long_sequence(rule, 6000, one).values, long_sequence(rule, 6000, two).values)
            << text;
    }
    SequenceOptions two;
    two.threads = 2;
    two.until_proven = true;
    EXPECT_EQ(long_sequence(Rule::parse("octal:0.45"), 1 << 14, two).values.size(), [] {
        SequenceOptions one;
        one.threads = 1;
        one.until_proven = true;
        return long_sequence(Rule::parse("octal:0.45"), 1 << 14, one).values.size();
    }());
}
