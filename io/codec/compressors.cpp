#include "io/codec/compressors.h"

#include <blosc.h>
#include <libdeflate.h>
#include <lz4.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_estimateCCtxSize_usingCParams
#include <zstd.h>

#include <cstring>
#include <limits>
#include <memory>

#include "io/codec/checksum.h"

namespace nimtb::io {

bool direct_codec(Compression c) {
    return c != Compression::other;
}

namespace {

// The LZ4 filter's stream (HDF5's filter 32004, as Debian's
// hdf5-filter-plugin writes it): the raw size (8 bytes) and the block size
// (4 bytes), then each block as its stored size (4 bytes) and its bytes, a
// block that LZ4 cannot shrink stored as it is; every number big-endian.
constexpr size_t LZ4_HEADER = 12;
constexpr uint64_t LZ4_BLOCK = uint64_t{1} << 30;  // the plug-in's default

void put_be(uint8_t* p, uint64_t x, int bytes) {
    for (int i = bytes - 1; i >= 0; --i, x >>= 8) p[i] = static_cast<uint8_t>(x);
}

uint64_t get_be(const uint8_t* p, int bytes) {
    uint64_t x = 0;
    for (int i = 0; i < bytes; ++i) x = x << 8 | p[i];
    return x;
}

bool lz4_compress(std::span<const uint8_t> raw, ByteBuffer& out) {
    if (raw.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return false;
    const uint64_t block = std::max<uint64_t>(1, std::min<uint64_t>(LZ4_BLOCK, raw.size()));
    const uint64_t blocks = (raw.size() + block - 1) / block;
    out.resize(LZ4_HEADER + blocks * 4 +
               static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))));
    put_be(out.data(), raw.size(), 8);
    put_be(out.data() + 8, block, 4);
    size_t at = LZ4_HEADER;
    for (uint64_t first = 0; first < raw.size(); first += block) {
        const int n = static_cast<int>(std::min<uint64_t>(block, raw.size() - first));
        const char* from = reinterpret_cast<const char*>(raw.data() + first);
        char* to = reinterpret_cast<char*>(out.data() + at + 4);
        int size = LZ4_compress_default(from, to, n, static_cast<int>(out.size() - at - 4));
        if (size <= 0) return false;
        if (size >= n) {
            size = n;
            std::memcpy(to, from, static_cast<size_t>(n));
        }
        put_be(out.data() + at, static_cast<uint64_t>(size), 4);
        at += 4 + static_cast<size_t>(size);
    }
    out.resize(at);
    return true;
}

std::string lz4_decompress(std::span<const uint8_t> data, std::span<uint8_t> raw) {
    if (data.size() < LZ4_HEADER || get_be(data.data(), 8) != raw.size())
        return "LZ4 header damaged";
    const uint64_t block = get_be(data.data() + 8, 4);
    if (block == 0 && !raw.empty()) return "LZ4 header damaged";
    size_t at = LZ4_HEADER;
    for (uint64_t first = 0; first < raw.size(); first += block) {
        const uint64_t n = std::min<uint64_t>(block, raw.size() - first);
        if (data.size() - at < 4) return "LZ4 stream damaged";
        const uint64_t size = get_be(data.data() + at, 4);
        at += 4;
        if (data.size() - at < size) return "LZ4 stream damaged";
        const char* from = reinterpret_cast<const char*>(data.data() + at);
        char* to = reinterpret_cast<char*>(raw.data() + first);
        if (size == n)
            std::memcpy(to, from, n);
        else if (LZ4_decompress_safe(from, to, static_cast<int>(size), static_cast<int>(n)) !=
                 static_cast<int>(n))
            return "LZ4 stream damaged";
        at += size;
    }
    return at == data.size() ? "" : "LZ4 stream damaged";
}

void put_le32(uint8_t* p, uint64_t x) {
    for (int i = 0; i < 4; ++i, x >>= 8) p[i] = static_cast<uint8_t>(x);
}

