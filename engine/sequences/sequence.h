#pragma once
// Single-heap sequences at research length: g(0), g(1), ... of a one-heap
// family to millions of heaps, stored in two bytes a heap, and proven
// periods found while they are computed.
//
// For take-and-break games (octal codes with a split digit, Grundy's game) a
// heap's value is the mex over pairs (a, m - a), so the plain method costs
// O(n) a heap and O(n^2) in all. The sparse-space method (Winning Ways,
// ch. 4; Gangolli and Plambeck 1989; Flammenkamp's octal tables) splits the
// values by the parity of v & M for a mask M: "rare" when even, "common"
// when odd. Parity is linear under XOR, so a pair of two common or two rare
// heaps is worth a rare value and a pair of one rare and one common heap a
// common value. For a good mask almost every heap is common and the rare
// heaps R are few. Then a heap's candidate value is the smallest common
// value that no pair with a rare heap reaches (O(|R|) pairs); it is the mex
// unless some rare value below it is reached by no pair at all, which a
// short scan of pairs of small heaps settles (it stops as soon as every rare
// value below the candidate has been reached, usually after a few hundred
// pairs, read 32 at a time by AVX-512 where the processor has it, else
// sixteen at a time without a branch). Any mask gives the right
// values; a good one gives them fast: the mask under which the fewest heaps
// so far are rare (a Walsh-Hadamard transform of the value counts), chosen
// again at every doubling of the heap when another is clearly better.
//
// On two threads heap n goes to thread n % 2: a heap depends on heap n - 1
// only through a take of one token or a split off of one, so each thread
// computes its heap without those options while the other finishes heap
// n - 1, then adds them (and computes the heap again in the rare case they
// reach its candidate). The values are the same on one thread and two.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/game/rules.h"
#include "engine/sequences/period.h"

namespace nimtb::engine {

enum class SequenceMethod { automatic, plain, sparse };
SequenceMethod parse_sequence_method(std::string_view text);  // throws InputError
const char* to_string(SequenceMethod m);

// The moves of a one-heap take-and-break rule, by the amount k taken:
// bit 1: take k when the heap is exactly k; bit 2: leave one heap of n - k;
// bit 4: leave two non-empty heaps a + b = n - k (unequal ones only for
// Grundy's game).
struct SplitMoves {
    struct Digit {
        uint32_t k;
        uint8_t bits;
    };
    std::vector<Digit> digits;
    bool unequal = false;
    bool splits() const;
};
// The moves of an octal code or of Grundy's game; nullopt for other rules.
std::optional<SplitMoves> split_moves(const Rule& rule);

struct SequenceOptions {
    SequenceMethod method = SequenceMethod::automatic;
    // Stop as soon as a period is proven (the rule needs a proof window).
    bool until_proven = false;
    // Called now and then with (heaps done, heaps asked), on the calling thread.
    std::function<void(uint64_t, uint64_t)> progress;
    // Set from any thread (a SIGINT handler) to stop: nimtb::Cancelled is thrown.
    const std::atomic<bool>* cancel = nullptr;
    // The sparse-space method on two threads when this is 2 or more; with 0,
    // when the machine has two cores and a heap costs more on one than the
    // threads' handing over. The values are the same either way.
    unsigned threads = 0;
    // A resumed run: g(0..k-1) computed before (a checkpoint), taken over
    // (moved from) and continued at heap k. Take-and-break rules only.
    std::vector<uint16_t>* resume = nullptr;
    // Called on the calling thread every SAVE_EVERY heaps, and before a stop
    // for `cancel`, with every value computed so far: for a checkpoint.
    std::function<void(std::span<const uint16_t>)> save;
};

// Heaps between two calls of SequenceOptions::save.
inline constexpr uint64_t SAVE_EVERY = uint64_t{1} << 24;

// Where a sequence stands after its first 2^k values (and after all of
// them): what a researcher cites of a long run, as Flammenkamp's tables and
// tczajka's analyser give it.
struct Milestone {
    uint64_t heaps;         // the values g(0 .. heaps - 1)
    uint32_t largest;       // the largest of them
    uint64_t largest_heap;  // the first heap of it
    uint64_t rare_heaps;    // heaps >= 1 among them whose value is rare under the mask
};
// A heap >= 1 whose value is rare under the mask: the sparse values.
struct RareHeap {
    uint64_t heap;
    uint32_t value;
};
struct SequenceRecord {
    uint32_t mask = 0;
    std::vector<Milestone> milestones;  // at 2^10, 2^11, ..., and at the end
    std::vector<RareHeap> rare;
};
struct LongSequence {
    std::vector<uint16_t> values;  // g(0), ..., g(last computed)
    SequenceMethod method = SequenceMethod::plain;
    uint32_t mask = 0;        // sparse: the mask M of the last stretch
    uint64_t rare_heaps = 0;  // sparse: heaps whose value is rare under M
    // A proven period when the rule has a proof window and the values prove
    // one; else basis none with the explanation of what was computed.
    Periodicity period;
    SequenceRecord record;  // under the mask (sparse), else the milestones alone
};

// g(0..max_heap) of a one-heap rule in normal play, or fewer when
// until_proven stops at a proof. Throws InputError for rules whose moves
// touch several heaps, or when a value does not fit in 16 bits.
LongSequence long_sequence(const Rule& rule, uint64_t max_heap, const SequenceOptions& options);
// The refusals long_sequence makes before any work (a rule of several heaps;
// until_proven without a theorem; the sparse method for a rule that does not
// split), on their own: a caller that says what it is about to do first asks.
void check_long_sequence(const Rule& rule, const SequenceOptions& options);

// The record of values g(0..H) of a sparse-space run under `mask` (0: the
// milestones alone). One pass over the values.
SequenceRecord sequence_record(std::span<const uint16_t> values, uint32_t mask);

// Bytes long_sequence needs for `max_heap` (the values; the method's tables
// are small beside them).
uint64_t long_sequence_bytes(uint64_t max_heap);

}  // namespace nimtb::engine
