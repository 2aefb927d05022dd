#include "io/chunk_codec.h"

#include <blosc.h>
#include <libdeflate.h>
#include <lz4.h>
// ZSTD_d_stableOutBuffer: the decoder writes straight into the caller's buffer.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

namespace nimtb::io {

uint32_t fletcher32(std::span<const uint8_t> bytes) {
    // 16-bit big-endian words, sums folded every 360 words; an odd last byte
    // counts as a high byte.
    const uint8_t* data = bytes.data();
    size_t words = bytes.size() / 2;
    uint32_t sum1 = 0, sum2 = 0;
    while (words) {
        size_t n = std::min<size_t>(words, 360);
        words -= n;
        for (; n; --n, data += 2) {
            sum1 += (uint32_t{data[0]} << 8) | data[1];
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if (bytes.size() % 2) {
        sum1 += uint32_t{*data} << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    return (sum2 << 16) | sum1;
}

template <class T>
void encode_transform(Transform t, std::span<T> x) {
    static_assert(std::is_unsigned_v<T>);
    using S = std::make_signed_t<T>;
    constexpr unsigned shift = std::numeric_limits<T>::digits - 1;
    T previous = 0;
    switch (t) {
        case Transform::none:
            return;
        case Transform::xor_previous:
            for (T& e : x) {
                const T v = e;
                e = static_cast<T>(v ^ previous);
                previous = v;
            }
            return;
        case Transform::delta_zigzag:
            for (T& e : x) {
                const T v = e;
                const T d = static_cast<T>(v - previous);
                // Arithmetic shift of the signed step: all ones when negative.
                const T sign = static_cast<T>(static_cast<S>(d) >> shift);
                e = static_cast<T>(static_cast<T>(d << 1) ^ sign);
                previous = v;
            }
            return;
    }
}

template <class T>
void decode_transform(Transform t, std::span<T> x, T previous) {
    switch (t) {
        case Transform::none:
            return;
        case Transform::xor_previous:
            for (T& e : x) e = previous = static_cast<T>(e ^ previous);
            return;
        case Transform::delta_zigzag:
            for (T& e : x) {
                const T d = static_cast<T>((e >> 1) ^ static_cast<T>(0 - (e & 1)));
                e = previous = static_cast<T>(previous + d);
            }
            return;
    }
}

template void encode_transform<uint8_t>(Transform, std::span<uint8_t>);
template void encode_transform<uint16_t>(Transform, std::span<uint16_t>);
template void decode_transform<uint8_t>(Transform, std::span<uint8_t>, uint8_t);
template void decode_transform<uint16_t>(Transform, std::span<uint16_t>, uint16_t);

namespace {

// The bytes of `entries` as the zstd pass of Blosc sees them: 16-bit entries
// split into a plane of low bytes and a plane of high bytes.
template <class T>
std::vector<uint8_t> shuffled(std::span<const T> entries) {
    std::vector<uint8_t> out(entries.size_bytes());
    const size_t n = entries.size();
    for (size_t i = 0; i < n; ++i) {
        for (size_t b = 0; b < sizeof(T); ++b)
            out[b * n + i] = static_cast<uint8_t>(entries[i] >> (8 * b));
    }
    return out;
}

}  // namespace

template <class T>
Transform choose_transform(std::span<const T> sample, uint64_t chunk) {
    // Each candidate is measured chunk by chunk, as it will be stored; zstd's
    // fastest level ranks the candidates as its slower levels do.
    Transform best = Transform::none;
    size_t best_size = std::numeric_limits<size_t>::max();
    std::vector<uint8_t> out(ZSTD_compressBound(chunk * sizeof(T)));
    for (Transform t : {Transform::none, Transform::xor_previous, Transform::delta_zigzag}) {
        size_t size = 0;
        for (size_t first = 0; first < sample.size(); first += chunk) {
            const auto part = sample.subspan(first, std::min<size_t>(chunk, sample.size() - first));
            std::vector<T> x(part.begin(), part.end());
            encode_transform<T>(t, x);
            const std::vector<uint8_t> bytes = shuffled<T>(x);
            const size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 1);
            size += ZSTD_isError(n) ? bytes.size() : n;
        }
        if (size < best_size) {
            best = t;
            best_size = size;
        }
    }
    return best;
}

template Transform choose_transform<uint8_t>(std::span<const uint8_t>, uint64_t);
template Transform choose_transform<uint16_t>(std::span<const uint16_t>, uint64_t);

bool direct_codec(Compression c) { return c != Compression::other; }

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

bool lz4_compress(std::span<const uint8_t> raw, std::vector<uint8_t>& out) {
    if (raw.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) return false;
    const uint64_t block = std::max<uint64_t>(1, std::min<uint64_t>(LZ4_BLOCK, raw.size()));
    const uint64_t blocks = (raw.size() + block - 1) / block;
    out.resize(LZ4_HEADER + blocks * 4 + static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))));
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

}  // namespace

