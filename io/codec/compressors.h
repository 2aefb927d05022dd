#pragma once
// The compressors of a stored chunk, as HDF5's filter pipeline would run
// them: zstd in Blosc's container, deflate, the LZ4 filter's stream, none;
// and the checksum after them.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/codec/table_format.h"

namespace nimtb::io {

// An allocator whose construct() leaves a byte uninitialised, so that a
// buffer grows without zeroing what is about to be written over: a
// compressor's output, a chunk's raw entries. (Zeroing a chunk's worth per
// chunk was a tenth of a streamed solve's time, perf.)
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <class U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
// Bytes that resize() leaves as they were: written before they are read.
using ByteBuffer = std::vector<uint8_t, UninitialisedAllocator<uint8_t>>;

// Compresses `raw` (transformed entries of `width` bytes) into `out` as the
// HDF5 filter pipeline of `c` would, checksum included. zstd is Blosc's
// container (filter 32001) holding one zstd block, byte-shuffled for 16-bit
// entries; deflate a zlib stream; lz4 the stream of the LZ4 filter (32004).
// Returns false only if the compressor failed.
bool compress_chunk(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    ByteBuffer& out);

// Bytes compress_chunk keeps per thread that compresses chunks of
// `chunk_bytes` bytes with `c` at `level` (zstd's context and its shuffled
// planes; nothing else is kept).
uint64_t compressor_memory(Compression c, int level, uint64_t chunk_bytes);

// compress_chunk's compressor alone, without the checksum: what nimtb's own
// HDF5 filters (hdf5_filters.h) run inside HDF5's pipeline.
bool compress_bytes(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    ByteBuffer& out);
// Undoes compress_bytes into exactly `raw.size()` bytes; "" or what is wrong.
std::string decompress_bytes(Compression c, std::span<const uint8_t> data, std::span<uint8_t> raw);
// The raw size that compressed bytes of `c` declare (Blosc's and LZ4's
// headers), if they declare one.
std::optional<uint64_t> decompressed_size(Compression c, std::span<const uint8_t> data);

// Undoes compress_chunk: checks the checksum and decompresses `stored` into
// exactly `raw.size()` bytes. Returns an empty string on success, else what
// is wrong ("checksum mismatch", "zstd stream damaged").
std::string decompress_chunk(Compression c, std::span<const uint8_t> stored,
                             std::span<uint8_t> raw);

// Whether compress_chunk / decompress_chunk handle `c`: every compression
// nimtb writes does.
bool direct_codec(Compression c);

}  // namespace nimtb::io
