#pragma once
// The decoder of a query's look-ups: entries at a few offsets of stored
// chunks, decoded only as far as the last of them.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "io/codec/table_format.h"

namespace nimtb::io {

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

}  // namespace nimtb::io
