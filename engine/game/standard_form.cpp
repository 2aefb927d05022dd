#include "engine/game/standard_form.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace nimtb::engine {

namespace {

using Digits = std::vector<uint8_t>;  // d_0, d_1, ...: d_0 always 0 here

// The code's digits, for octal codes without a leading 4 and finite
// subtraction games (amount k: digit 3); nullopt for other rules.
std::optional<Digits> digits_of(const Rule& rule) {
    if (rule.kind() == RuleKind::octal) {
        if (rule.code_digits().empty() || rule.code_digits()[0] != 0) return std::nullopt;
        return rule.code_digits();
    }
    if (rule.kind() != RuleKind::subtract) return std::nullopt;
    const uint32_t largest = rule.ranges().back().last;
    if (largest >= Rule::MAX_OCTAL_DIGITS) return std::nullopt;
    Digits d(size_t{largest} + 1, 0);
    for (uint32_t k : rule.amounts_up_to(largest)) d[k] = 3;
    return d;
}

void trim(Digits& d) {
    while (d.size() > 1 && d.back() == 0) d.pop_back();
}

// s(c) of standard_form.h.
Digits shifted(const Digits& c) {
    Digits s(c.size() + 1, 0);
    for (size_t k = 1; k < c.size(); ++k) {
        if ((c[k] & 1) && k >= 2) s[k - 1] |= 1;
        if (c[k] & 2) s[k] |= 3;
        if (c[k] & 4) s[k + 1] |= 7;
    }
    trim(s);
    return s;
}

// Fewer digits first, then the smaller digits from d_1 on.
bool smaller(const Digits& a, const Digits& b) {
    if (a.size() != b.size()) return a.size() < b.size();
    return a < b;
}

// The least u with a dead heap 1 and s(u) = c, or nullopt. u's bits can
// only be those whose images lie in c; among those, every subset is tried
// (codes have a few digits: at most 2^20 subsets, else none is looked for).
std::optional<Digits> least_unshifted(const Digits& c) {
    auto has = [&](size_t k, uint8_t bits) { return k < c.size() && (c[k] & bits) == bits; };
    std::vector<std::pair<size_t, uint8_t>> allowed;  // (k, bit) of u
    for (size_t k = 1; k <= c.size(); ++k) {
        if (k >= 2 && has(k - 1, 1)) allowed.push_back({k, 1});
        if (has(k, 3)) allowed.push_back({k, 2});
        if (has(k + 1, 7)) allowed.push_back({k, 4});
    }
    if (allowed.size() > 20) return std::nullopt;
    std::optional<Digits> best;
    for (uint32_t subset = 1; subset < (1u << allowed.size()); ++subset) {
        Digits u(c.size() + 1, 0);
        for (size_t i = 0; i < allowed.size(); ++i) {
            if (subset >> i & 1) u[allowed[i].first] |= allowed[i].second;
        }
        trim(u);
        if (shifted(u) == c && (!best || smaller(u, *best))) best = std::move(u);
    }
    return best;
}

bool shorter(const Digits& a, const Digits& b) {
    return a.size() < b.size();
}

Rule rule_of(const Digits& d) {
    std::string text = "octal:0.";
    for (size_t k = 1; k < d.size(); ++k) text += static_cast<char>('0' + d[k]);
    return Rule::parse(text);
}

}  // namespace

StandardForm standard_form(const Rule& rule) {
    std::optional<Digits> c = digits_of(rule);
    if (!c || c->size() < 2) return {rule, 0, {}};
    StandardForm form{rule, 0, {}};
    // A dead heap 1: the least code of the same game (s(c) is its shift).
    if (!((*c)[1] & 1)) {
        if (std::optional<Digits> u = least_unshifted(shifted(*c)); u && shorter(*u, *c)) {
            c = std::move(u);
            form.rule = rule_of(*c);
            form.steps.push_back(form.rule);
        }
    }
    // A step is taken only to a shorter code (0.01 is 0.001 shifted, and
    // 0.0001 shifted twice, without end): the codes shorten, so it ends.
    while (true) {
        std::optional<Digits> u = least_unshifted(*c);
        if (!u || !shorter(*u, *c)) break;
        c = std::move(u);
        form.rule = rule_of(*c);
        form.steps.push_back(form.rule);
        ++form.shift;
    }
    return form;
}

}  // namespace nimtb::engine
