#pragma once
// Finding and proving the period of a sequence while it is computed.
//
// find_period (periodicity.h) searches a finished table for every period and
// preperiod: fine for thousands of values, quadratic for millions. Here the
// candidates come from the sequence itself: a hash of the last few values is
// remembered (for a sample of the heaps), and a window of values seen again
// p heaps later proposes the period p. Each candidate is then followed in
// O(1) a heap (the last heap n with g(n) != g(n - p)), and as soon as the
// values computed cover the proof window of a candidate, the period is
// proven; its divisors are tried, so the period reported is the smallest.

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/sequences/period.h"

namespace nimtb::engine {

class PeriodProver {
  public:
    explicit PeriodProver(ProofWindow window);

    // Called with the values g(0..n) after each new g(n), n = 0, 1, 2, ...
    // in order. Returns true once a period is proven (then result() has it).
    bool add(std::span<const uint16_t> g);
    // Brings the short periods up to date (add() does every few dozen
    // heaps): called once after the last add(). Returns add()'s answer.
    bool finish(std::span<const uint16_t> g);

    // The proven period, or basis none with what was computed: g(0..n) as
    // last given to add().
    Periodicity result(std::span<const uint16_t> g) const;

  private:
    struct Candidate {
        uint64_t period;
        uint64_t last_mismatch;  // the last n with g(n) != g(n - period); period - 1 if none
    };
    uint64_t preperiod(const Candidate& c) const;
    // Whether a candidate of `list` is proven by g(0..n); keeps the smallest.
    bool prove(std::span<const uint16_t> g, const std::vector<Candidate>& list);
    void propose(std::span<const uint16_t> g, uint64_t period);
    // The candidate with the smallest period among `c`'s divisors that the
    // values prove, or c itself.
    Candidate smallest_divisor(std::span<const uint16_t> g, const Candidate& c) const;

    ProofWindow window_;
    uint64_t hash_ = 0, power_ = 1;  // rolling hash of the last WIDTH values, and BASE^WIDTH
    std::unordered_map<uint64_t, uint64_t> seen_;  // sampled window hash -> its last heap
    std::vector<Candidate> small_;                 // every period up to a thousand
    uint64_t small_done_ = 0;                      // small_ is up to date for g(0..small_done_)
    std::vector<Candidate> candidates_;            // longer ones the windows proposed
    std::optional<Candidate> proven_;
};

}  // namespace nimtb::engine
