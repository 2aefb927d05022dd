#include "engine/sequences/period.h"

#include <fmt/core.h>

#include <algorithm>
#include <string>

#include "engine/base/names.h"

namespace nimtb::engine {

namespace {
constexpr Named<Basis> BASES[] = {{Basis::definition, "definition"},
                                  {Basis::theorem, "theorem"},
                                  {Basis::proof, "proof"},
                                  {Basis::observation, "observation"},
                                  {Basis::none, "none"}};
}  // namespace

const char* to_string(Basis basis) {
    return name_of(BASES, basis);
}

Basis parse_basis(std::string_view text) {
    return parse_name(BASES, text, "basis");
}

namespace {

// True when g(n + p) = g(n) + s for every n in [first, last).
bool shifts(std::span<const uint32_t> g, uint32_t p, uint32_t s, uint64_t first, uint64_t last) {
    for (uint64_t n = first; n < last; ++n) {
        if (uint64_t{g[n + p]} != uint64_t{g[n]} + s) return false;
    }
    return true;
}

struct Candidate {
    uint32_t preperiod, period, saltus;
};

// The smallest period, then the smallest preperiod, such that the table
// agrees with g(n + p) = g(n) + s from the preperiod to its end. A pattern
// counts only where the table shows it over three whole periods and at least
// eight heaps: two equal values at the table's end are no period.
// `arithmetic`: s may be positive; otherwise s = 0.
//
// A pattern that holds from n0 to the end holds from any later heap, so for
// each p the smallest preperiod is one past the last heap where the table
// breaks it, found walking back from the end (and s is the last pair's
// difference): linear in the pattern's length for each p, not quadratic.
std::optional<Candidate> observed(std::span<const uint32_t> g, bool arithmetic) {
    const uint64_t n = g.size();  // heaps 0 .. n-1
    auto shown = [](uint64_t p) { return std::max<uint64_t>(3 * p, 8); };
    for (uint32_t p = 1; shown(p) <= n; ++p) {
        const uint64_t last = n - p - 1;  // the last pair is (last, last + p)
        if (g[last + p] < g[last]) continue;
        const uint32_t s = arithmetic ? g[last + p] - g[last] : 0;
        // The pattern must hold over heaps [n0, n - p), n0 + shown(p) <= n.
        const uint64_t latest = n - shown(p);
        uint64_t n0 = last + 1;
        while (n0 > 0 && uint64_t{g[n0 - 1 + p]} == uint64_t{g[n0 - 1]} + s) --n0;
        if (n0 <= latest) return Candidate{static_cast<uint32_t>(n0), p, s};
    }
    return std::nullopt;
}

// The smallest period, then the smallest preperiod, whose window the table
// holds and agrees on: the smallest true period has the smallest window, and
// a window that holds at n0 proves a preperiod of at most n0.
Periodicity window_period(std::span<const uint32_t> g, const ProofWindow& t) {
    Periodicity r;
    const uint64_t max_heap = g.size() - 1;
    for (uint32_t p = 1; t.needed(t.first, p) <= max_heap; ++p) {
        for (uint64_t n0 = t.first; t.needed(n0, p) <= max_heap; ++n0) {
            if (!shifts(g, p, 0, n0, t.end(n0, p))) continue;
            r.basis = Basis::proof;
            r.preperiod = static_cast<uint32_t>(extend_down(g, n0, p));
            r.period = p;
            r.explanation = proof_sentence(t, n0, p, r.preperiod);
            return r;
        }
    }
    if (const auto c = observed(g, false)) {
        r.needed_max_heap = t.needed(c->preperiod, c->period);
        r.explanation = fmt::format(
            "no period proven for H <= {}; the table repeats with period {} from heap {}, which "
            "a table with H >= {} would prove or refute",
            max_heap, c->period, c->preperiod, *r.needed_max_heap);
    } else {
        r.explanation = fmt::format(
            "no period proven for H <= {}, and no repeating pattern seen; a period p from heap "
            "n0 is proven by a table with H >= {}",
            max_heap, t.formula);
    }
    return r;
}

}  // namespace

std::optional<ProofWindow> proof_window(const Rule& rule, Convention convention) {
    if (rule.kind() == RuleKind::subtract) {
        // Subtraction games: the window n0 .. n0 + max(S) - 1.
        const uint64_t s = rule.ranges().back().last;
        return ProofWindow{
            1,
            0,
            s,
            0,
            fmt::format("every amount of the subtraction set is a move from a heap of {} or more, "
                        "so each value depends only on the {} values before it",
                        s, s),
            s > 1 ? fmt::format("n0 + p + {}", s - 1) : "n0 + p"};
    }
    if (rule.kind() == RuleKind::octal && convention == Convention::normal) {
        // The octal periodicity theorem: the window n0 .. 2 n0 + p + t - 1.
        const uint64_t t = rule.code_digits().size() - 1;
        return ProofWindow{2,
                           1,
                           t,
                           1,
                           fmt::format("by the octal periodicity theorem of Guy and Smith, as at "
                                       "most {} token{} taken in a move",
                                       t, t == 1 ? " is" : "s are"),
                           t > 1 ? fmt::format("2 n0 + 2 p + {}", t - 1) : "2 n0 + 2 p"};
    }
    return std::nullopt;
}

std::string proof_sentence(const ProofWindow& w, uint64_t n0, uint64_t p, uint64_t start) {
    std::string s = fmt::format(
        "period {} from heap {}, proven: {}, and g(n) = g(n+{}) for every n from {} to {} "
        "carries to every n >= {}",
        p, start, w.why, p, n0, w.end(n0, p) - 1, n0);
    if (start < n0) s += fmt::format(" (and it holds from heap {} to {} too)", start, n0 - 1);
    return s;
}

Periodicity find_period(const Rule& rule, Convention convention, std::span<const uint32_t> g) {
    if (g.empty()) return {};
    if (const auto w = proof_window(rule, convention)) return window_period(g, *w);
    // Everything else: an arithmetic period, observed only.
    Periodicity r;
    const auto c = observed(g, true);
    if (!c) {
        r.explanation = fmt::format("no arithmetic period seen twice within H = {}", g.size() - 1);
        return r;
    }
    r.basis = Basis::observation;
    r.preperiod = c->preperiod;
    r.period = c->period;
    r.saltus = c->saltus;
    r.explanation = c->saltus ? fmt::format(
                                    "observed within H = {}: g(n+{}) = g(n) + {} for every n >= {} "
                                    "in the table (arithmetic-periodic; not proven beyond it)",
                                    g.size() - 1, c->period, c->saltus, c->preperiod)
                              : fmt::format(
                                    "observed within H = {}: period {} from heap {} (not proven "
                                    "beyond the table)",
                                    g.size() - 1, c->period, c->preperiod);
    return r;
}

}  // namespace nimtb::engine
