#pragma once
// A process's solved positions on disk while a distributed solve streams
// (docs/CLUSTER.md, "Streamed processes"): one nameless file per array
// beside the table (a named one in the checkpoint's folder when there is
// one: chain_checkpoint.h), the entries in the process's own order (its
// blocks level by level, as Layout::local_plan lays them out) at the
// array's width, in LZ4 frames. A frame holds whole blocks of one level
// (at least MIN_FRAME entries where the level has them) or a part of one
// block of more than MAX_FRAME, so the table's writer, which reads the
// spill block by block (the parts of blocks it trades, scattered over this
// order), decodes little besides the block it wants; and the file can be
// cut back to the start of any level (a resumed solve's). LZ4, not the
// table's zstd: the spill is written once and read once, and LZ4 costs the
// least time for what it saves (nim misere K=8 H=63: raw spills, 30 GiB, left
// the page cache and a fifth of the solve's time went to the kernel copying
// and writing them back).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/base/quantity_array.h"
#include "engine/solve/solve_order.h"
#include "io/codec/compressors.h"

namespace nimtb::mpi {

class Spill {
  public:
    static constexpr uint64_t MIN_FRAME = uint64_t{1} << 12;  // entries
    static constexpr uint64_t MAX_FRAME = uint64_t{1} << 16;

    // Entries of `bits` bits (8 or 16) beside `table_path`; `what` names it
    // in errors ("<table>: dataset /value"). Throws TableError.
    Spill(const std::string& table_path, unsigned bits, std::string what);
    // Entries in the file `path` of a checkpoint (mpi/chain_checkpoint.h),
    // created when missing: the first `keep` it holds (the start of a
    // level), the frames after them cut off (a resumed solve's). Throws
    // TableError (a file shorter than that, or damaged).
    Spill(const std::string& path, unsigned bits, std::string what, uint64_t keep);
    ~Spill();
    Spill(const Spill&) = delete;
    Spill& operator=(const Spill&) = delete;

    // Appends entries [0, count) of `a` (at the spill's width), one level's
    // blocks `blocks` (their counts add up to count), after those appended
    // before. Throws TableError (a full disk).
    void append(const engine::QuantityArray& a, std::span<const engine::Block> blocks);
    // Entries [first, first + count) into `out`, at the spill's width. Not
    // thread-safe: the frame last decoded is kept for the next read. Throws
    // TableError (damaged).
    void read(uint64_t first, uint64_t count, uint8_t* out) const;
    // Flushes the entries to disk (before a checkpoint says they are
    // there). Throws TableError.
    void sync() const;

    unsigned bits() const { return bits_; }
    uint64_t size() const { return size_; }

    // Bytes a spill of `entries` entries in `levels` levels holds in memory
    // at most: its frames' index, a frame decoded, and the bytes of one
    // append on their way to the file.
    static uint64_t memory(unsigned bits, uint64_t entries, uint64_t levels);

  private:
    // Writes the frames packed so far (out_) after those written.
    void write_packed();
    // Frame f's entries into raw_ (unless they are there).
    void decode(size_t f) const;

    std::string what_;
    unsigned bits_;
    bool named_ = false;  // a checkpoint's
    int fd_ = -1;
    uint64_t size_ = 0;   // entries
    uint64_t bytes_ = 0;  // of the file
    // Frame f: entries [first_[f], first_[f + 1]), its header at byte at_[f];
    // the last element of each closes the last frame.
    std::vector<uint64_t> first_{0}, at_{0};
    io::ByteBuffer out_, packet_;
    mutable io::ByteBuffer raw_, packed_;
    mutable size_t decoded_ = SIZE_MAX;
};

}  // namespace nimtb::mpi
