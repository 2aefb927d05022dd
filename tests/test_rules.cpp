#include <gtest/gtest.h>

#include "engine/game/rule_families.h"
#include "engine/game/rules.h"
#include "engine/solve/solver.h"

using nimtb::InputError;
using nimtb::engine::Convention;
using nimtb::engine::Rule;
using nimtb::engine::RuleKind;

TEST(Rules, ParsesTheSeedRules) {
    EXPECT_EQ(Rule::parse("nim").kind(), RuleKind::nim);
    EXPECT_EQ(Rule::parse("subtract:1,3,4").kind(), RuleKind::subtract);
    EXPECT_EQ(Rule::parse("allbut:2,5").kind(), RuleKind::allbut);
    EXPECT_EQ(Rule::parse("subtract:1-3").amounts_up_to(10), (std::vector<uint32_t>{1, 2, 3}));
    EXPECT_EQ(Rule::parse("subtract:1-3,7").amounts_up_to(10), (std::vector<uint32_t>{1, 2, 3, 7}));
    EXPECT_EQ(Rule::parse("allbut:2,5").amounts_up_to(6), (std::vector<uint32_t>{1, 3, 4, 6}));
}

TEST(Rules, CanonicalTextSortsMergesAndRoundTrips) {
    const std::pair<const char*, const char*> cases[] = {
        {"nim", "nim"},
        {"NIM", "nim"},
        {"subtract:4,1,3", "subtract:1,3,4"},
        {"subtract:1,3,4,3,1", "subtract:1,3,4"},
        {"subtract:3,1-2", "subtract:1-3"},
        {"subtract:1,2", "subtract:1,2"},
        {"subtract:1-3,7", "subtract:1-3,7"},
        {"subtract:2-4,3-6,8,9,10", "subtract:2-6,8-10"},
        {"subtract:5-5", "subtract:5"},
        {" subtract: 1 , 3 ", "subtract:1,3"},
        {"allbut:", "nim"},
        {"allbut:5,2", "allbut:2,5"},
    };
    for (auto [text, canonical] : cases) {
        const Rule rule = Rule::parse(text);
        EXPECT_EQ(rule.canonical(), canonical) << text;
        EXPECT_EQ(Rule::parse(rule.canonical()), rule) << text;
        EXPECT_EQ(Rule::parse(rule.canonical()).canonical(), canonical) << text;
    }
}

TEST(Rules, AllowsAgreesWithTheList) {
    const Rule sub = Rule::parse("subtract:1-3,7");
    EXPECT_TRUE(sub.allows(1));
    EXPECT_TRUE(sub.allows(3));
    EXPECT_FALSE(sub.allows(4));
    EXPECT_TRUE(sub.allows(7));
    EXPECT_FALSE(sub.allows(0));
    const Rule allbut = Rule::parse("allbut:2");
    EXPECT_FALSE(allbut.allows(2));
    EXPECT_TRUE(allbut.allows(3));
    EXPECT_TRUE(Rule::parse("subtract:1-40").allows_all_up_to(40));
    EXPECT_FALSE(Rule::parse("subtract:1-39").allows_all_up_to(40));
    EXPECT_TRUE(Rule::parse("allbut:50").allows_all_up_to(40));
    EXPECT_FALSE(Rule::parse("allbut:40").allows_all_up_to(40));
}

// Each refusal names what was wrong and shows a right form.
void expect_refused(const char* text, const char* fragment) {
    try {
        Rule::parse(text);
        ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
            << "'" << text << "' gave: " << e.what();
    }
}

TEST(Rules, RefusesUnknownKind) {
    expect_refused("bowling", "unknown rule 'bowling'");
    expect_refused("bowling", "octal:CODE");
    expect_refused("bowling", "a game's name such as kayles");
    expect_refused("", "empty rule");
}

TEST(Rules, FamiliesAndTheirCanonicalText) {
    const std::pair<const char*, const char*> cases[] = {
        {"octal:0.77", "octal:0.77"},
        {"octal:.770", "octal:0.77"},
        {"OCTAL:0.137", "octal:0.137"},
        {"octal:4.7", "octal:4.7"},
        {"octal:0.33", "subtract:1,2"},
        {"octal:0.3033", "subtract:1,3,4"},
        {"octal:0.333", "subtract:1-3"},
        {"grundy", "grundy"},
        {"lasker", "lasker"},
        {"wythoff", "wythoff"},
        {"moore:2", "moore:2"},
        {"moore:1", "nim"},
    };
    for (auto [text, canonical] : cases) {
        const Rule rule = Rule::parse(text);
        EXPECT_EQ(rule.canonical(), canonical) << text;
        EXPECT_EQ(Rule::parse(rule.canonical()), rule) << text;
    }
    // Properties the layers above ask.
    const Rule kayles = Rule::parse("octal:0.77");
    EXPECT_TRUE(kayles.one_heap());
    EXPECT_TRUE(kayles.adds_heaps());
    EXPECT_FALSE(kayles.keeps_total());
    EXPECT_TRUE(Rule::parse("octal:4.7").keeps_total());
    EXPECT_TRUE(Rule::parse("grundy").keeps_total());
    EXPECT_FALSE(Rule::parse("octal:0.12").adds_heaps());
    EXPECT_FALSE(Rule::parse("wythoff").one_heap());
    EXPECT_FALSE(Rule::parse("moore:3").one_heap());
    EXPECT_FALSE(Rule::parse("moore:3").adds_heaps());
    EXPECT_TRUE(Rule::parse("subtract:1,3").take_family());
    EXPECT_FALSE(kayles.take_family());
}

