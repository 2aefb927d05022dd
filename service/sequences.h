#pragma once
// Single-heap sequences as the front ends ask for them: to a heap, or until a
// period is proven; the memory checked before any work; written to a file
// when asked; and the game of any heap size that a proven period answers
// (`query --rules`, `query --sequence`).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/game/rules.h"
#include "engine/sequences/big_heaps.h"
#include "engine/sequences/period.h"
#include "engine/sequences/sequence.h"
#include "service/request/fields.h"
#include "service/request/hooks.h"

namespace nimtb::service {

// Heaps a sequence may run to: values are 2 bytes a heap (2^32 heaps 8 GiB,
// refused where the memory is not there); periods and preperiods, which a
// proof finds within the first half of the values, stay within 32 bits.
inline constexpr uint64_t MAX_SEQUENCE_HEAPS = SEQUENCE_MAX_HEAP.max;  // the option's range

struct SequenceRequest {
    engine::Rule rule = engine::Rule::nim();
    // To this heap; or, when not set, until a period is proven, up to `limit`.
    std::optional<uint64_t> max_heap;
    uint64_t limit = uint64_t{1} << 24;
    engine::SequenceMethod method = engine::SequenceMethod::automatic;
    unsigned threads = 0;  // engine::SequenceOptions::threads
    std::string output;    // a sequence file to write, or empty
    bool overwrite = false;
    // A folder the values are saved in as they go (sequence_checkpoint.h),
    // and resumed from when it holds some; removed once the sequence is done.
    std::string checkpoint;

    bool until_proven() const { return !max_heap; }
    uint64_t heaps() const { return max_heap.value_or(limit); }
};

// The request as JSON (the keys of Python's keywords; `--request`), and
// back: rules, max_heap or until_proven (and limit), method, threads,
// output, overwrite, checkpoint. Reading, a key left out keeps its default; an unknown
// key, a value of the wrong type or out of range, or max_heap with
// until_proven is an InputError naming the key.
nlohmann::json to_json(const SequenceRequest& request);
SequenceRequest sequence_request_from_json(const nlohmann::json& j);

// The memory a request needs, and a ResourceError when the machine has less
// available; InputError for heap counts outside 1..MAX_SEQUENCE_HEAPS.
uint64_t check_sequence(const SequenceRequest& request);

// Computes (and writes, when asked) the sequence. Throws what
// check_sequence throws, Cancelled, and TableError for the file.
engine::LongSequence compute_sequence(const SequenceRequest& request, const Hooks& hooks);

// The game of a one-heap rule, answered from what is known of its single
// heaps: a formula (nim, lasker) or a proven period for heaps of any size,
// else the values computed, for heaps within them.
struct ProvenGame {
    engine::OneHeapGame game;
    engine::Periodicity period;  // basis theorem (a formula), proof, or none (values only)
};
// By the rule's formula; else its sequence computed until a period is proven
// (at most `limit` heaps) where a theorem can prove one; else its values up
// to heap `needed` (the largest the caller will ask; `limit` when 0).
ProvenGame proven_game(const engine::Rule& rule, uint64_t limit, const Hooks& hooks,
                       uint64_t needed = 0);
// From a sequence file; `rule`, when given, must be the file's.
ProvenGame proven_game(const std::string& sequence_file, const std::optional<engine::Rule>& rule);

}  // namespace nimtb::service
