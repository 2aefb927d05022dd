#include "io/codec/chunk_decoder.h"

// ZSTD_d_stableOutBuffer: the decoder writes straight into the caller's buffer.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "engine/base/memory.h"
#include "io/codec/checksum.h"
#include "io/codec/compressors.h"
#include "io/codec/transforms.h"

namespace nimtb::io {

namespace {

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

struct ChunkDecoder::State {
    // Never zero-filled by us; the kernel's huge pages make its first touch
    // one fault per 2 MiB rather than one per 4 KiB.
    engine::LargeBuffer buffer;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> zstd{ZSTD_createDCtx(), ZSTD_freeDCtx};

    uint8_t* reserve(size_t bytes) {
        if (bytes > buffer.bytes()) buffer = engine::LargeBuffer(bytes);
        return static_cast<uint8_t*>(buffer.data());
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
        ZSTD_outBuffer out{buffer.data(), size, 0};
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
