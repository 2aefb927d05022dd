#include "engine/sequences/online_prover.h"

#include <fmt/core.h>

#include <algorithm>

namespace nimtb::engine {

namespace {
// A window of 32 values proposes a period; one window in 64 is remembered
// (chosen by its hash, so a window and its repeat are both remembered or
// both not): memory stays under a byte a heap. A period p has p distinct
// windows, of which the sample catches p / 64: too few below a thousand or
// so, so periods up to SMALL are all candidates from the start.
constexpr uint64_t WIDTH = 32;
constexpr uint64_t BASE = 0x9E3779B97F4A7C15ull;
constexpr unsigned SAMPLE_BITS = 6;
constexpr uint64_t SMALL = 1024;
// Proposed candidates followed at once. A true period never fails again, so
// when there are more, the one that failed last goes.
constexpr size_t MAX_PROPOSED = 48;

// The last n <= end with g(n) != g(n - p), or p - 1 when there is none.
uint64_t last_mismatch(std::span<const uint16_t> g, uint64_t p, uint64_t end) {
    uint64_t n = end;
    while (n >= p && g[n] == g[n - p]) --n;
    return n >= p ? n : p - 1;
}
}  // namespace

PeriodProver::PeriodProver(ProofWindow window) : window_(std::move(window)) {
    for (uint64_t i = 0; i < WIDTH; ++i) power_ *= BASE;
    for (uint64_t p = 1; p <= SMALL; ++p) {
        Candidate c{p, p - 1, p - 1, 0};
        c.due = window_.needed(preperiod(c), p);
        due_.push({c.due, candidates_.size()});
        candidates_.push_back(c);
    }
}

uint64_t PeriodProver::preperiod(const Candidate& c) const {
    return std::max(window_.first, c.last_mismatch + 1 - c.period);
}

void PeriodProver::refresh(std::span<const uint16_t> g, Candidate& c) const {
    const uint64_t n = g.size() - 1;
    for (uint64_t x = n; x > c.checked && x >= c.period; --x) {
        if (g[x] != g[x - c.period]) {
            c.last_mismatch = std::max(c.last_mismatch, x);
            break;
        }
    }
    c.checked = std::max(c.checked, n);
    c.due = window_.needed(preperiod(c), c.period);
}

bool PeriodProver::prove_due(std::span<const uint16_t> g) {
    const uint64_t n = g.size() - 1;
    std::optional<Candidate> best;
    while (!due_.empty() && due_.top().first <= n) {
        const auto [due, i] = due_.top();
        due_.pop();
        Candidate& c = candidates_[i];
        if (c.due != due) continue;  // stale: moved on since
        refresh(g, c);
        if (c.due <= n) {
            if (!best || c.period < best->period) best = c;
        } else {
            due_.push({c.due, i});
        }
    }
    if (!best) return false;
    proven_ = smallest_divisor(g, *best);
    return true;
}

void PeriodProver::propose(std::span<const uint16_t> g, uint64_t period) {
    if (period <= SMALL) return;  // a candidate already
    for (size_t i = SMALL; i < candidates_.size(); ++i) {
        if (candidates_[i].period == period) return;
    }
    const uint64_t n = g.size() - 1;
    Candidate c{period, last_mismatch(g, period, n), n, 0};
    c.due = window_.needed(preperiod(c), period);
    if (candidates_.size() == SMALL + MAX_PROPOSED) {
        // The one that failed last goes (brought up to date first).
        for (size_t i = SMALL; i < candidates_.size(); ++i) refresh(g, candidates_[i]);
        const auto worst = std::max_element(candidates_.begin() + SMALL, candidates_.end(),
                                            [](const Candidate& a, const Candidate& b) {
                                                return a.last_mismatch < b.last_mismatch;
                                            });
        *worst = c;  // its old queue entries are stale now: their due differs
        due_.push({c.due, size_t(worst - candidates_.begin())});
        // A refreshed candidate's due moved on: its queue entry is stale.
        for (size_t i = SMALL; i < candidates_.size(); ++i) due_.push({candidates_[i].due, i});
        return;
    }
    due_.push({c.due, candidates_.size()});
    candidates_.push_back(c);
}

PeriodProver::Candidate PeriodProver::smallest_divisor(std::span<const uint16_t> g,
                                                       const Candidate& c) const {
    const uint64_t n = g.size() - 1;
    for (uint64_t d = 1; d < c.period; ++d) {
        if (c.period % d) continue;
        const Candidate e{d, last_mismatch(g, d, n), n, 0};
        if (window_.needed(preperiod(e), d) <= n) return e;
    }
    return c;
}

bool PeriodProver::finish(std::span<const uint16_t> g) {
    if (proven_) return true;
    const uint64_t n = g.size() - 1;
    std::optional<Candidate> best;
    for (Candidate& c : candidates_) {
        refresh(g, c);
        if (c.due <= n && (!best || c.period < best->period)) best = c;
    }
    if (best) proven_ = smallest_divisor(g, *best);
    return proven_.has_value();
}

bool PeriodProver::add(std::span<const uint16_t> g) {
    if (proven_) return true;
    const uint64_t n = g.size() - 1;
    // 1. A candidate due: proven now, or due later.
    if (!due_.empty() && due_.top().first <= n && prove_due(g)) return true;
    // 2. The window ending at n, remembered for a sample of the heaps; seen
    // before, it proposes the distance as a period.
    hash_ = hash_ * BASE + g[n] + 1;
    if (n >= WIDTH) hash_ -= power_ * (uint64_t{g[n - WIDTH]} + 1);
    if (n + 1 >= WIDTH && (hash_ >> (64 - SAMPLE_BITS)) == 0) {
        auto [it, fresh] = seen_.try_emplace(hash_, n);
        if (!fresh) {
            propose(g, n - it->second);
            it->second = n;
        }
    }
    return false;
}

Periodicity PeriodProver::result(std::span<const uint16_t> g) const {
    const uint64_t computed_up_to = g.size() - 1;
    Periodicity r;
    if (!proven_) {
        r.explanation = fmt::format(
            "no period proven for heaps up to {} ({} needs a window of "
            "heaps up to {} from a period p from heap n0)",
            computed_up_to, window_.why, window_.formula);
        return r;
    }
    const uint64_t n0 = preperiod(*proven_), p = proven_->period;
    r.basis = Basis::proof;
    r.preperiod = static_cast<uint32_t>(extend_down(g, n0, p));
    r.period = static_cast<uint32_t>(p);
    r.explanation = proof_sentence(window_, n0, p, r.preperiod);
    return r;
}

}  // namespace nimtb::engine
