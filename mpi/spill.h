#pragma once
// A process's solved positions on disk while a distributed solve streams
// (docs/CLUSTER.md, "Streamed processes"): one nameless file per array
// beside the table (a named one in the checkpoint's folder when there is
// one: chain_checkpoint.h), the entries in the process's own order (its
// blocks level by level, as Layout::local_plan lays them out) at the
// array's width, as they are. The table's writer reads them back in the
// pieces of blocks it trades, scattered over that order: raw entries make
// any piece one pread, where a compressed run (io/run_file.h) would decode
// a whole chunk for each. (Spills in LZ4 frames of whole blocks were
// tried: 10 times smaller, but nim misere K=8 H=63 at -np 2 took 531 s
// against 430 s raw, LZ4 on the levels' critical path costing more than
// the kernel's writeback of raw pages.)

#include <cstdint>
#include <string>

#include "engine/base/quantity_array.h"

namespace nimtb::mpi {

class Spill {
  public:
    // Entries of `bits` bits (8 or 16) beside `table_path`; `what` names it
    // in errors ("<table>: dataset /value"). Throws TableError.
    Spill(const std::string& table_path, unsigned bits, std::string what);
    // Entries in the file `path` of a checkpoint (mpi/chain_checkpoint.h),
    // created when missing: the first `keep` it holds, the rest cut off (a
    // resumed solve's). Throws TableError (a file shorter than that).
    Spill(const std::string& path, unsigned bits, std::string what, uint64_t keep);
    ~Spill();
    Spill(const Spill&) = delete;
    Spill& operator=(const Spill&) = delete;

    // Appends entries [0, count) of `a` (at the spill's width) after those
    // appended before. Throws TableError (a full disk).
    void append(const engine::QuantityArray& a, uint64_t count);
    // Entries [first, first + count) into `out`, at the spill's width.
    // Thread-safe. Throws TableError.
    void read(uint64_t first, uint64_t count, uint8_t* out) const;
    // Flushes the entries to disk (before a checkpoint says they are
    // there). Throws TableError.
    void sync() const;

    unsigned bits() const { return bits_; }
    uint64_t size() const { return size_; }

  private:
    std::string what_;
    unsigned bits_;
    bool named_ = false;  // a checkpoint's
    int fd_ = -1;
    uint64_t size_ = 0;
};

}  // namespace nimtb::mpi
