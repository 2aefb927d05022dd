// Standard forms of octal codes (engine/game/standard_form.h), checked
// against the games themselves: each heap of a code and the heap it is said
// to be of its standard form are the same game tree once heaps without
// moves are dropped, found by numbering every heap's set of options
// (multisets of earlier numbers) with moves generated here from the
// codes' definition.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/game/standard_form.h"

namespace nimtb::engine {
namespace {

// Numbers game trees: two heaps get one number exactly when their options
// are the same multisets of numbers (0, the empty game, left out).
struct Trees {
    std::map<std::set<std::vector<uint32_t>>, uint32_t> ids{{{}, 0}};

    // ids[h] of a code's heaps 0 .. max_heap; digit k of `digits` (k >= 1)
    // allows taking k leaving nothing (1), one heap (2), two heaps (4).
    std::vector<uint32_t> of(const std::vector<uint8_t>& digits, uint32_t max_heap) {
        std::vector<uint32_t> id(max_heap + 1, 0);
        for (uint32_t n = 1; n <= max_heap; ++n) {
            std::set<std::vector<uint32_t>> options;
            auto add = [&](std::vector<uint32_t> heaps) {
                std::vector<uint32_t> option;
                for (uint32_t h : heaps) {
                    if (id[h] != 0) option.push_back(id[h]);
                }
                std::sort(option.begin(), option.end());
                options.insert(option);
            };
            for (uint32_t k = 1; k < digits.size() && k <= n; ++k) {
                if ((digits[k] & 1) && n == k) add({});
                if ((digits[k] & 2) && n > k) add({n - k});
                for (uint32_t a = 1; (digits[k] & 4) && 2 * a <= n - k; ++a) add({a, n - k - a});
            }
            id[n] = ids.try_emplace(options, static_cast<uint32_t>(ids.size())).first->second;
        }
        return id;
    }
};

std::vector<uint8_t> digits_of_text(const std::string& code) {  // "0.137"
    std::vector<uint8_t> d{0};
    for (char c : code.substr(2)) d.push_back(static_cast<uint8_t>(c - '0'));
    return d;
}

std::string code_text(const Rule& rule) {  // "0.07" of octal:0.07 or of subtract:...
    std::vector<uint8_t> d = rule.code_digits();
    if (rule.kind() == RuleKind::subtract) {
        d.assign(rule.ranges().back().last + 1, 0);
        for (uint32_t k : rule.amounts_up_to(rule.ranges().back().last)) d[k] = 3;
    }
    std::string text = "0.";
    for (size_t k = 1; k < d.size(); ++k) text += static_cast<char>('0' + d[k]);
    return text;
}

// Heap n of `code` is heap n + shift of its standard form, for n up to 40,
// and every step on the way is the same game shifted by its place.
void expect_equivalent(const std::string& code) {
    SCOPED_TRACE(code);
    const StandardForm form = standard_form(Rule::parse("octal:" + code));
    Trees trees;
    const std::vector<uint32_t> ours = trees.of(digits_of_text(code), 40);
    const std::vector<uint32_t> theirs =
        trees.of(digits_of_text(code_text(form.rule)), 40 + form.shift);
    for (uint32_t n = 1; n <= 40; ++n) EXPECT_EQ(ours[n], theirs[n + form.shift]) << "heap " << n;
    if (form.steps.empty()) {
        EXPECT_EQ(form.shift, 0u);
        EXPECT_EQ(form.rule, Rule::parse("octal:" + code));
    } else {
        EXPECT_EQ(form.steps.back(), form.rule);
    }
}

TEST(StandardForm, DawsonsChessIsDawsonsKaylesShiftedByAHeap) {
    const StandardForm chess = standard_form(Rule::parse("octal:0.137"));
    const StandardForm kayles = standard_form(Rule::parse("octal:0.07"));
    EXPECT_EQ(chess.rule, kayles.rule);
    EXPECT_EQ(chess.shift, kayles.shift + 1);
    ASSERT_FALSE(chess.steps.empty());
    EXPECT_EQ(chess.steps.front(), Rule::parse("octal:0.07"));
    expect_equivalent("0.137");
    expect_equivalent("0.07");
    expect_equivalent("0.073");  // a dead heap 1 and a redundant digit: 0.07 itself
    EXPECT_EQ(standard_form(Rule::parse("octal:0.073")).steps.front(), Rule::parse("octal:0.07"));
    // Kayles and Nim are their own standard forms.
    for (const char* rule : {"octal:0.77", "nim", "grundy", "octal:4.7"}) {
        const StandardForm f = standard_form(Rule::parse(rule));
        EXPECT_EQ(f.rule, Rule::parse(rule));
        EXPECT_EQ(f.shift, 0u);
    }
}

TEST(StandardForm, EveryCodeOfUpToThreeDigitsIsTheGameItSaysItIs) {
    size_t reduced = 0;
    for (int a = 0; a < 8; ++a) {
        for (int b = 0; b < 8; ++b) {
            for (int c = 0; c < 8; ++c) {
                std::string code = "0." + std::to_string(a) + std::to_string(b) + std::to_string(c);
                while (code.size() > 2 && code.back() == '0') code.pop_back();
                if (code.size() == 2) continue;
                expect_equivalent(code);
                reduced += standard_form(Rule::parse("octal:" + code)).steps.empty() ? 0 : 1;
            }
        }
    }
    EXPECT_GT(reduced, 50u);
}

}  // namespace
}  // namespace nimtb::engine
