#pragma once
// Finding and proving the period of a sequence while it is computed.
//
// find_period (period.h) searches a finished table for every period and
// preperiod: fine for thousands of values, quadratic for millions. Here the
// candidates come from the sequence itself: a hash of the last few values is
// remembered (for a sample of the heaps), and a window of values seen again
// p heaps later proposes the period p; every period up to a thousand is a
// candidate from the start. A candidate is looked at only when the values
// reach the heap its proof window needs (its "due" heap, from the last heap
// n with g(n) != g(n - p) known): then its last mismatch is brought up to
// date by a scan back over the new heaps, which for all but true periods
// stops at the first heap it reads, and either it is proven at this very
// heap or its due heap moves on (about twice as far). A heap costs O(1)
// when no candidate is due. The period reported is the smallest: the
// divisors of a proven period are tried.

#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/sequences/period.h"

namespace nimtb::engine {

class PeriodProver {
  public:
    explicit PeriodProver(ProofWindow window);

    // Called with the values g(0..n) after each new g(n), n = 0, 1, 2, ...
    // in order. Returns true once a period is proven (then result() has it),
    // at the first n whose values prove it.
    bool add(std::span<const uint16_t> g);
    // Brings every candidate up to date: called once after the last add().
    // Returns add()'s answer.
    bool finish(std::span<const uint16_t> g);

    // The proven period, or basis none with what was computed: g(0..n) as
    // last given to add().
    Periodicity result(std::span<const uint16_t> g) const;

  private:
    struct Candidate {
        uint64_t period;
        uint64_t
            last_mismatch;  // the last n <= checked with g(n) != g(n - period); period - 1 if none
        uint64_t checked;   // last_mismatch is known for heaps up to here
        uint64_t due;       // the heap whose values would prove it, as last known
    };
    uint64_t preperiod(const Candidate& c) const;
    // Scans the heaps after c.checked up to n, and sets c.due.
    void refresh(std::span<const uint16_t> g, Candidate& c) const;
    // Refreshes every candidate due by n; true (and proven_ set) when one is proven.
    bool prove_due(std::span<const uint16_t> g);
    void propose(std::span<const uint16_t> g, uint64_t period);
    // The candidate with the smallest period among `c`'s divisors that the
    // values prove, or c itself.
    Candidate smallest_divisor(std::span<const uint16_t> g, const Candidate& c) const;

    ProofWindow window_;
    uint64_t hash_ = 0, power_ = 1;  // rolling hash of the last WIDTH values, and BASE^WIDTH
    std::unordered_map<uint64_t, uint64_t> seen_;  // sampled window hash -> its last heap
    // Every period up to a thousand, then those the windows proposed.
    std::vector<Candidate> candidates_;
    // (due, index into candidates_), the soonest due on top; an entry whose
    // due is stale (its candidate moved on or went) is skipped.
    std::priority_queue<std::pair<uint64_t, size_t>, std::vector<std::pair<uint64_t, size_t>>,
                        std::greater<>>
        due_;
    std::optional<Candidate> proven_;
};

}  // namespace nimtb::engine