// What Blosc makes of a chunk given whole as one block (blosc_compress_ctx,
// Blosc 1.21's format 2), built here: Blosc's 16-byte header (format 2,
// zstd's format 1, flags: zstd, not split, byte-shuffled for wider
// entries; the width, the raw size twice, the stored size), the block's
// start (20), the stream's length, and the zstd stream of the (shuffled)
// bytes at Blosc's level l (zstd's 2l - 1, or its highest for 9). Blosc
// makes, and clears, a zstd context for every chunk; this keeps one per
// thread, which makes Nim's chunks about a quarter faster, byte for byte
// the same (tests/test_io.cpp compares them with Blosc's). A chunk Blosc
// might store otherwise (small, or not made at least half as small) is
// left to Blosc: returns false.
int zstd_level(int blosc_level) {
    return blosc_level < 9 ? 2 * blosc_level - 1 : ZSTD_maxCLevel();
}

bool blosc_zstd(int level, unsigned width, std::span<const uint8_t> raw, ByteBuffer& out) {
    constexpr size_t HEAD = 24;  // the header, the block's start, the stream's length
    constexpr size_t SMALLEST = 4096;
    if (level < 1 || level > 9 || raw.size() < SMALLEST || raw.size() % width != 0 ||
        raw.size() > std::numeric_limits<int32_t>::max() / 2)
        return false;
    struct Context {
        std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> zstd{ZSTD_createCCtx(), ZSTD_freeCCtx};
        ByteBuffer planes;
    };
    thread_local Context context;
    if (!context.zstd) return false;
    std::span<const uint8_t> bytes = raw;
    if (width > 1) {  // Blosc's byte shuffle: byte b of every entry, for b = 0, 1, ...
        const size_t n = raw.size() / width;
        context.planes.resize(raw.size());
        if (width == 2) {  // remoteness: both planes in one pass, which the compiler vectorises
            uint8_t* low = context.planes.data();
            uint8_t* high = low + n;
            for (size_t i = 0; i < n; ++i) {
                low[i] = raw[2 * i];
                high[i] = raw[2 * i + 1];
            }
        } else {
            for (unsigned b = 0; b < width; ++b) {
                uint8_t* plane = context.planes.data() + b * n;
                for (size_t i = 0; i < n; ++i) plane[i] = raw[i * width + b];
            }
        }
        bytes = context.planes;
    }
    const size_t most = raw.size() / 2;
    out.resize(HEAD + most);
    const size_t stream = ZSTD_compressCCtx(context.zstd.get(), out.data() + HEAD, most,
                                            bytes.data(), bytes.size(), zstd_level(level));
    if (ZSTD_isError(stream)) return false;  // not half as small, or out of memory
    constexpr uint8_t SHUFFLE = 0x1, DONT_SPLIT = 0x10, ZSTD_CODE = 4 << 5;
    out[0] = 2;  // Blosc's format
    out[1] = 1;  // zstd's format within it
    out[2] = ZSTD_CODE | DONT_SPLIT | (width > 1 ? SHUFFLE : 0);
    out[3] = static_cast<uint8_t>(width);
    put_le32(&out[4], raw.size());
    put_le32(&out[8], raw.size());
    put_le32(&out[12], HEAD + stream);
    put_le32(&out[16], 20);
    put_le32(&out[20], stream);
    out.resize(HEAD + stream);
    return true;
}

}  // namespace

uint64_t compressor_memory(Compression c, int level, uint64_t chunk_bytes) {
    if (c != Compression::zstd || level < 1 || level > 9) return 0;
    const ZSTD_compressionParameters p = ZSTD_getCParams(zstd_level(level), chunk_bytes, 0);
    return ZSTD_estimateCCtxSize_usingCParams(p) + chunk_bytes;
}

