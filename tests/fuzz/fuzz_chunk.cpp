// libFuzzer: a table's stored chunks (io/codec/compressors.h), decoded by
// nimtb itself rather than by HDF5. Any bytes are either decoded into exactly
// the size asked for or refused with a reason; never a crash or an overrun.
// The same input compressed and decompressed again comes back unchanged.
//
// The input: a byte choosing the compression and the entry width, two bytes
// of the raw size (at most 65535), then the stored bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "io/codec/compressors.h"

namespace {
constexpr nimtb::io::Compression CODECS[] = {
    nimtb::io::Compression::none, nimtb::io::Compression::deflate, nimtb::io::Compression::zstd,
    nimtb::io::Compression::lz4};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 3) return 0;
    const nimtb::io::Compression c = CODECS[data[0] % 4];
    const unsigned width = (data[0] & 4) ? 2 : 4;
    const size_t raw_size = (size_t{data[1]} << 8 | data[2]) / width * width;
    const std::span<const uint8_t> stored(data + 3, size - 3);

    // Damaged or foreign bytes: decoded exactly, or refused.
    std::vector<uint8_t> raw(raw_size);
    (void)nimtb::io::decompress_chunk(c, stored, raw);
    (void)nimtb::io::decompressed_size(c, stored);
    (void)nimtb::io::decompress_bytes(c, stored, raw);

    // The stored bytes taken as entries: the round trip gives them back.
    const std::span<const uint8_t> entries(stored.data(), stored.size() / width * width);
    nimtb::io::ByteBuffer packed;
    if (!nimtb::io::compress_chunk(c, nimtb::io::default_level(c), width, entries, packed))
        return 0;
    std::vector<uint8_t> back(entries.size());
    if (!nimtb::io::decompress_chunk(c, packed, back).empty()) std::abort();
    if (!std::equal(back.begin(), back.end(), entries.begin())) std::abort();
    return 0;
}
