#pragma once
// One dataset of a table (/value or /remoteness), read chunk by chunk with a
// cache of decoded chunks. A point look-up decompresses the one chunk that
// holds it and undoes the chunk's transform only as far as it needs; a batch
// of look-ups (a position's children) decompresses each chunk it touches
// once, the chunks in parallel. For io/table_reader only.

#include <hdf5.h>
#include <oneapi/tbb/enumerable_thread_specific.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/codec/chunk_codec.h"
#include "io/codec/table_format.h"
#include "io/hdf5_handle.h"

namespace nimtb::io {

class DatasetReader {
  public:
    // Takes an open dataset already checked by the table reader: entries of
    // `width` bytes, `size` of them in chunks of `chunk`.
    DatasetReader(Handle handle, std::string what, uint64_t size, uint64_t chunk, unsigned width,
                  Transform transform, Compression compression, bool direct);

    uint64_t size() const { return size_; }
    uint64_t chunk() const { return chunk_; }
    // The bytes its chunks take in the file (HDF5 visits every chunk's
    // record: not free on a large table).
    uint64_t stored_bytes() const { return H5Dget_storage_size(handle_.get()); }

    // Decoded chunks kept, at most `bytes` of them (at least one chunk).
    void set_cache(uint64_t bytes);
    // get_many() through the cache too: each chunk it touches decompressed
    // once and kept, rather than decoded again on each call.
    void keep_chunks(bool keep) { keep_chunks_ = keep; }

    // The entry at `rank` < size(). Throws TableError on a damaged chunk.
    uint32_t get(uint64_t rank);

    // outs[d][i] = readers[d]->get(ranks[i]) for every reader d and every i:
    // the chunks of every reader read one after the other (HDF5 serialises
    // its calls under one lock), then decoded together in parallel, each only as far as
    // its last look-up (ChunkDecoder). Throws TableError on a damaged chunk.
    static void get_many(std::span<DatasetReader* const> readers, std::span<const uint64_t> ranks,
                         std::span<const std::span<uint32_t>> outs);

    // Chunk `index` whole, widened to 16 bits.
    void read_chunk(uint64_t index, std::vector<uint16_t>& out);

    // Every entry, at its width, into `out` (size() * width bytes): the
    // chunks read as stored on this thread, a batch at a time, and each
    // batch decompressed and decoded in place by parallel tasks while the
    // next is read. Bypasses the cache. Throws TableError on a damaged chunk.
    void read_whole(std::span<uint8_t> out);

  private:
    // A decompressed chunk whose entries [0, decoded) have their transform undone.
    struct Slot {
        uint64_t chunk = UINT64_MAX;
        uint64_t used = 0;
        uint64_t count = 0;
        uint64_t decoded = 0;
        std::vector<uint8_t> bytes;
        // Between fetch() and decompress(): the chunk as stored, and the
        // codec that undoes it; then what was wrong with it, if anything.
        std::vector<uint8_t> stored;
        Compression codec = Compression::none;
        std::string error;
    };

    // Reads chunk `index` into `slot`: its stored bytes when the pipeline is
    // direct (decompress() follows), else decompressed by HDF5. Not thread-safe.
    void fetch(uint64_t index, Slot& slot);
    // Decompresses what fetch() read. Thread-safe for distinct slots.
    void decompress(Slot& slot) const;
    // Undoes the transform up to entry `offset` included. Thread-safe for distinct slots.
    void decode_to(Slot& slot, uint64_t offset) const;
    uint32_t entry(const Slot& slot, uint64_t offset) const;
    // The slot holding chunk `index`, loaded if it was not cached.
    Slot& load(uint64_t index);
    Slot& victim();
    void check_rank(uint64_t rank) const;  // throws TableError beyond the table
    std::string damaged(uint64_t index, const std::string& why) const;

    Handle handle_;
    Handle file_space_;
    std::string what_;
    uint64_t size_;
    uint64_t chunk_;
    unsigned width_;
    Transform transform_;
    Compression compression_;
    // The filters are a compressor nimtb decodes itself and the checksum
    // (chunk_codec.h): chunks are read raw, with no HDF5 plug-in.
    bool direct_;
    bool keep_chunks_ = false;
    std::vector<Slot> slots_;
    std::vector<int32_t> slot_of_;  // per chunk; -1 when not cached
    // The batch look-ups' decoders, one per thread, kept from batch to batch.
    mutable tbb::enumerable_thread_specific<ChunkDecoder> decoders_;
    uint64_t clock_ = 0;
};

}  // namespace nimtb::io
