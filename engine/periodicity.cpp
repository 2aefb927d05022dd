#include "engine/periodicity.h"

#include <fmt/core.h>

#include <algorithm>

namespace nimtb::engine {

const char* to_string(Basis basis) {
    switch (basis) {
        case Basis::definition:
            return "definition";
        case Basis::theorem:
            return "theorem";
        case Basis::proof:
            return "proof";
        case Basis::observation:
            return "observation";
        case Basis::none:
            return "none";
    }
    return "?";
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
std::optional<Candidate> observed(std::span<const uint32_t> g, bool arithmetic) {
    const uint64_t n = g.size();  // heaps 0 .. n-1
    auto shown = [](uint64_t p) { return std::max<uint64_t>(3 * p, 8); };
    for (uint32_t p = 1; shown(p) <= n; ++p) {
        for (uint32_t n0 = 0; n0 + shown(p) <= n; ++n0) {
            if (g[n0 + p] < g[n0]) continue;
            const uint32_t s = arithmetic ? g[n0 + p] - g[n0] : 0;
            if (shifts(g, p, s, n0, n - p)) return Candidate{n0, p, s};
        }
    }
    return std::nullopt;
}

// Subtraction games: the window proof described in the header.
Periodicity subtraction_period(std::span<const uint32_t> g, uint32_t largest) {
    Periodicity r;
    const uint64_t max_heap = g.size() - 1;
    for (uint32_t p = 1; uint64_t{p} + largest - 1 <= max_heap; ++p) {
        for (uint32_t n0 = 0; uint64_t{n0} + p + largest - 1 <= max_heap; ++n0) {
            if (!shifts(g, p, 0, n0, uint64_t{n0} + largest)) continue;
            r.basis = Basis::proof;
            r.preperiod = n0;
            r.period = p;
            r.explanation = fmt::format(
                "period {} from heap {}, proven: every amount of the subtraction set is a move "
                "from a heap of {} or more, so each value depends only on the {} values before "
                "it, and g(n) = g(n+{}) for the {} heaps n = {}..{} carries to every n >= {}",
                p, n0, largest, largest, p, largest, n0, n0 + largest - 1, n0);
            return r;
        }
    }
    if (const auto c = observed(g, false)) {
        r.needed_max_heap = uint64_t{c->preperiod} + c->period + largest - 1;
        r.explanation = fmt::format(
            "no period proven for H <= {}; the table repeats with period {} from heap {}, which "
            "a table with H >= {} would prove or refute",
            max_heap, c->period, c->preperiod, *r.needed_max_heap);
    } else {
        r.explanation = fmt::format(
            "no period proven for H <= {}, and no repeating pattern seen; a period p from heap n0 is "
            "proven by a table with H >= n0 + p + {}",
            max_heap, largest - 1);
    }
    return r;
}

// Octal games in normal play: the Guy-Smith window described in the header.
Periodicity octal_period(std::span<const uint32_t> g, uint32_t t) {
    Periodicity r;
    const uint64_t max_heap = g.size() - 1;
    // The window's last n is 2 n0 + p + t - 1, and it reads g(n + p).
    auto fits = [&](uint64_t n0, uint64_t p) { return 2 * n0 + 2 * p + t - 1 <= max_heap; };
    for (uint32_t p = 1; fits(0, p); ++p) {
        for (uint32_t n0 = 0; fits(n0, p); ++n0) {
            if (!shifts(g, p, 0, n0, 2 * uint64_t{n0} + p + t)) continue;
            r.basis = Basis::proof;
            r.preperiod = n0;
            r.period = p;
            r.explanation = fmt::format(
                "period {} from heap {}, proven by the octal periodicity theorem (Guy and Smith): "
                "at most {} tokens are removed, and g(n) = g(n+{}) for every n from {} to {} "
                "(2 n0 + p + t - 1) carries to every n >= {}",
                p, n0, t, p, n0, 2 * uint64_t{n0} + p + t - 1, n0);
            return r;
        }
    }
    if (const auto c = observed(g, false)) {
        r.needed_max_heap = 2 * uint64_t{c->preperiod} + 2 * uint64_t{c->period} + t - 1;
        r.explanation = fmt::format(
            "no period proven for H <= {}; the table repeats with period {} from heap {}, which "
            "H >= {} would prove or refute by the octal periodicity theorem",
            max_heap, c->period, c->preperiod, *r.needed_max_heap);
    } else {
        r.explanation = fmt::format(
            "no period proven for H <= {}, and no repeating pattern seen; by the octal "
            "periodicity theorem a period p from heap n0 is proven by H >= 2 n0 + 2 p + {}",
            max_heap, t - 1);
    }
    return r;
}

}  // namespace

Periodicity find_period(const Rule& rule, Convention convention, std::span<const uint32_t> g) {
    if (g.empty()) return {};
    if (rule.kind() == RuleKind::subtract) return subtraction_period(g, rule.ranges().back().last);
    if (rule.kind() == RuleKind::octal && convention == Convention::normal) {
        return octal_period(g, static_cast<uint32_t>(rule.octal_digits().size() - 1));
    }
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
    r.explanation =
        c->saltus ? fmt::format("observed within H = {}: g(n+{}) = g(n) + {} for every n >= {} "
                                "in the table (arithmetic-periodic; not proven beyond it)",
                                g.size() - 1, c->period, c->saltus, c->preperiod)
                  : fmt::format("observed within H = {}: period {} from heap {} (not proven "
                                "beyond the table)",
                                g.size() - 1, c->period, c->preperiod);
    return r;
}

}  // namespace nimtb::engine