TEST(Rules, RefusesBadFamilyTexts) {
    expect_refused("octal:0.78", "'8' is not an octal digit");
    expect_refused("octal:77", "the point is missing");
    expect_refused("octal:2.7", "must be 0 or 4");
    expect_refused("octal:0.000", "allows no move");
    expect_refused("octal", "needs a code");
    expect_refused("moore:0", "bad k '0'");
    expect_refused("moore:x", "bad k 'x'");
    expect_refused("moore", "needs k");
    expect_refused("wythoff:2", "takes no list");
    expect_refused("grundy:1", "takes no list");
}

TEST(Rules, RefusesEmptySubtractList) {
    expect_refused("subtract:", "empty subtract list");
    expect_refused("subtract", "needs a list");
}

TEST(Rules, RefusesZeroAndNegativeAmounts) {
    expect_refused("subtract:0,1", "0 is not a move");
    expect_refused("subtract:-2", "cannot be negative");
    expect_refused("allbut:1,-3", "cannot be negative");
}

TEST(Rules, RefusesReversedRange) {
    expect_refused("subtract:5-2", "reversed range '5-2'");
}

TEST(Rules, RefusesNonNumbersAndTrailingJunk) {
    expect_refused("subtract:a", "not a number");
    expect_refused("subtract:1,3,4x", "bad amount '4x'");
    expect_refused("subtract:1,,3", "empty item");
    expect_refused("subtract:1,3,", "empty item");
    expect_refused("subtract:1-3-5", "not a number");
    expect_refused("nim:3", "takes no list");
    expect_refused("nim x", "unknown rule");
    expect_refused("subtract:99999999999", "too large");
}

TEST(Rules, Conventions) {
    EXPECT_EQ(nimtb::engine::parse_convention("normal"), Convention::normal);
    EXPECT_EQ(nimtb::engine::parse_convention("misere"), Convention::misere);
    EXPECT_THROW(nimtb::engine::parse_convention("misery"), InputError);
}

// Names read and written from one table per enum: aliases are read, the
// message lists each value's name once.
TEST(Rules, NamesAndAliases) {
    using nimtb::engine::Kernel;
    using nimtb::engine::SolveMethod;
    EXPECT_EQ(nimtb::engine::parse_convention("misère"), Convention::misere);
    EXPECT_STREQ(nimtb::engine::to_string(Convention::misere), "misere");
    EXPECT_EQ(nimtb::engine::parse_method("sg"), SolveMethod::sprague_grundy);
    EXPECT_STREQ(nimtb::engine::to_string(SolveMethod::sprague_grundy), "sprague-grundy");
    EXPECT_EQ(nimtb::engine::parse_kernel("auto"), Kernel::automatic);
    for (Kernel k : {Kernel::automatic, Kernel::brute, Kernel::lines})
        EXPECT_EQ(nimtb::engine::parse_kernel(nimtb::engine::to_string(k)), k);
    auto message = [](auto parse, const char* text) {
        try {
            parse(text);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message(nimtb::engine::parse_convention, "misery"),
              "unknown convention 'misery': expected normal or misere");
    EXPECT_EQ(message(nimtb::engine::parse_method, "x"),
              "unknown method 'x': expected brute or sprague-grundy");
    EXPECT_EQ(message(nimtb::engine::parse_kernel, "fast"),
              "unknown kernel 'fast': expected auto, brute or lines");
}

// Conway's hexadecimal codes: digits to F, bit 8 leaving three heaps; a code
// without a digit of 8 or more is the octal game it writes.
TEST(Rules, HexadecimalCodes) {
    const Rule f = Rule::parse("hex:0.f");
    EXPECT_EQ(f.kind(), RuleKind::hexadecimal);
    EXPECT_EQ(f.canonical(), "hex:0.F");
    EXPECT_EQ(Rule::parse("hexadecimal:0.F0"), f);
    EXPECT_EQ(f.code_digits(), (std::vector<uint8_t>{0, 15}));
    EXPECT_EQ(f.max_parts(), 3u);
    EXPECT_TRUE(f.adds_heaps() && f.one_heap() && !f.keeps_total());
    EXPECT_TRUE(Rule::parse("hex:8.1").keeps_total());
    EXPECT_EQ(Rule::parse("hex:C.01").canonical(), "hex:C.01");
    EXPECT_EQ(Rule::parse("hex:0.77").canonical(), "octal:0.77");
    EXPECT_EQ(Rule::parse("hex:0.33").canonical(), "subtract:1,2");
    EXPECT_EQ(Rule::parse("octal:0.77").max_parts(), 2u);
    EXPECT_EQ(Rule::parse("nim").max_parts(), 1u);
    for (const char* bad : {"hex:0.G", "hex:1.8", "hex:08.8", "hex:0", "hex:0.0", "hex", "octal:0.8"})
        EXPECT_THROW(Rule::parse(bad), InputError) << bad;
}

// Games by name parse as their codes, however they are written.
TEST(Rules, GamesByName) {
    EXPECT_EQ(Rule::parse("kayles").canonical(), "octal:0.77");
    EXPECT_EQ(Rule::parse("Dawson's Kayles").canonical(), "octal:0.07");
    EXPECT_EQ(Rule::parse("dawsons_chess").canonical(), "octal:0.137");
    EXPECT_EQ(Rule::parse("TREBLECROSS").canonical(), "octal:0.007");
    EXPECT_EQ(Rule::parse("grundys-game"), Rule::parse("grundy"));
    for (const nimtb::engine::GameName& g : nimtb::engine::game_names()) {
        EXPECT_EQ(Rule::parse(g.name).canonical(), g.rule) << g.name;
        EXPECT_EQ(Rule::parse(g.title).canonical(), g.rule) << g.title;
    }
    EXPECT_THROW(Rule::parse("kayles:2"), InputError);
    EXPECT_THROW(Rule::parse("kayle"), InputError);
}
