#pragma once
// A run file: one dataset's entries spilled to disk in rank order while a
// streamed solve makes them, read back by the table writer. Blocks of
// BLOCK entries, each compressed alone with LZ4 (fast both ways; the
// table's own compression comes after, in the writer), so any range reads
// back by decompressing the blocks it touches.
//
// The file has no name: it is created in the table's folder and unlinked at
// once, so a crash, a kill or Ctrl-C leaves nothing behind, and its space
// is counted where the table will be.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/quantity_array.h"
#include "io/codec/compressors.h"
#include "io/table_writer.h"

namespace nimtb::io {

class RunFile {
  public:
    // Entries per block: a version-2 chunk, so a chunk the writer reads is
    // one block.
    static constexpr uint64_t BLOCK = uint64_t{1} << 20;

    // A run file of `bits`-bit entries (8 or 16) beside `table_path`; `what`
    // names it in errors ("<table>: dataset /value"). Throws TableError.
    RunFile(const std::string& table_path, unsigned bits, std::string what);
    ~RunFile();
    RunFile(const RunFile&) = delete;
    RunFile& operator=(const RunFile&) = delete;

    // Appends entries [0, count) of `a` (at the run's width), which follow
    // those appended before. Whole blocks are compressed in parallel, inside
    // the caller's task arena, and written in order; the rest waits for the
    // next append or finish(). Throws TableError (a full disk).
    void append(const engine::QuantityArray& a, uint64_t count);
    // Writes the last, partial block. Call once, after the last append.
    void finish();

    uint64_t size() const { return size_; }
    // The entries, for write_table: reads are thread-safe once finished. The
    // run file must outlive what it returns.
    Entries entries() const;

    // Bytes the run holds in memory: while it is appended to, the partial
    // block and a batch of compressed blocks per thread; while it is read
    // back, a block and its compressed bytes per thread.
    static uint64_t memory(unsigned bits, unsigned threads);

  private:
    void write_blocks(const uint8_t* raw, uint64_t blocks);
    void read(uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) const;

    std::string what_;
    int fd_ = -1;
    unsigned bits_;
    uint64_t size_ = 0;                // entries appended
    uint64_t end_ = 0;                 // bytes written to the file
    std::vector<uint8_t> pending_;     // entries of the partial block
    std::vector<uint64_t> offset_;     // block i's bytes: [offset_[i], offset_[i + 1])
    std::vector<ByteBuffer> packets_;  // compressed blocks in flight, kept from batch to batch
};

}  // namespace nimtb::io
