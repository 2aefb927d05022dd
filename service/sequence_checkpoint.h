#pragma once
// The checkpoint of a long sequence (`nimtb sequence --checkpoint FILE`):
// the values computed so far, appended to FILE as they are saved
// (engine::SequenceOptions::save: every 2^24 heaps, and at Ctrl-C), so
// that the same command run again after a stop or a crash goes on from the
// last values saved, and removed once the sequence is done.
//
// The file: 8 bytes "NIMTBSQ1", then records, each the length of a zstd
// frame (8 bytes, little-endian) and the frame, with zstd's checksum of
// its content. The first record's content is JSON naming the format and
// the rule; each other record's is the first heap it holds (8 bytes) and
// the values from it on (2 bytes each, little-endian). A record cut short
// by a crash, or failing its checksum, ends what is read: it is cut off and
// the values before it are kept.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/game/rules.h"

namespace nimtb::service {

class SequenceCheckpoint {
  public:
    // Opens FILE for `rule`: the values it holds are read (values()), or it
    // is created. Throws TableError for a file that is not a sequence
    // checkpoint, or is one of another rule, and when it cannot be read or
    // written.
    SequenceCheckpoint(std::string path, const engine::Rule& rule);
    ~SequenceCheckpoint();
    SequenceCheckpoint(const SequenceCheckpoint&) = delete;
    SequenceCheckpoint& operator=(const SequenceCheckpoint&) = delete;

    // The values the file held when opened: g(0), ..., in order.
    std::vector<uint16_t>& values() { return values_; }
    // Appends values[saved ..] (every value computed so far), flushed to
    // disk. Throws TableError (a full disk: the record is taken back).
    void save(std::span<const uint16_t> values);
    // Heaps the file holds.
    uint64_t saved() const { return saved_; }
    // Deletes the file: the sequence is done.
    void remove();

  private:
    void append(const std::vector<uint8_t>& content);

    std::string path_;
    int fd_ = -1;
    uint64_t saved_ = 0;  // heaps in the file
    std::vector<uint16_t> values_;
};

}  // namespace nimtb::service
