#pragma once
// The JSON that `nimtb query --json`, `info --json` and `dump --count --json`
// print, built in one place so that `nimtb serve` answers with the same objects.

#include <nlohmann/json.hpp>

#include "engine/checks/census.h"
#include "engine/sequences/period.h"
#include "engine/sequences/sequence.h"
#include "io/probe.h"
#include "io/sequence_file.h"
#include "service/sequences.h"

namespace nimtb::service {

nlohmann::json heaps_json(const engine::Heaps& heaps);

// One move as query's "moves" list it (heaps in the order the position
// was given), in the one shape every answer gives a move (docs/MOVES.md):
// "move" (the phrase), "heap" (1-based), "heap_size", "take" and "leaves"
// (what is left of that heap, ascending), the last four null for a move of
// several heaps; then "touches", every move's structure: each heap it
// changes ("heap", 1-based, and its "size") and the non-empty heaps it
// leaves in its place ("leaves": [] when emptied, two or three parts for a
// split); and "result", "value", "remoteness", "wins".
nlohmann::json move_json(const io::ProbedMove& move);

// A move on one heap of a position of big heaps (normal play from values,
// misère play from a quotient), in the same shape: "move", "heap"
// (1-based), "heap_size", "take", "leaves".
template <class Move>
nlohmann::json heap_move_json(const Move& m) {
    return {{"move", m.phrase},
            {"heap", m.index + 1},
            {"heap_size", m.heap},
            {"take", m.taken},
            {"leaves", m.leaves}};
}

// A position a person typed (the command's argument, a line of its input,
// Python's text): heap sizes such as "3 4 5" or "3,4,5"; blank text is
// refused (InputError), since it is more often a slip than the empty board,
// which is "0". (A URL's empty parameter is the empty board: the page's.)
engine::Heaps typed_position(std::string_view text);
// The same refusal alone, for text read as heaps of another size.
void refuse_blank_position(std::string_view text);

// One position: rank, outcome, value, remoteness, every move best first, and
// with `line` the whole game under perfect play.
nlohmann::json query_json(io::Prober& prober, const engine::Heaps& heaps, bool line);

// What the table holds and how it is stored.
nlohmann::json info_json(const io::TableReader& table);

// The P-position census of `table` (count_table, dump.h) as JSON.
nlohmann::json census_json(const io::TableReader& table, const engine::Census& census);

// A period as verify and sequence print it in JSON: basis, explanation, and
// preperiod, period and saltus when one is claimed.
nlohmann::json period_json(const engine::Periodicity& p);

// The period `sequence` reports for values computed: the proof found while
// computing, else the table-style search (a proof at its smallest window, or
// a period observed) when the values are few enough for it.
engine::Periodicity reported_period(const engine::Rule& rule, const engine::LongSequence& seq);

// `nimtb sequence --json`: the rule, the method, every value, the period
// and the record (record_json).
nlohmann::json sequence_json(const engine::Rule& rule, const engine::LongSequence& seq);
// A sequence's record: the mask, where the values stand at each power of
// two ({heaps, largest_value, largest_value_heap, rare_heaps}) and the rare
// heaps as [heap, value] pairs.
nlohmann::json record_json(const engine::SequenceRecord& r);

// `nimtb info` of a sequence file read by io::read_sequence: the rule, the
// heaps, the largest value (and the first heap of it) and the period.
nlohmann::json sequence_info_json(const std::string& path, const io::SequenceFile& s);

// A position answered from a one-heap rule's values: what `nimtb query
// --rules R --json` (or --sequence) prints, "basis" saying what the answer
// rests on ("formula", "period", "values"). `heaps` up to 2^63 each; a heap
// beyond what is known is an InputError.
nlohmann::json proven_answer_json(const ProvenGame& proven, const std::vector<uint64_t>& heaps);

}  // namespace nimtb::service
