#pragma once
// A run file: one dataset's entries spilled to disk in rank order while a
// streamed solve makes them, read back by the table writer. Its blocks are
// the table's chunks, encoded as the table will store them as far as that
// can be known before the solve ends: at the run's width (the widest the
// solve may need), through the transform that suits the first chunk, then
// compressed and checksummed as the table's options say. The writer stores
// them as they are when the table's layout and transform turn out the same
// (EncodedChunks, table_writer.h); otherwise it reads the entries back, any
// range by decoding the blocks it touches, and encodes them anew. So the
// table's compression runs during the solve, beside it, not after it.
//
// The file has no name: it is created in the table's folder and unlinked at
// once, so a crash, a kill or Ctrl-C leaves nothing behind, and its space
// is counted where the table will be.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/quantity_array.h"
#include "io/codec/compressors.h"
#include "io/table_writer.h"

namespace nimtb::io {

class RunFile {
  public:
    // A run file of `entries` entries of `bits` bits (8 or 16) beside
    // `table_path`, in chunks of the table `options` write; `what` names it
    // in errors ("<table>: dataset /value"). Throws TableError.
    RunFile(const std::string& table_path, unsigned bits, uint64_t entries,
            const WriteOptions& options, std::string what);
    ~RunFile();
    RunFile(const RunFile&) = delete;
    RunFile& operator=(const RunFile&) = delete;

    // Appends entries [0, count) of `a` (at the run's width), which follow
    // those appended before. Whole blocks are encoded in parallel, inside
    // the caller's task arena, and written in order; the rest waits for the
    // next append or finish(). Throws TableError (a full disk).
    void append(const engine::QuantityArray& a, uint64_t count);
    // Writes the last, partial block. Call once, after the last append.
    void finish();

    uint64_t size() const { return size_; }
    // The entries, for write_table, and the blocks as chunks: reads are
    // thread-safe once finished. The run file must outlive what it returns.
    Entries entries() const;

    // Bytes a run of `entries` entries of `bits` bits holds in memory, with
    // `threads` encoding, for a table written with `options`: while it is
    // appended to, the partial block and, per thread, a batch of blocks
    // being encoded; while it is read back, a block and its bytes per thread.
    static uint64_t memory(unsigned bits, unsigned threads, uint64_t entries,
                           const WriteOptions& options);

  private:
    // Encodes and writes `blocks` whole blocks of `raw` holding `entries` entries
    // (the last block's rest is padding).
    void write_blocks(const uint8_t* raw, uint64_t blocks, uint64_t entries);
    void read_block(uint64_t index, ByteBuffer& out) const;
    void read(uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) const;

    std::string what_;
    int fd_ = -1;
    unsigned bits_;
    EncodedChunks encoding_;           // the table's chunks, as guessed; read set by entries()
    bool transformed_ = false;         // the transform is chosen on the first block
    uint64_t size_ = 0;                // entries appended
    uint64_t end_ = 0;                 // bytes written to the file
    std::vector<uint8_t> pending_;     // entries of the partial block
    std::vector<uint64_t> offset_;     // block i's bytes: [offset_[i], offset_[i + 1])
    std::vector<ByteBuffer> raws_;     // blocks being transformed, kept from batch to batch
    std::vector<ByteBuffer> packets_;  // encoded blocks in flight, kept from batch to batch
};

}  // namespace nimtb::io
