#pragma once
// Misère quotients (Plambeck; Plambeck and Siegel): positions G and H of a
// one-heap rule, multisets of heaps of at most N tokens, are
// indistinguishable when G + X and H + X have the same misère outcome for
// every such X. The classes form a finite commutative monoid Q_N, the
// quotient; phi maps each heap to its class, and the P-portion is the set
// of classes of misère P-positions. A position is a misère P-position
// exactly when the product of its heaps' phi lies in the P-portion.
//
// The computation goes heap by heap and never trusts a guess
// (docs/QUOTIENTS.md gives the proofs):
// 1. extend: from Q_{n-1}, the candidate for heap n supposes that the
//    outcome of Y + k copies of heap n depends only on Y's element x.
//    Column k (outcomes over x) is then a function of column k - 1, so the
//    first repeated column gives the new heap's index and period exactly;
//    Moore's algorithm reduces.
// 2. the least failure: the smallest position (fewer tokens, then more
//    heaps, then smaller heaps written largest first) whose prediction
//    does not follow from its options' predictions. Every position before
//    it is then predicted right and it is predicted wrongly; when there is
//    none, the candidate predicts every position. Found exactly: failures
//    predicted P at the smallest positions of the elements plus one heap,
//    the others by walking positions in order, each followed by its
//    element and its options' elements, and dropping a position that an
//    earlier one of the same element covers (its moves reach P in fewer
//    contexts).
// 3. refine: first (up to three times) by the candidate's pairs (phi(G),
//    the contexts where a move inside G reaches P), which give a finer
//    monoid for heaps below n to extend again; then along the least failure
//    of the first candidate: free cyclic parts for some heaps of F, each
//    beside the heap's old element, make a finer monoid whose P-portion is
//    computed from each element's smallest position; kept when it predicts
//    F right, which moves the least failure past F. Then step 2 again.
// A quotient is returned only when step 2 finds no failure; reduced by
// Moore's algorithm, it is the quotient itself.
//
// Heaps of every size (prove_quotient): step 2 asks, of each heap h, only
// for the pair (phi(h), the images of h's options). Where a window theorem
// makes that pair periodic in h once phi is, a Q_N whose phi repeats over a
// long enough window passes the check for every heap, so it is the quotient
// of the whole game:
// - octal:CODE, at most t tokens taken in a move: phi(h + p) = phi(h) for
//   every h from n0 >= 1 to N - p, and N >= 2 n0 + 2p + t - 1 (a split
//   (a, b) of heap h + p becomes (a, b - p) of heap h, b - p >= n0);
// - subtract:S: the same with N >= n0 + p + max S - 1.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/quotients/monoid.h"

