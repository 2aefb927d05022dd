#pragma once
// Writing a table (format v2, or v1 on request) from arrays in memory. The
// writer knows the format, not the solver: service/solve.cpp hands it what
// a solve found.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "engine/base/quantity_array.h"
#include "io/codec/compressors.h"
#include "io/codec/table_format.h"

namespace nimtb::io {

struct WriteOptions {
    Compression compression = Compression::zstd;
    int level = 0;  // deflate 1-9, zstd 1-9 (Blosc's scale); 0: default_level
    uint64_t format_version = FORMAT_VERSION;  // 1 writes what nimtb 0.1 wrote
    uint64_t chunk_elements = 0;               // entries per chunk; 0: CHUNK_ELEMENTS
    bool overwrite = false;                    // replace an existing table at the path
    unsigned threads = 0;  // threads that compress chunks, whatever the codec; 0: every core
    // Set from any thread (a SIGINT handler) to abandon the write: the
    // temporary file is removed and nimtb::Cancelled thrown.
    const std::atomic<bool>* cancel = nullptr;
};

// A dataset's chunks already encoded as a table stores them: a streamed
// solve's run file (run_file.h), which guessed the layout before the solve
// knew the largest entry and chose the transform on the first chunk, or the
// chunks the processes of a distributed solve encoded (mpi/parallel_writer.h).
// The writer stores them as they are when the dataset's layout and transform
// turn out to be these; otherwise it reads the entries and encodes anew.
struct EncodedChunks {
    unsigned file_bits = 8;
    uint64_t chunk = 0;  // entries per chunk
    Compression compression = Compression::zstd;
    int level = 0;
    Transform transform = Transform::none;
    // The transform was chosen as the writer chooses it (choose_transform
    // on the chunks transform_sample names: table_layout.h), so the writer
    // takes it without reading the sample again.
    bool transform_chosen = false;
    // Chunk `index` as stored (checksum included) into `out`. Throws TableError.
    std::function<void(uint64_t index, ByteBuffer& out)> read;
};

// A chunk as `e` stores it, into `out`: `raw` holds a whole chunk at
// e.file_bits, its first `entries` entries the dataset's and the rest zeros
// (HDF5 stores edge chunks whole); they are transformed in place (the
// padding stays zeros), compressed and checksummed. False: the compressor
// failed.
bool encode_chunk(const EncodedChunks& e, uint64_t entries, ByteBuffer& raw, ByteBuffer& out);

// One dataset's entries by rank, as the writer reads them: from an array in
// memory (of()) or from a streamed solve's run file (run_file.h).
struct Entries {
    uint64_t size = 0;  // 0: the dataset is not stored
    unsigned bits = 8;  // the width they are held at
    // Entries [first, first + count) at `file_bits` (at most `bits`; every
    // entry fits) into `out`. Called from several threads at once; throws
    // TableError.
    std::function<void(uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out)> read;
    // The chunks as a table stores them, when they are held so already.
    std::shared_ptr<const EncodedChunks> encoded;

    // The entries of `a`, which must outlive them.
    static Entries of(const engine::QuantityArray& a) {
        return {a.size(), a.bits(),
                [&a](uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) {
                    // x86 and the HDF5 file type are both little-endian.
                    if (a.bits() == file_bits) {
                        std::memcpy(out,
                                    static_cast<const uint8_t*>(a.raw()) + first * (a.bits() / 8),
                                    count * (a.bits() / 8));
                    } else {  // narrowing: every value was checked to fit
                        const uint16_t* src = a.data<uint16_t>() + first;
                        for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<uint8_t>(src[i]);
                    }
                },
                nullptr};
    }
};

// What a table holds: its header and, by rank, each position's value and
// (when stored) remoteness, with the largest of each, which set the file's
// widths. The entries stay the caller's.
struct TableContents {
    TableHeader header;
    Entries value;
    Entries remoteness;  // size 0: no remoteness stored
    uint32_t max_value = 0;
    uint32_t max_remoteness = 0;
};

// Writes `contents` to `path`: first to a temporary file in the same folder,
// flushed and synced, then renamed. On any failure, or cancellation, nothing
// is left under either name. Refuses an existing `path` unless overwrite.
// Values are stored in 8 bits when they fit, else 16; likewise remoteness.
// In version 2 each dataset's chunks go through the transform that makes a
// sample of them smallest (io/codec/chunk_codec.h).
// Returns what the table takes, as TableReader::storage() would read it.
// Throws TableError, nimtb::Cancelled.
TableStorage write_table(const std::string& path, const TableContents& contents,
                         const WriteOptions& options);

// Bytes write_table holds at most beside the entries it reads, with
// `threads` compressing: a batch of chunks, raw and compressed.
uint64_t write_memory(unsigned threads);

// Throws TableError if a table could not be written to `path` with `options`:
// it exists (and overwrite is off) or its folder is missing. write_table
// checks this first; a caller may check before a long solve.
void check_output(const std::string& path, const WriteOptions& options);

}  // namespace nimtb::io
