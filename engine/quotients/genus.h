#pragma once
// Conway's genus (On Numbers and Games, ch. 12; Winning Ways, ch. 13): the
// classical description of a game in misère play. The genus of G is
// g^{γ0 γ1 γ2 ...}: g its normal-play Grundy value and γn the misère Grundy
// value of G plus n nim-heaps of size 2,
//
//   γn(G) = G⁻(G + *2 + ... + *2)   (n copies),
//
// where G⁻ is the mex of the options' G⁻, and 1 for a game with no move.
// Each γ sequence ends alternating between two values; it is written up to
// the first two values of its alternating tail: *0 is 0^{120} (1, 2, 0, 2,
// 0, ...), *1 is 1^{031}, *2 is 2^{20}.
//
// Computed from the definition, with one lemma: G⁻(X + *1) = G⁻(X) xor 1
// for every game X (induction on X: the options of X + *1 are X'+*1 and X).
// So the options of P + n·*2 give, for every position P,
//
//   γn(P) = mex({γn(P') : P' an option of P} ∪ {γ(n-1)(P), γ(n-1)(P) xor 1})
//
// for n >= 1 (a *2 taken to 0 or to *1), over every position P the heaps
// reach. Once γN = γ(N-2) at every one of those positions, γ(n+2) = γn for
// every n >= N-2 (by induction on P, the recursion being the same): the
// tails are proven to alternate, not assumed to.
//
// A rule whose moves leave at most one heap reaches single heaps only;
// a rule that splits heaps reaches every position of at most max_heap
// tokens in all. A heap that is, as a game, *0, *1 or *2 is left out of
// those: G⁻(X + *1) = G⁻(X) xor 1 and γn(X + *2) = γ(n+1)(X), so the
// positions are the sums of the other heaps (Kayles: of heaps of 3 or more,
// 40 million to heap 100 where every sum would be 1.6 billion), which
// bounds how far this goes (GenusOptions::max_positions).

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::engine {

struct Genus {
    uint32_t normal = 0;                // g: the normal-play Grundy value
    std::vector<uint32_t> superscript;  // γ0 γ1 ... up to the first pair of the alternating tail

    // "0^{120}", "4^{146}"; where a value has two digits, they are
    // separated by commas: "12^{12,14}".
    std::string text() const;
    // The genus of a nim position: 0^{120} or 1^{031} (heaps of one token),
    // 0^{02}, 1^{13} or g^{g, g xor 2} (some heap of two or more). A game
    // whose genus is none of these is wild; one whose genus is one of them
    // may still be wild (the quotient says: quotient --analyze).
    bool tame() const;
    bool operator==(const Genus&) const = default;
};

struct GenusOptions {
    // (done, total) as the γ layers are computed, on the calling thread.
    std::function<void(uint64_t, uint64_t)> progress;
    // Set from any thread to stop: nimtb::Cancelled is thrown.
    const std::atomic<bool>* cancel = nullptr;
    // The most sums a rule that splits heaps may hold (a byte for each γ
    // computed at each); past it, ResourceError names the largest heap that
    // fits. (Single heaps are bounded by their moves instead.)
    uint64_t max_positions = 100'000'000;
};

// How many copies of *2 the computation tries before giving up: most games
// settle within a handful; Daisies (4.7) to heap 40 needs 36.
inline constexpr uint32_t MAX_GENUS_COPIES = 64;
// The largest heap asked for (a rule that splits heaps stops far below, at
// GenusOptions::max_positions).
inline constexpr uint32_t MAX_GENUS_HEAP = 1'000'000;

struct GenusTable {
    std::vector<Genus> heaps;      // heap 0 .. max_heap
    uint64_t positions = 0;        // the positions whose γ were computed
    uint32_t copies = 0;           // γ0 .. γ(copies) computed at every one of them
    uint32_t alternates_from = 0;  // γ(n+2) = γn at every position for n >= this
    bool splits = false;  // the positions are sums (the rule splits heaps), less *0, *1, *2
};

// The genus of every heap 0..max_heap. Throws InputError for a rule whose
// moves touch several heaps, ResourceError past options.max_positions or
// when the γ do not settle within MAX_GENUS_COPIES copies of *2.
GenusTable genus_of_heaps(const Rule& rule, uint32_t max_heap, const GenusOptions& options = {});

}  // namespace nimtb::engine
