#pragma once
// A single-heap sequence as a file (docs/FORMAT.md, "Sequence files"): the
// values g(0..H) of a one-heap rule in normal play, with the period proven
// or not, for `nimtb sequence --output` and for answering positions from it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/sequences/period.h"
#include "engine/sequences/sequence.h"

namespace nimtb::io {

inline constexpr const char* SEQUENCE_FORMAT_NAME = "nimtb-sequence";
inline constexpr uint64_t SEQUENCE_FORMAT_VERSION = 1;

struct SequenceFile {
    engine::Rule rule = engine::Rule::nim();
    std::string algorithm;         // "plain" or "sparse"
    std::vector<uint16_t> values;  // g(0), ..., g(H)
    engine::Periodicity period;    // basis proof with preperiod and period, or none
    // Written beside the values (engine::sequence_record) and, read back,
    // checked against them; none in a file written before nimtb kept it.
    std::optional<engine::SequenceRecord> record;
};

// Writes `s` to `path` under a temporary name, then renames it: nothing is
// left on failure. Refuses an existing `path` unless overwrite. Throws TableError.
void write_sequence(const std::string& path, const SequenceFile& s, bool overwrite);

// Reads and checks a sequence file: its proven period and its record must
// be its values'. Throws TableError naming the file and what is wrong.
SequenceFile read_sequence(const std::string& path);

}  // namespace nimtb::io
