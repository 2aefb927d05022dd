#include "io/codec/transforms.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace nimtb::io {

template <class T>
void encode_transform(Transform t, std::span<T> x) {
    static_assert(std::is_unsigned_v<T>);
    using S = std::make_signed_t<T>;
    constexpr unsigned shift = std::numeric_limits<T>::digits - 1;
    // Each entry from itself and the entry before it, as it was: from the
    // last entry down, so that every entry is read before it is rewritten
    // and no value is carried from one step to the next (the compiler
    // vectorises these loops). The first entry's predecessor is 0.
    const size_t n = x.size();
    if (n == 0) return;
    switch (t) {
        case Transform::none:
            return;
        case Transform::xor_previous:
            for (size_t i = n - 1; i > 0; --i) x[i] = static_cast<T>(x[i] ^ x[i - 1]);
            return;
        case Transform::delta_zigzag: {
            const auto zigzag = [](T d) {
                // Arithmetic shift of the signed step: all ones when negative.
                const T sign = static_cast<T>(static_cast<S>(d) >> shift);
                return static_cast<T>(static_cast<T>(d << 1) ^ sign);
            };
            for (size_t i = n - 1; i > 0; --i) x[i] = zigzag(static_cast<T>(x[i] - x[i - 1]));
            x[0] = zigzag(x[0]);
            return;
        }
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

namespace {
std::span<uint16_t> wide(std::span<uint8_t> bytes) {
    return {reinterpret_cast<uint16_t*>(bytes.data()), bytes.size() / 2};
}
}  // namespace

void encode_transform(Transform t, unsigned width, std::span<uint8_t> bytes) {
    if (width == 1) {
        encode_transform<uint8_t>(t, bytes);
    } else {
        encode_transform<uint16_t>(t, wide(bytes));
    }
}

void decode_transform(Transform t, unsigned width, std::span<uint8_t> bytes) {
    if (width == 1) {
        decode_transform<uint8_t>(t, bytes);
    } else {
        decode_transform<uint16_t>(t, wide(bytes));
    }
}

Transform choose_transform(std::span<const uint8_t> sample, unsigned width, uint64_t chunk) {
    if (width == 1) return choose_transform<uint8_t>(sample, chunk);
    return choose_transform<uint16_t>(
        {reinterpret_cast<const uint16_t*>(sample.data()), sample.size() / 2}, chunk);
}

}  // namespace nimtb::io
