#include "engine/sequences/pair_scan.h"

// GCC 12 warns of the undefined register some AVX-512 intrinsics start from
// (_mm256_undefined_si256 inside _mm512_cvtepi16_epi8): a known false alarm.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <atomic>

namespace nimtb::engine::split_values {

namespace {

bool processor_has_it() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
}

std::atomic<bool> allowed{true};

}  // namespace

bool vector_scan_available() {
    static const bool has = processor_has_it();
    return has && allowed.load(std::memory_order_relaxed);
}

void allow_vector_scan(bool allow) {
    allowed.store(allow, std::memory_order_relaxed);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) WantedBlock first_wanted_block(
    const uint16_t* values, uint64_t m, uint64_t from, uint64_t last, const uint8_t* wanted) {
    static_assert(SCAN_VALUES == 1024, "a bit set of 128 bytes: two registers for vpermi2b");
    const __m512i low = _mm512_loadu_si512(wanted), high = _mm512_loadu_si512(wanted + 64);
    // Word j of a block read backwards is word 31 - j.
    const __m512i reverse =
        _mm512_set_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                         21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    // The bit of v % 8, for vpshufb (each 128-bit lane looks up its own copy).
    const __m512i bit =
        _mm512_broadcast_i32x4(_mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0));
    const __m512i limit = _mm512_set1_epi16(SCAN_VALUES);
    const __m512i seven = _mm512_set1_epi16(7);
    uint64_t x = from;
    for (; x + 31 <= last; x += 32) {
        const __m512i forward = _mm512_loadu_si512(values + x);
        const __m512i backward =
            _mm512_permutexvar_epi16(reverse, _mm512_loadu_si512(values + (m - x - 31)));
        const __m512i v = _mm512_xor_si512(forward, backward);
        const __mmask32 small = _mm512_cmplt_epu16_mask(v, limit);
        // Bytes of v / 8 and of v % 8 in the low half (words to bytes).
        const __m512i byte_index =
            _mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_srli_epi16(v, 3)));
        const __m512i bit_index =
            _mm512_castsi256_si512(_mm512_cvtepi16_epi8(_mm512_and_si512(v, seven)));
        const __m512i bytes = _mm512_permutex2var_epi8(low, byte_index, high);
        const __m512i bits = _mm512_shuffle_epi8(bit, bit_index);
        const __mmask64 hits = _mm512_mask_test_epi8_mask(small, bytes, bits);
        if (hits) return {x, static_cast<uint32_t>(hits)};
    }
    return {x, 0};
}

}  // namespace nimtb::engine::split_values

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
