#pragma once
// The table format (docs/FORMAT.md), versions 1 and 2: names, compression
// choices, transforms and what a table says about itself.

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/game/rules.h"

namespace nimtb::io {

inline constexpr const char* FORMAT_NAME = "nimtb-table";
// The version written; every earlier one is still read.
inline constexpr uint64_t FORMAT_VERSION = 2;
// The indexes this nimtb reads and writes (engine/game/universe.h, docs/FORMAT.md).
inline constexpr const char* INDEX_NAME = "colex-multiset-v1";     // box universes
inline constexpr const char* TOTAL_INDEX_NAME = "colex-total-v1";  // total-bounded universes
inline constexpr const char* VALUE_DATASET = "value";
inline constexpr const char* REMOTENESS_DATASET = "remoteness";
// Version 2: each dataset's attribute naming the transform of its chunks.
inline constexpr const char* TRANSFORM_ATTRIBUTE = "transform";

// HDF5 filter ids of the plug-ins behind zstd and lz4.
inline constexpr int BLOSC_FILTER = 32001;
inline constexpr int LZ4_FILTER = 32004;

// Elements per chunk, both versions. One chunk is what a cold look-up
// decompresses, up to the entry it needs (for 16-bit entries, the chunk's
// whole plane of low bytes first): longer chunks compress better, shorter
// ones answer sooner. docs/FORMAT.md has the measurements behind the choice
// (the file's size against a cold query's time at 2^16 to 2^20).
inline constexpr uint64_t CHUNK_ELEMENTS = uint64_t{1} << 16;

// What a chunk's entries go through before compression (io/codec/chunk_codec.h).
enum class Transform { none, xor_previous, delta_zigzag };
Transform parse_transform(std::string_view text);  // throws nimtb::InputError
const char* to_string(Transform t);

// zstd (the default): Blosc with its zstd codec (filter 32001), the smallest
// tables at memory speed. deflate: HDF5's built-in zlib filter, readable by
// every HDF5 without a plug-in. lz4: the LZ4 filter (32004), the fastest to
// read. none: checksummed only. nimtb encodes and decodes all of them itself
// (io/codec/compressors.h, io/hdf5_filters.h); h5py needs Debian's plug-ins
// for zstd and lz4.
enum class Compression { deflate, zstd, lz4, none, other };
Compression parse_compression(std::string_view text);  // throws nimtb::InputError
const char* to_string(Compression c);
// The level used when none is given: deflate 6; zstd 4 on Blosc's scale
// (zstd's own level 7), the smallest tables still written at memory speed.
int default_level(Compression c);

// What a table is of, as a writer declares it in the root's attributes
// (docs/FORMAT.md): the game, the universe (a box of at most `max_heaps` of
// at most `max_heap_size`, or with `max_total` every position of at most that
// many tokens) and how its values were found. TableInfo reads it back.
struct TableHeader {
    engine::Rule rule = engine::Rule::nim();
    engine::Convention convention = engine::Convention::normal;
    unsigned max_heaps = 0;
    uint32_t max_heap_size = 0;
    uint32_t max_total = 0;  // 0: a box
    uint64_t positions = 0;
    std::string method;  // "brute" or "sprague-grundy"
};

// What `nimtb info` shows.
struct TableInfo {
    std::string path;
    std::string rules;  // canonical text
    engine::Convention convention = engine::Convention::normal;
    std::string index;  // INDEX_NAME or TOTAL_INDEX_NAME
    unsigned max_heaps = 0;
    uint32_t max_heap_size = 0;
    uint32_t max_total = 0;  // N of a total-bounded universe; 0 for a box
    uint64_t positions = 0;
    uint64_t format_version = 0;
    std::string generator;
    std::string method;  // "brute", "sprague-grundy", or "" when not recorded
    unsigned value_bits = 0;
    unsigned remoteness_bits = 0;  // 0: the table has no remoteness
    Transform value_transform = Transform::none;
    Transform remoteness_transform = Transform::none;
    Compression compression = Compression::none;
    uint64_t chunk_elements = 0;
    uint64_t file_bytes = 0;
    // The datasets' bytes as arrays (positions x width); what they take in
    // the file is TableReader::storage().
    uint64_t data_bytes = 0;
};

// What a table takes: its datasets as arrays (positions x width), their
// chunks as stored (checksums included), the file, and what compression
// gained on the data itself (data_bytes / stored_bytes). The writer
// returns it; TableReader::storage() reads it back.
struct TableStorage {
    uint64_t data_bytes = 0;
    uint64_t stored_bytes = 0;
    uint64_t file_bytes = 0;
    Compression compression = Compression::none;
    double compression_ratio = 1.0;
};

}  // namespace nimtb::io
