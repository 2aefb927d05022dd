#include "engine/sequences/online_prover.h"

#include <fmt/core.h>

#include <algorithm>

namespace nimtb::engine {

namespace {
// A window of 32 values proposes a period; one window in 64 is remembered
// (chosen by its hash, so a window and its repeat are both remembered or
// both not): memory stays under a byte a heap. A period p has p distinct
// windows, of which the sample catches p / 64: too few below a thousand or
// so, so periods up to SMALL are all followed from the start, every STEP
// heaps (a backward scan over the new heaps stops at its first mismatch,
// which for all but true periods is the first heap it looks at).
constexpr uint64_t WIDTH = 32;
constexpr uint64_t BASE = 0x9E3779B97F4A7C15ull;
constexpr unsigned SAMPLE_BITS = 6;
constexpr uint64_t SMALL = 1024;
constexpr uint64_t STEP = 64;
// Candidates followed at once. A true period never fails again, so when
// there are more, the one that failed last goes.
constexpr size_t MAX_CANDIDATES = 48;

// The last n <= end with g(n) != g(n - p), or p - 1 when there is none.
uint64_t last_mismatch(std::span<const uint16_t> g, uint64_t p, uint64_t end) {
    uint64_t n = end;
    while (n >= p && g[n] == g[n - p]) --n;
    return n >= p ? n : p - 1;
}
}  // namespace

PeriodProver::PeriodProver(ProofWindow window) : window_(std::move(window)) {
    for (uint64_t i = 0; i < WIDTH; ++i) power_ *= BASE;
    for (uint64_t p = 1; p <= SMALL; ++p) small_.push_back({p, p - 1});
}

uint64_t PeriodProver::preperiod(const Candidate& c) const {
    return std::max(window_.first, c.last_mismatch + 1 - c.period);
}

void PeriodProver::propose(std::span<const uint16_t> g, uint64_t period) {
    if (period <= SMALL) return;  // followed already
    for (const Candidate& c : candidates_) {
        if (c.period == period) return;
    }
    const uint64_t n = g.size() - 1;
    if (candidates_.size() == MAX_CANDIDATES) {
        auto worst = std::max_element(candidates_.begin(), candidates_.end(),
                                      [](const Candidate& a, const Candidate& b) {
                                          return a.last_mismatch < b.last_mismatch;
                                      });
        candidates_.erase(worst);
    }
    candidates_.push_back({period, last_mismatch(g, period, n)});
}

PeriodProver::Candidate PeriodProver::smallest_divisor(std::span<const uint16_t> g,
                                                       const Candidate& c) const {
    const uint64_t n = g.size() - 1;
    for (uint64_t d = 1; d < c.period; ++d) {
        if (c.period % d) continue;
        const Candidate e{d, last_mismatch(g, d, n)};
        if (window_.needed(preperiod(e), d) <= n) return e;
    }
    return c;
}

bool PeriodProver::prove(std::span<const uint16_t> g, const std::vector<Candidate>& list) {
    const uint64_t n = g.size() - 1;
    for (const Candidate& c : list) {
        if (window_.needed(preperiod(c), c.period) <= n) {
            proven_ = smallest_divisor(g, c);
            return true;
        }
    }
    return false;
}

bool PeriodProver::finish(std::span<const uint16_t> g) {
    if (proven_) return true;
    const uint64_t n = g.size() - 1;
    for (Candidate& c : small_) {
        for (uint64_t x = n; x > small_done_ && x >= c.period; --x) {
            if (g[x] != g[x - c.period]) {
                c.last_mismatch = std::max(c.last_mismatch, x);
                break;
            }
        }
    }
    small_done_ = n;
    return prove(g, small_);
}

bool PeriodProver::add(std::span<const uint16_t> g) {
    if (proven_) return true;
    const uint64_t n = g.size() - 1;
    // 1. The candidates: their last mismatch, and whether one is proven
    // (the short periods first: they are the smallest).
    if (n % STEP == STEP - 1 && finish(g)) return true;
    for (Candidate& c : candidates_) {
        if (n >= c.period && g[n] != g[n - c.period]) c.last_mismatch = n;
    }
    if (prove(g, candidates_)) return true;
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
