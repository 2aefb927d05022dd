#include "io/chunk_codec.h"

#include <blosc.h>
#include <libdeflate.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
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

bool direct_codec(Compression c) {
    return c == Compression::deflate || c == Compression::zstd || c == Compression::none;
}

bool compress_chunk(Compression c, int level, unsigned width, std::span<const uint8_t> raw,
                    std::vector<uint8_t>& out) {
    size_t size = 0;
    switch (c) {
        case Compression::deflate: {
            std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)> z(
                libdeflate_alloc_compressor(level), libdeflate_free_compressor);
            if (!z) return false;
            out.resize(libdeflate_zlib_compress_bound(z.get(), raw.size()) + 4);
            size = libdeflate_zlib_compress(z.get(), raw.data(), raw.size(), out.data(),
                                            out.size() - 4);
            if (size == 0) return false;
            break;
        }
        case Compression::zstd: {
            // One Blosc block for the whole chunk: zstd sees the chunk at
            // once (smaller blocks cost a third more bytes on Nim's
            // remoteness), and Blosc's byte shuffle makes the planes.
            out.resize(raw.size() + BLOSC_MAX_OVERHEAD + 4);
            const int n = blosc_compress_ctx(level, width > 1 ? BLOSC_SHUFFLE : BLOSC_NOSHUFFLE,
                                             width, raw.size(), raw.data(), out.data(),
                                             out.size() - 4, "zstd", raw.size(), 1);
            if (n <= 0) return false;
            size = static_cast<size_t>(n);
            break;
        }
        case Compression::none:
            out.assign(raw.begin(), raw.end());
            out.resize(raw.size() + 4);
            size = raw.size();
            break;
        case Compression::lz4:
        case Compression::other:
            return false;
    }
    // Last in HDF5's pipeline, so the checksum covers the bytes on disk;
    // HDF5 stores it little-endian.
    const uint32_t sum = fletcher32({out.data(), size});
    std::memcpy(out.data() + size, &sum, 4);
    out.resize(size + 4);
    return true;
}

std::string decompress_chunk(Compression c, std::span<const uint8_t> stored,
                             std::span<uint8_t> raw) {
    if (stored.size() < 4) return "a chunk shorter than its checksum";
    const size_t size = stored.size() - 4;
    uint32_t sum = 0;
    std::memcpy(&sum, stored.data() + size, 4);
    if (fletcher32(stored.first(size)) != sum) return "data error detected by Fletcher32 checksum";
    switch (c) {
        case Compression::deflate: {
            std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> z(
                libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
            if (!z) throw std::bad_alloc();
            size_t n = 0;
            if (libdeflate_zlib_decompress(z.get(), stored.data(), size, raw.data(), raw.size(),
                                           &n) != LIBDEFLATE_SUCCESS ||
                n != raw.size())
                return "deflate stream damaged";
            return "";
        }
        case Compression::zstd: {
            size_t bytes = 0, compressed = 0, block = 0;
            if (size < BLOSC_MIN_HEADER_LENGTH) return "Blosc header damaged";
            blosc_cbuffer_sizes(stored.data(), &bytes, &compressed, &block);
            if (bytes != raw.size() || compressed != size) return "Blosc header damaged";
            const int n = blosc_decompress_ctx(stored.data(), raw.data(), raw.size(), 1);
            if (n < 0 || static_cast<size_t>(n) != raw.size()) return "zstd stream damaged";
            return "";
        }
        case Compression::none:
            if (size != raw.size()) return "chunk of the wrong size";
            std::memcpy(raw.data(), stored.data(), size);
            return "";
        case Compression::lz4:
        case Compression::other:
            break;
    }
    return "no direct codec";
}

}  // namespace nimtb::io
