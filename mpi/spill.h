#pragma once
// A process's solved positions on disk while a distributed solve streams
// (docs/CLUSTER.md, "Streamed processes"): one nameless file per array
// beside the table (a named one in the checkpoint's folder when there is
// one: chain_checkpoint.h), the entries in the process's own order (its
// blocks level by level, as Layout::local_plan lays them out) at the
// array's width, as they are. The chunk encoder (chunk_encoder.h) and the
// table's writer read them back in pieces of blocks, scattered over that
// order: raw entries make any piece one pread, where a compressed run
// (io/run_file.h) would decode a whole chunk for each. (Spills in LZ4
// frames of whole blocks were tried: 10 times smaller, but nim misere K=8
// H=63 at -np 2 took 531 s against 430 s raw, LZ4 on the levels' critical
// path costing more than the kernel's writeback of raw pages.)
//
// A level goes to disk from the window it was solved in, by a thread of
// the spill's own, while the solve goes on in the spill's other window
// (append swaps them; levels under 256 KiB are gathered into batches
// instead, so that small levels do not wait on the disk's latency), and
// around the page cache (O_DIRECT, in whole blocks, where the file system
// allows it). Copied into the page cache by the solve's thread, the
// entries took 12 % of the samples (perf of nim misere K=8 H=63 at -np 2:
// copy_folio_from_iter_atomic), for pages read back only after the solve,
// and from disk anyway once the spills outgrow the cache; written by the
// solve's thread around it, the solve waited on the disk (5 % of the
// samples idle). The table's writer asks for its next round's pieces ahead
// (prefetch) while it encodes the ones it has.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

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

    // Appends entries [0, count) of `window` (at the spill's width) after
    // those appended before. They reach the file in the background, from
    // `window` itself, which is swapped for the spill's other window: the
    // one handed over before, once written (the same size and width, its
    // entries stale). Throws TableError (a full disk, met by this append or
    // one before).
    void append(engine::QuantityArray& window, uint64_t count);
    // Waits until every entry appended is in the file; `last`: none will
    // follow, and the other window is let go. Throws TableError.
    void flush(bool last = false);
    // Entries [first, first + count) into `out`, at the spill's width, once
    // flushed or waited for (wait_on_disk). Thread-safe. Throws TableError.
    void read(uint64_t first, uint64_t count, uint8_t* out) const;
    // Waits, on a thread other than the appender's, until the first `count`
    // entries are in the file (a batch goes when full or flushed): true;
    // false once the spill stops, fails or is told to stop_waiting.
    bool wait_on_disk(uint64_t count);
    void stop_waiting();
    // Tells the system that entries [first, first + count) will be read
    // soon: it starts reading them from disk and returns at once.
    void prefetch(uint64_t first, uint64_t count) const;
    // Flushes the entries to disk (before a checkpoint says they are
    // there). Throws TableError.
    void sync();

    unsigned bits() const { return bits_; }
    uint64_t size() const { return size_; }

  private:
    using Buffer = std::unique_ptr<uint8_t, void (*)(void*)>;
    // What the writer writes, in the order given: `bytes` bytes of the
    // window handed over (buffer 2) or of a batch (0, 1) at file offset `at`.
    struct Job {
        const uint8_t* data;
        uint64_t bytes, at;
        unsigned buffer;
    };
    static constexpr unsigned WINDOW = 2;

    // The writer's: `bytes` bytes at `from` written at file offset `at`,
    // through stage_ (whole blocks). Throws TableError.
    void write(const uint8_t* from, uint64_t bytes, uint64_t at);
    void write_jobs();  // the writer's loop
    void start();       // the buffers and the writer, at the first append
    // Waits until no job to come reads `buffer`. Rethrows the writer's failure.
    void wait_free(unsigned buffer);
    void give(Job job);
    void give_batch();  // the batch filled so far, and fill the other

    std::string what_;
    unsigned bits_;
    bool named_ = false;  // a checkpoint's
    int fd_ = -1;         // reads (and writes where O_DIRECT is refused)
    int direct_ = -1;     // writes around the page cache, or -1
    uint64_t size_ = 0;   // entries appended
    // The writer's buffer, beginning with the bytes of the file's last
    // partial block (written padded, rewritten whole by the next write).
    Buffer stage_{nullptr, nullptr};
    // Small levels are gathered into a batch, two in turn, and given to the
    // writer a batch at a time: one written level each would wait on the
    // disk's latency where levels are solved in less.
    Buffer batches_[2]{{nullptr, nullptr}, {nullptr, nullptr}};
    unsigned filling_ = 0;
    uint64_t batch_bytes_ = 0;       // the last entries appended
    engine::QuantityArray written_;  // the window handed over last
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Job> jobs_;  // under mutex_: the first one being written
    uint64_t on_disk_ = 0;  // under mutex_: bytes at the file's start written
    bool stopping_ = false;
    bool no_waits_ = false;  // under mutex_: wait_on_disk() returns at once
    std::exception_ptr failed_;
    std::thread writer_;
};

}  // namespace nimtb::mpi
