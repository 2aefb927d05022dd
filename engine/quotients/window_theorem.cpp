// The window theorems of quotient.h: when Q_N is the quotient of heaps of
// every size, and the element of a heap beyond N.
#include <fmt/format.h>

#include <algorithm>

#include "engine/base/errors.h"
#include "engine/quotients/quotient.h"

namespace nimtb::engine {

namespace {

// A window theorem of quotient.h: phi(h + p) = phi(h) for every h from n0
// to N - p proves the quotient whole when N >= needed(n0, p).
struct Window {
    uint64_t a, b, c;  // needed(n0, p) = a n0 + b p + c - 1 + p
    uint64_t first;    // the smallest n0 the theorem allows
    std::string why;
    uint64_t needed(uint64_t n0, uint64_t p) const { return a * n0 + b * p + c - 1 + p; }
};

std::optional<Window> window_of(const Rule& rule) {
    if (rule.kind() == RuleKind::subtract) {
        const uint64_t s = rule.ranges().back().last;
        return Window{1, 0, s, 0,
                      fmt::format("a move takes at most {} tokens and leaves one heap, so heap "
                                  "h's options are phi of the {} heaps below it",
                                  s, s)};
    }
    if (rule.kind() == RuleKind::octal) {
        const uint64_t t = rule.code_digits().size() - 1;
        return Window{2, 1, t, 1,
                      fmt::format("a move takes at most {} token{} and a split (a, b) of heap "
                                  "h + p is the split (a, b - p) of heap h",
                                  t, t == 1 ? "" : "s")};
    }
    return std::nullopt;
}

}  // namespace

bool quotient_provable(const Rule& rule) {
    return window_of(rule).has_value();
}

std::optional<QuotientProof> prove_quotient(const Rule& rule, const BipartiteMonoid& m) {
    const std::optional<Window> w = window_of(rule);
    if (!w) return std::nullopt;
    const uint64_t n = m.max_heap();
    for (uint64_t p = 1; p <= n; ++p) {
        // phi repeats with period p from `start` up to heap n.
        uint64_t start = n - p + 1;
        while (start > 0 && m.phi[start - 1] == m.phi[start - 1 + p]) --start;
        const uint64_t n0 = std::max(start, w->first);
        if (w->needed(n0, p) > n) continue;
        QuotientProof proof;
        proof.preperiod = static_cast<uint32_t>(start);
        proof.period = static_cast<uint32_t>(p);
        proof.explanation = fmt::format(
            "phi has period {} from heap {}: phi(h + {}) = phi(h) for every h from {} to {}, "
            "and {}; so each heap beyond {} meets the exact check as heap h - {} does, and Q_{} "
            "is the quotient of heaps of every size",
            p, start, p, n0, n - p, w->why, n, p, n);
        return proof;
    }
    return std::nullopt;
}

uint32_t heap_element(const MisereQuotient& q, uint64_t heap) {
    const BipartiteMonoid& m = q.monoid;
    if (heap <= m.max_heap()) return m.phi[heap];
    if (!q.proof) {
        throw InputError(fmt::format(
            "a heap of {} is beyond the quotient's heaps (at most {}), which is not proven for "
            "larger ones",
            heap, m.max_heap()));
    }
    const uint64_t start = q.proof->preperiod, period = q.proof->period;
    return m.phi[start + (heap - start) % period];
}

}  // namespace nimtb::engine