bool compress_bytes(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    std::vector<uint8_t>& out) {
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
                    std::vector<uint8_t>& out) {
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

std::string decompress_bytes(Compression c, std::span<const uint8_t> data,
                             std::span<uint8_t> raw) {
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
            std::memcpy(raw.data(), data.data(), size);
            return "";
        case Compression::lz4:
            return lz4_decompress(data, raw);
        case Compression::other:
            break;
    }
    return "no direct codec";
}

namespace {

// What is wrong with the checksum that ends a stored chunk, or "".
std::string checksum_error(std::span<const uint8_t> stored) {
    if (stored.size() < 4) return "a chunk shorter than its checksum";
    const size_t size = stored.size() - 4;
    uint32_t sum = 0;
    std::memcpy(&sum, stored.data() + size, 4);
    if (fletcher32(stored.first(size)) != sum) return "data error detected by Fletcher32 checksum";
    return "";
}

uint32_t le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The zstd frame of a chunk that compress_chunk wrote: Blosc's 16-byte
// header (format 2; flags: zstd, not split, neither copied as is nor
// bit-shuffled), the start of its one block (20), the stream's length, the
// stream. Anything else (another Blosc, a block stored as is) is left to
// Blosc itself.
struct ZstdFrame {
    std::span<const uint8_t> bytes;
    bool shuffled;
};
std::optional<ZstdFrame> single_zstd_frame(std::span<const uint8_t> data, unsigned width,
                                           uint64_t count) {
    constexpr uint8_t SHUFFLE = 0x1, MEMCPYED = 0x2, BITSHUFFLE = 0x4, DONT_SPLIT = 0x10;
    constexpr unsigned ZSTD_CODE = 4;  // Blosc's format code of zstd (flags >> 5)
    if (data.size() < 24) return std::nullopt;
    const uint8_t* h = data.data();
    const uint8_t flags = h[2];
    const uint64_t nbytes = le32(h + 4), blocksize = le32(h + 8), cbytes = le32(h + 12);
    if (h[0] != 2 || (flags >> 5) != ZSTD_CODE || !(flags & DONT_SPLIT) ||
        (flags & (MEMCPYED | BITSHUFFLE)) || h[3] != width || nbytes != count * width ||
        blocksize < nbytes || cbytes != data.size() || le32(h + 16) != 20)
        return std::nullopt;
    const uint64_t stream = le32(h + 20);
    if (stream + 24 != cbytes || stream >= nbytes) return std::nullopt;
    return ZstdFrame{data.subspan(24), (flags & SHUFFLE) != 0};
}

// XOR of n bytes, eight at a time.
uint8_t xor_bytes(const uint8_t* p, size_t n) {
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        acc ^= w;
    }
    for (; i < n; ++i) acc ^= p[i];
    acc ^= acc >> 32;
    acc ^= acc >> 16;
    acc ^= acc >> 8;
    return static_cast<uint8_t>(acc);
}

template <class T>
T unzigzag(T e) {
    return static_cast<T>((e >> 1) ^ static_cast<T>(0 - (e & 1)));
}

// Entries [from, to) of a chunk of `count` transformed entries in `b`,
// folded into `acc` (XOR or sum, by the transform); then the decoded entry
// at to - 1 is acc itself. `planar`: 16-bit entries as a plane of low bytes
// then one of high bytes; else entries in the machine's order.
void fold(Transform t, unsigned width, bool planar, const uint8_t* b, uint64_t count, uint64_t from,
          uint64_t to, uint32_t& acc) {
    if (width == 1) {
        if (t == Transform::xor_previous) {
            acc ^= xor_bytes(b + from, to - from);
        } else {
            uint32_t sum = 0;
            for (uint64_t i = from; i < to; ++i) sum += unzigzag<uint8_t>(b[i]);
            acc += sum;
        }
        return;
    }
    if (planar) {
        const uint8_t *lo = b, *hi = b + count;
        if (t == Transform::xor_previous) {
            acc ^= uint32_t{xor_bytes(lo + from, to - from)} |
                   uint32_t{xor_bytes(hi + from, to - from)} << 8;
        } else {
            uint32_t sum = 0;
            for (uint64_t i = from; i < to; ++i)
                sum += unzigzag<uint16_t>(static_cast<uint16_t>(lo[i] | hi[i] << 8));
            acc += sum;
        }
        return;
    }
    for (uint64_t i = from; i < to; ++i) {
        uint16_t e;
        std::memcpy(&e, b + 2 * i, 2);
        acc = t == Transform::xor_previous ? acc ^ e : acc + unzigzag(e);
    }
}

}  // namespace

