#pragma once
// What a chunk's entries go through before compression (format v2), and
// the choice of the transform that makes a dataset smallest.

#include <cstdint>
#include <span>

#include "io/codec/table_format.h"

namespace nimtb::io {

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

// The same on a chunk's bytes, entries of `width` bytes (1 or 2) in the
// machine's order.
void encode_transform(Transform t, unsigned width, std::span<uint8_t> bytes);
void decode_transform(Transform t, unsigned width, std::span<uint8_t> bytes);
Transform choose_transform(std::span<const uint8_t> sample, unsigned width, uint64_t chunk);

}  // namespace nimtb::io