namespace nimtb::engine {

// A position the monoid predicts wrongly.
struct QuotientFailure {
    Heaps position;    // largest heap first
    bool predicted_p;  // what the monoid says (the truth is the other)
};

// One relation of a presentation: two words in the generators, each a
// multiset of generator heaps (largest first).
struct QuotientRelation {
    Heaps left, right;
};

// Why Q_N is the quotient of the whole game: phi repeats from `preperiod`
// with `period`, proven by the window theorem above.
struct QuotientProof {
    uint32_t preperiod = 0;  // phi(h + period) = phi(h) for every h >= preperiod
    uint32_t period = 0;
    std::string explanation;  // the claim and what it rests on, one sentence
};

// How far a heap the computation stopped in got: the candidates refuted
// for it, and the last one's order and least failure. Every position
// before that failure (every position of fewer tokens, among others) is
// predicted right by that candidate, which is not yet the quotient.
struct QuotientFrontier {
    uint32_t heap = 0;
    uint32_t candidates = 0;
    uint32_t order = 0;
    QuotientFailure failure;
    // The quotient of heaps up to `heap` has at least this many elements:
    // smallest positions of the candidate's elements, of at most h tokens,
    // that positions of at most k tokens tell apart, h + k = tokens() - 1
    // (every sum predicted right by the candidate), and never fewer than
    // Q_{heap - 1}'s.
    uint32_t at_least = 0;
    // The failure's tokens: the candidate is right on every position of fewer.
    uint64_t tokens() const { return engine::tokens(failure.position); }
};

struct MisereQuotient {
    BipartiteMonoid monoid;
    std::optional<QuotientProof> proof;       // set when Q_N is the whole game's
    std::vector<uint32_t> orders;             // |Q_h| for h = 0 .. max heap (orders[0] = 1)
    std::vector<uint32_t> generators;         // heaps whose phi is not a product of earlier ones
    std::vector<QuotientRelation> relations;  // with the generators, a presentation
    std::vector<Heaps> words;                 // each element's smallest word in the generators
    uint32_t candidates = 0;                  // candidates refuted for Q_1 .. Q_N (steps 2 and 3)
    std::string stopped;  // with QuotientOptions::deadline: why it stopped short of max_heap
    // With `stopped`: the heap it stopped in, once a candidate for it was refuted.
    std::optional<QuotientFrontier> frontier;
    // QuotientOptions::max_copies: set, the monoid predicts the positions
    // with at most this many copies of heap max_heap, and is no quotient.
    std::optional<uint32_t> max_copies;
};

// The largest heap bound accepted, and the largest order a candidate (so a
// quotient) may have unless told (DEFAULT) and at most (MAX): products are a
// table of order^2 entries of 4 bytes, 256 MiB at 8192 and 4 GiB at 32768.
inline constexpr uint32_t MAX_QUOTIENT_HEAP = 100'000;
inline constexpr uint32_t DEFAULT_QUOTIENT_ORDER = 8192;
inline constexpr uint32_t MAX_QUOTIENT_ORDER = 32768;

struct QuotientOptions {
    // Called after each heap with (heap, order of Q_heap), on the calling thread.
    std::function<void(uint32_t, uint32_t)> progress;
    // Set from any thread to stop: nimtb::Cancelled is thrown.
    const std::atomic<bool>* cancel = nullptr;
    // Stop at the first heap whose quotient prove_quotient proves whole.
    bool until_proven = false;
    // When set, the computation stops at this time, or when a candidate or
    // the check grows past the limits below, and returns the largest
    // quotient computed (Q_h for the heaps done) with `stopped` saying why,
    // instead of throwing ResourceError.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    // The largest order a candidate may have (at most MAX_QUOTIENT_ORDER);
    // any one step's memory is bounded by twice its table, and 2 GiB at least.
    uint32_t max_order = DEFAULT_QUOTIENT_ORDER;
    // When set, the last heap (max_heap) is checked only against positions
    // with at most this many copies of it (at least 1; no deadline, not
    // until_proven). No move makes a heap of max_heap tokens, so those
    // positions are closed under moves and the exact check holds among
    // them: the monoid returned predicts each of them, with any number of
    // smaller heaps. It is a predictor, not Q_max_heap (they are not closed
    // under sums); Q_h for smaller heaps are the quotients as before.
    std::optional<uint32_t> max_copies;
    // When set, the computation goes on from this quotient, Q_h of the same
    // rule (h <= max_heap; its orders and candidates refuted carried over)
    // instead of from Q_0. Q_{h+1} depends on Q_h alone (its elements'
    // numbering included), so the result is the one a run from Q_0 gives.
    const MisereQuotient* resume = nullptr;
};

// Q_max_heap of a rule whose moves touch one heap. Throws InputError for
// other rules or a max_order past MAX_QUOTIENT_ORDER, ResourceError when
// a candidate grows past max_order or a step past its memory (the message
// names the largest quotient computed).
MisereQuotient misere_quotient(const Rule& rule, uint32_t max_heap,
                               const QuotientOptions& options = {});

// nullopt when `m` predicts the misère outcome of every position whose heaps
// have at most m.max_heap() tokens; else a position it predicts wrongly
// (the exact check of step 2 above). `m` must be generated by its phi.
std::optional<QuotientFailure> check_quotient(const Rule& rule, const BipartiteMonoid& m,
                                              const std::atomic<bool>* cancel = nullptr);

// True when a window theorem above applies to `rule` (octal codes and
// subtraction games).
bool quotient_provable(const Rule& rule);

// The proof that `m`, a quotient accepted by check_quotient for heaps up to
// m.max_heap(), is the quotient of the whole game; nullopt when its phi does
// not repeat over a window long enough (or no theorem applies).
std::optional<QuotientProof> prove_quotient(const Rule& rule, const BipartiteMonoid& m);

// The element of a heap of any size: phi within the quotient's heaps, by
// the proven period beyond them. Throws InputError beyond an unproven one.
uint32_t heap_element(const MisereQuotient& q, uint64_t heap);

// Fills q's generators, relations and words from q.monoid (a monoid
// generated by its phi), as misere_quotient does.
void present_quotient(MisereQuotient& q);

// True when q and r are one quotient heap for heap, r's heaps `shift`
// larger: the map sending each element of q (the product of q's phi over
// its smallest position) to the product of r's phi over the same heaps,
// each `shift` larger, is a bijection onto r that keeps products and P.
// r's heaps up to `shift` must then act as the identity. Needs
// r.max_heap() == q.max_heap() + shift (else false).
bool same_quotient(const BipartiteMonoid& q, const BipartiteMonoid& r, uint32_t shift);

// Generator names: a, b, ..., z, then g27, g28, ...
std::string generator_name(size_t index);

// A word in the generators as text: "1", "a", "a b^2".
std::string word_text(const MisereQuotient& q, const Heaps& word);

}  // namespace nimtb::engine