std::string decompress_chunk(Compression c, std::span<const uint8_t> stored,
                             std::span<uint8_t> raw) {
    std::string error = checksum_error(stored);
    return error.empty() ? decompress_bytes(c, stored.first(stored.size() - 4), raw) : error;
}

struct ChunkDecoder::State {
    std::unique_ptr<uint8_t[]> buffer;  // never zero-filled
    size_t capacity = 0;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> zstd{ZSTD_createDCtx(), ZSTD_freeDCtx};

    uint8_t* reserve(size_t bytes) {
        if (bytes > capacity) {
            buffer.reset(new uint8_t[bytes]);
            capacity = bytes;
        }
        return buffer.get();
    }

    // Decompresses `frame` into the first `size` bytes of the buffer until
    // at least `needed` are out.
    std::string inflate(std::span<const uint8_t> frame, size_t size, size_t needed) {
        if (!zstd) throw std::bad_alloc();
        ZSTD_DCtx* z = zstd.get();
        ZSTD_DCtx_reset(z, ZSTD_reset_session_only);
        // Straight into the buffer, not through a window of zstd's own; a
        // zstd that refuses it only copies more.
        ZSTD_DCtx_setParameter(z, ZSTD_d_stableOutBuffer, 1);
        ZSTD_inBuffer in{frame.data(), frame.size(), 0};
        ZSTD_outBuffer out{buffer.get(), size, 0};
        while (out.pos < needed) {
            const size_t before = in.pos + out.pos;
            const size_t left = ZSTD_decompressStream(z, &out, &in);
            if (ZSTD_isError(left)) return "zstd stream damaged";
            if (left == 0 && out.pos < size) return "zstd stream damaged";  // a short frame
            if (in.pos + out.pos == before) return "zstd stream damaged";   // no progress
        }
        return "";
    }
};

ChunkDecoder::ChunkDecoder() : state_(std::make_unique<State>()) {}
ChunkDecoder::~ChunkDecoder() = default;
ChunkDecoder::ChunkDecoder(ChunkDecoder&&) noexcept = default;
ChunkDecoder& ChunkDecoder::operator=(ChunkDecoder&&) noexcept = default;

std::string ChunkDecoder::entries_at(Compression c, Transform t, unsigned width, uint64_t count,
                                     std::span<const uint8_t> stored,
                                     std::span<const uint64_t> offsets, std::span<uint32_t> out) {
    if (offsets.empty()) return "";
    std::string error = checksum_error(stored);
    if (!error.empty()) return error;
    const std::span<const uint8_t> data = stored.first(stored.size() - 4);
    const uint64_t last = offsets.back(), bytes = count * width;
    uint8_t* b = state_->reserve(bytes);
    bool planar = false;
    if (c == Compression::zstd) {
        if (const std::optional<ZstdFrame> frame = single_zstd_frame(data, width, count)) {
            planar = frame->shuffled && width == 2;
            error = state_->inflate(frame->bytes, bytes,
                                    planar ? count + last + 1 : (last + 1) * width);
            if (!error.empty()) return error;
            c = Compression::other;  // decompressed
        }
    }
    if (c != Compression::other) {
        error = decompress_bytes(c, data, {b, bytes});
        if (!error.empty()) return error;
    }
    uint32_t acc = 0;
    uint64_t from = 0;  // entries [0, from) are in acc
    for (size_t k = 0; k < offsets.size(); ++k) {
        const uint64_t o = offsets[k];
        if (t == Transform::none) {
            out[k] = width == 1 ? b[o]
                     : planar   ? uint32_t{b[o]} | uint32_t{b[count + o]} << 8
                                : uint32_t{b[2 * o]} | uint32_t{b[2 * o + 1]} << 8;
            continue;
        }
        if (o + 1 > from) {
            fold(t, width, planar, b, count, from, o + 1, acc);
            from = o + 1;
        }
        out[k] = acc & (width == 1 ? 0xffu : 0xffffu);
    }
    return "";
}

}  // namespace nimtb::io
