#pragma once
// The checkpoint of a long sequence (`nimtb sequence --checkpoint DIR`):
// the values computed so far, saved in a folder as they are computed
// (engine::SequenceOptions::save: every 2^24 heaps, and at Ctrl-C), so
// that the same command run again after a stop or a crash goes on from the
// last values saved, and removed once the sequence is done.
//
// The folder holds manifest.json (the format and the rule) and one file per
// save, values-FFFFFFFFFFFF.zst: a zstd frame, with its content checksum, of
// the first heap it holds (8 bytes, little-endian; F in the name) and the
// values from it on (2 bytes each, little-endian). Each file is published
// whole (io/codec/publish.h), so a crash while saving leaves the saves
// before it; the files are read in order as long as each goes on where the
// last ended (those past a gap are removed at the next save), and a damaged
// one fails its checksum and is refused.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::service {

class SequenceCheckpoint {
  public:
    // Opens the folder `dir` for `rule`, creating it when missing: the
    // values it holds are read (values()). Throws TableError for a folder
    // that holds no sequence checkpoint's manifest but one of something
    // else, or the checkpoint of another rule, a damaged file, and when it
    // cannot be read or written.
    SequenceCheckpoint(std::string dir, const engine::Rule& rule);

    // The values the folder held when opened: g(0), ..., in order.
    std::vector<uint16_t>& values() { return values_; }
    // Saves values[saved() ..] (every value computed so far) in a file of
    // its own. Throws TableError (a full disk: nothing is published).
    void save(std::span<const uint16_t> values);
    // Heaps the folder holds.
    uint64_t saved() const { return saved_; }
    // Deletes the checkpoint's files, and the folder when that leaves it
    // empty: the sequence is done.
    void remove();

  private:
    std::string dir_;
    uint64_t saved_ = 0;  // heaps in the folder
    std::vector<uint16_t> values_;
    std::vector<std::string> stale_;  // files past a gap, removed at the next save
};

}  // namespace nimtb::service