bool compress_bytes(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    ByteBuffer& out) {
    switch (c) {
        case Compression::deflate: {
            std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> z(
                libdeflate_alloc_compressor(level), libdeflate_free_compressor);
            if (!z) return false;
            out.resize(libdeflate_zlib_compress_bound(z.get(), raw.size()) + 4);
            const size_t size =
                libdeflate_zlib_compress(z.get(), raw.data(), raw.size(), out.data(), out.size());
            out.resize(size);
            return size != 0;
        }
        case Compression::zstd: {
            // One Blosc block for the whole chunk: zstd sees the chunk at
            // once (smaller blocks cost a third more bytes on Nim's
            // remoteness), and Blosc's byte shuffle makes the planes.
            if (blosc_zstd(level, width, raw, out)) return true;
            out.resize(raw.size() + BLOSC_MAX_OVERHEAD + 4);
            const int n = blosc_compress_ctx(level, width > 1 ? BLOSC_SHUFFLE : BLOSC_NOSHUFFLE,
                                             width, raw.size(), raw.data(), out.data(), out.size(),
                                             "zstd", raw.size(), 1);
            out.resize(n > 0 ? static_cast<size_t>(n) : 0);
            return n > 0;
        }
        case Compression::lz4:
            return lz4_compress(raw, out);
        case Compression::none:
            out.reserve(raw.size() + 4);
            out.assign(raw.begin(), raw.end());
            return true;
        case Compression::other:
            break;
    }
    return false;
}

bool compress_chunk(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    ByteBuffer& out) {
    if (!compress_bytes(c, level, width, raw, out)) return false;
    // Last in HDF5's pipeline, so the checksum covers the bytes on disk;
    // HDF5 stores it little-endian.
    const size_t size = out.size();
    const uint32_t sum = fletcher32(out);
    out.resize(size + 4);
    std::memcpy(out.data() + size, &sum, 4);
    return true;
}

std::optional<uint64_t> decompressed_size(Compression c, std::span<const uint8_t> data) {
    switch (c) {
        case Compression::zstd: {
            if (data.size() < BLOSC_MIN_HEADER_LENGTH) return std::nullopt;
            size_t bytes = 0, compressed = 0, block = 0;
            blosc_cbuffer_sizes(data.data(), &bytes, &compressed, &block);
            return bytes;
        }
        case Compression::lz4:
            if (data.size() < LZ4_HEADER) return std::nullopt;
            return get_be(data.data(), 8);
        case Compression::none:
            return data.size();
        case Compression::deflate:
        case Compression::other:
            break;
    }
    return std::nullopt;
}

std::string decompress_bytes(Compression c, std::span<const uint8_t> data, std::span<uint8_t> raw) {
    const size_t size = data.size();
    switch (c) {
        case Compression::deflate: {
            std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> z(
                libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
            if (!z) throw std::bad_alloc();
            size_t n = 0;
            if (libdeflate_zlib_decompress(z.get(), data.data(), size, raw.data(), raw.size(),
                                           &n) != LIBDEFLATE_SUCCESS ||
                n != raw.size())
                return "deflate stream damaged";
            return "";
        }
        case Compression::zstd: {
            size_t bytes = 0, compressed = 0, block = 0;
            if (size < BLOSC_MIN_HEADER_LENGTH) return "Blosc header damaged";
            blosc_cbuffer_sizes(data.data(), &bytes, &compressed, &block);
            if (bytes != raw.size() || compressed != size) return "Blosc header damaged";
            const int n = blosc_decompress_ctx(data.data(), raw.data(), raw.size(), 1);
            if (n < 0 || static_cast<size_t>(n) != raw.size()) return "zstd stream damaged";
            return "";
        }
        case Compression::none:
            if (size != raw.size()) return "chunk of the wrong size";
            if (size)
                std::memcpy(raw.data(), data.data(), size);  // an empty span's data may be null
            return "";
        case Compression::lz4:
            return lz4_decompress(data, raw);
        case Compression::other:
            break;
    }
    return "no direct codec";
}

std::string decompress_chunk(Compression c, std::span<const uint8_t> stored,
                             std::span<uint8_t> raw) {
    std::string error = checksum_error(stored);
    return error.empty() ? decompress_bytes(c, stored.first(stored.size() - 4), raw) : error;
}

}  // namespace nimtb::io
