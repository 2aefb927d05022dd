#pragma once
// Step 3 of the sparse-space method (split_values.h) with vector
// instructions: the pairs (x, m - x) of a split size m, 32 at a time, until a
// block holds a pair whose value (g(x) XOR g(m - x)) is one of the wanted
// values. Where the processor has AVX-512 with VBMI (byte permutes), each
// block is two loads, a permute that reverses the second, a XOR and a look-up
// of 32 values at once in a bit set of 1024; elsewhere, and for values of
// 1024 or more, the caller reads its scalar blocks of sixteen.

#include <cstdint>

namespace nimtb::engine::split_values {

// Values the vector scan can look up: those below it.
inline constexpr uint32_t SCAN_VALUES = 1024;

// Whether this processor runs first_wanted_block (AVX-512 F, BW and VBMI);
// tests may turn it off to run the scalar path.
bool vector_scan_available();
void allow_vector_scan(bool allowed);

// A block of 32 pairs (x + j, m - x - j), j < 32, and the j whose value is
// wanted (bit j of `hits`).
struct WantedBlock {
    uint64_t x;
    uint32_t hits;
};

// The first x = from + 32 i with x + 31 <= last whose block holds a pair
// whose value (g(x + j) XOR g(m - x - j)) has its bit set in `wanted` (bit
// v % 8 of byte v / 8, v < SCAN_VALUES); when none does, hits = 0 and x the
// first of that form past the last whole block. Reads values[from .. last]
// and values[m - last .. m - from], every one known. Only where
// vector_scan_available().
WantedBlock first_wanted_block(const uint16_t* values, uint64_t m, uint64_t from, uint64_t last,
                               const uint8_t* wanted);

}  // namespace nimtb::engine::split_values
