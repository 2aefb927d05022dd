#pragma once
// The single-heap sequence of a rule — g(0), g(1), ..., g(H) — and what can
// be said of its period from a finite table.
//
// A period is a claim about every heap size, so it is reported as proven
// only where a theorem turns a finite window of the table into a statement
// for all n; elsewhere it is an observation within the table, or nothing.
//
// - subtract:S (finite S, either convention): for n >= max(S) every amount of
//   S is a move, so g(n) is the same function of the max(S) values before it.
//   If g(n) = g(n+p) for every n in [n0, n0 + max(S)), induction carries the
//   equality to every n >= n0. The smallest such (n0, p) is the sequence's
//   preperiod and period: the smallest true period has the smallest window.
// - octal:CODE in normal play: the octal periodicity theorem of Guy and
//   Smith (1956; Berlekamp, Conway and Guy, Winning Ways, ch. 4; Siegel,
//   Combinatorial Game Theory, 2013, ch. IV): for a code whose last non-zero
//   digit is d_t (at most t tokens removed), if g(n + p) = g(n) for every n
//   with n0 <= n < 2 n0 + p + t, then for every n >= n0. The window grows
//   with n0, since a split of a large heap may leave a part as small as n0.
// - every other case (nim, allbut, lasker, grundy, octal in misere play):
//   the smallest arithmetic period g(n+p) = g(n) + s seen in the table,
//   reported as an observation within it.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/game/rules.h"

namespace nimtb::engine {

// What a finding in a report rests on.
enum class Basis {
    definition,   // the table checked against the definitions of value and remoteness
    theorem,      // a theorem's prediction checked position by position
    proof,        // a statement about every n, proved from a finite window of the table
    observation,  // seen within the table; says nothing beyond it
    none,         // nothing can be claimed from this table
};
const char* to_string(Basis basis);
// The basis named `text`; InputError naming the bases otherwise.
Basis parse_basis(std::string_view text);

struct Periodicity {
    Basis basis = Basis::none;  // proof, observation or none
    uint32_t preperiod = 0;
    uint32_t period = 0;  // 0 when no period is claimed
    uint32_t saltus = 0;  // g(n + period) = g(n) + saltus for n >= preperiod; 0: plain period
    // For a rule with a window proof, when nothing is proven: the largest heap
    // a table would need for the proof of the best candidate seen (or of the
    // smallest period still possible).
    std::optional<uint64_t> needed_max_heap;
    std::string explanation;  // one or two sentences: the claim and what it rests on
};

// A theorem that turns g(n) = g(n + p) for every n in [n0, end(n0, p)) into
// g(n) = g(n + p) for every n >= n0, with end(n0, p) = a n0 + b p + c: the
// subtraction-game window (a, b, c) = (1, 0, max S) and the octal
// periodicity theorem's (2, 1, t).
//
// The octal theorem holds from n0 >= 1 only: its induction maps a split
// (a, b) of heap n + p to (a, b - p), and b - p may be 0 when n0 = 0, which
// is no split (octal:0.04 has g = 0 0 0 0 1 ...: a window from heap 0 would
// "prove" period 1). A period proven from heap `first` reaches down further
// by the plain equalities g(n) = g(n + p) below it (extend_down).
struct ProofWindow {
    uint64_t a, b, c;
    uint64_t first;       // the smallest n0 the theorem allows
    std::string why;      // why the window suffices, for the proof's sentence
    std::string formula;  // the largest heap a window needs, in words
    uint64_t end(uint64_t n0, uint64_t p) const { return a * n0 + b * p + c; }
    // The window's last n reads g(n + p).
    uint64_t needed(uint64_t n0, uint64_t p) const { return end(n0, p) - 1 + p; }
};

// The window theorem for `rule` in `convention`, if one applies.
std::optional<ProofWindow> proof_window(const Rule& rule, Convention convention);

// The smallest m <= n0 with g(n) = g(n + p) for every n in [m, n0): where a
// period proven from n0 really starts.
template <class T>
uint64_t extend_down(std::span<const T> g, uint64_t n0, uint64_t p) {
    while (n0 > 0 && g[n0 - 1] == g[n0 - 1 + p]) --n0;
    return n0;
}

// The sentence of a period proven by the window from `n0` and starting at
// heap `start` <= n0.
std::string proof_sentence(const ProofWindow& w, uint64_t n0, uint64_t p, uint64_t start);

// The period of `values` = g(0..H), the single-heap values of `rule` in
// `convention` as a table holds them.
Periodicity find_period(const Rule& rule, Convention convention, std::span<const uint32_t> values);

}  // namespace nimtb::engine
