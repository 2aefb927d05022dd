#pragma once
// One chunk of a dataset, as format v2 stores it (docs/FORMAT.md): the
// entries in the file's width, a transform that makes them compress well,
// then a compressor, then HDF5's Fletcher-32 checksum. The writer encodes
// chunks in parallel and hands the bytes to H5Dwrite_chunk; the reader reads
// them with H5Dread_chunk and decodes them here, so reading needs no HDF5
// plug-in. Every function is pure: safe to call from any thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/table_format.h"

namespace nimtb::io {

// HDF5's Fletcher-32 (H5_checksum_fletcher32) of `bytes`.
uint32_t fletcher32(std::span<const uint8_t> bytes);

// The transforms restart at every chunk, so one chunk decodes alone:
//   xor-previous   t[0] = x[0], t[i] = x[i] ^ x[i-1]
//   delta-zigzag   d = x[i] - x[i-1] (x[-1] = 0) modulo 2^w, stored zigzag:
//                  (d << 1) ^ (d >> (w-1)) with d read as signed, so small
//                  steps either way become small numbers
// in the entries' width w (8 or 16 bits).
template <class T>
void encode_transform(Transform t, std::span<T> entries);
// decode_transform also resumes a chunk decoded up to some entry: `previous`
// is then the decoded entry just before `entries`.
template <class T>
void decode_transform(Transform t, std::span<T> entries, T previous = 0);

// The transform that makes `entries` (a sample of a dataset, a few chunks of
// `chunk` entries) smallest under a fast zstd pass: what the writer stores
// when it is told nothing else.
template <class T>
Transform choose_transform(std::span<const T> sample, uint64_t chunk);

// Compresses `raw` (transformed entries of `width` bytes) into `out` as the
// HDF5 filter pipeline of `c` would, checksum included. zstd is Blosc's
// container (filter 32001) holding one zstd block, byte-shuffled for 16-bit
// entries; deflate a zlib stream; lz4 the stream of the LZ4 filter (32004).
// Returns false only if the compressor failed.
bool compress_chunk(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    std::vector<uint8_t>& out);

// compress_chunk's compressor alone, without the checksum: what nimtb's own
// HDF5 filters (hdf5_filters.h) run inside HDF5's pipeline.
bool compress_bytes(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    std::vector<uint8_t>& out);
// Undoes compress_bytes into exactly `raw.size()` bytes; "" or what is wrong.
std::string decompress_bytes(Compression c, std::span<const uint8_t> data,
                             std::span<uint8_t> raw);
// The raw size that compressed bytes of `c` declare (Blosc's and LZ4's
// headers), if they declare one.
std::optional<uint64_t> decompressed_size(Compression c, std::span<const uint8_t> data);

// Undoes compress_chunk: checks the checksum and decompresses `stored` into
// exactly `raw.size()` bytes. Returns an empty string on success, else what
// is wrong ("checksum mismatch", "zstd stream damaged").
std::string decompress_chunk(Compression c, std::span<const uint8_t> stored,
                             std::span<uint8_t> raw);

// Entries at a few offsets of stored chunks, decoded only as far as the
// last of them: what a query's batch of children needs. A chunk as the
// writer stores it (zstd in Blosc's container: one block, one stream, the
// byte planes of 16-bit entries one after the other) is decompressed by
// zstd's streaming decoder until the bytes of the last offset are out; any
// other chunk whole by decompress_chunk. The transform is then not undone
// in place: the entry at offset o is a reduction of the transformed entries
// [0, o] (their XOR, or the sum of their zigzag steps), carried from one
// offset to the next. Buffers and the zstd context are kept from call to
// call, never zero-filled: one decoder per thread.
class ChunkDecoder {
  public:
    ChunkDecoder();
    ~ChunkDecoder();
    ChunkDecoder(ChunkDecoder&&) noexcept;
    ChunkDecoder& operator=(ChunkDecoder&&) noexcept;

    // out[k] = the entry at offsets[k] (ascending, below `count`) of the
    // chunk `stored` of `count` entries of `width` bytes (the whole chunk,
    // padding included), compressed by `c`
    // after transform `t`. Returns what is wrong with the chunk ("" if
    // nothing), as decompress_chunk does.
    std::string entries_at(Compression c, Transform t, unsigned width, uint64_t count,
                           std::span<const uint8_t> stored, std::span<const uint64_t> offsets,
                           std::span<uint32_t> out);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// Whether compress_chunk / decompress_chunk handle `c`: every compression
// nimtb writes does.
bool direct_codec(Compression c);

}  // namespace nimtb::io
