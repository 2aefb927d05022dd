#include <blosc.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/solve/solver.h"
#include "io/codec/chunk_codec.h"
#include "io/hdf5_handle.h"
#include "io/probe.h"
#include "io/run_file.h"
#include "io/table_reader.h"
#include "io/table_writer.h"
#include "scratch_dir.h"
#include "solve_universe.h"

namespace fs = std::filesystem;
using nimtb::TableError;
using nimtb::engine::Convention;
using nimtb::engine::Rule;
using nimtb::engine::Solution;
using nimtb::engine::Universe;
using nimtb::io::Compression;
using nimtb::io::TableReader;
using nimtb::test::solve;

namespace {

class TableFiles : public nimtb::test::ScratchDir {};

void expect_same(const Solution& s, TableReader& t) {
    ASSERT_EQ(t.info().positions, s.positions);
    for (uint64_t r = 0; r < s.positions; ++r) {
        ASSERT_EQ(t.value(r), s.value.get(r)) << r;
        if (!s.remoteness.empty()) {
            ASSERT_EQ(t.remoteness(r), s.remoteness.get(r)) << r;
        }
    }
    // Streaming gives the same.
    uint64_t seen = 0;
    t.for_each_chunk(
        [&](uint64_t first, std::span<const uint16_t> v, std::span<const uint16_t> rem) {
            ASSERT_EQ(first, seen);
            for (size_t i = 0; i < v.size(); ++i) {
                ASSERT_EQ(v[i], s.value.get(first + i));
                if (!s.remoteness.empty()) {
                    ASSERT_EQ(rem[i], s.remoteness.get(first + i));
                }
            }
            seen += v.size();
        });
    EXPECT_EQ(seen, s.positions);
    // So does the whole table at once (its chunks decoded in parallel).
    nimtb::engine::QuantityArray values, remoteness;
    t.read_all(values, remoteness);
    ASSERT_EQ(values.size(), s.positions);
    ASSERT_EQ(remoteness.size(), s.remoteness.size());
    for (uint64_t r = 0; r < s.positions; ++r) {
        ASSERT_EQ(values.get(r), s.value.get(r)) << r;
        if (!s.remoteness.empty()) {
            ASSERT_EQ(remoteness.get(r), s.remoteness.get(r)) << r;
        }
    }
}

// Byte offset and size of chunk 0 of a dataset, for damaging it on purpose.
std::pair<uint64_t, uint64_t> first_chunk(const std::string& file, const char* dataset) {
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    const hsize_t offset[1] = {0};
    unsigned mask = 0;
    haddr_t addr = 0;
    hsize_t size = 0;
    H5Dget_chunk_info_by_coord(d, offset, &mask, &addr, &size);
    H5Dclose(d);
    H5Fclose(f);
    return {addr, size};
}

void expect_refused(const std::string& file, const std::string& fragment) {
    try {
        TableReader t(file);
        for (uint64_t r = 0; r < t.info().positions; ++r) t.value(r);
        ADD_FAILURE() << "read " << file;
    } catch (const TableError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(fragment), std::string::npos) << m;
        EXPECT_NE(m.find(file), std::string::npos) << m;
    }
    try {  // the whole table at once
        TableReader t(file);
        nimtb::engine::QuantityArray values, remoteness;
        t.read_all(values, remoteness);
        ADD_FAILURE() << "read " << file << " whole";
    } catch (const TableError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(fragment), std::string::npos) << m;
        EXPECT_NE(m.find(file), std::string::npos) << m;
    }
}

}  // namespace

TEST_F(TableFiles, RoundTripSeveralUniversesAndWidths) {
    const Solution small = solve("subtract:1,3,4", Convention::misere, 4, 12);
    nimtb::test::write_solution(path("a.h5"), small, {});
    TableReader a(path("a.h5"));
    EXPECT_EQ(a.info().value_bits, 8u);
    EXPECT_EQ(a.info().remoteness_bits, 8u);
    EXPECT_EQ(a.info().rules, "subtract:1,3,4");
    EXPECT_EQ(a.info().convention, Convention::misere);
    expect_same(small, a);

    // 16-bit remoteness, more than one chunk (an edge chunk too), both
    // versions; chunks shorter than the default keep the table small.
    // Chunks of 9,000 make 36: several batches of read_all's, the last one short.
    const Solution wide = solve("nim", Convention::normal, 2, 800);
    for (auto [version, chunk] : {std::pair{1, 50'000}, {2, 50'000}, {2, 9'000}}) {
        nimtb::io::WriteOptions o;
        o.format_version = static_cast<uint64_t>(version);
        o.overwrite = true;
        o.chunk_elements = static_cast<uint64_t>(chunk);
        nimtb::test::write_solution(path("b.h5"), wide, o);
        TableReader b(path("b.h5"));
        EXPECT_EQ(b.info().format_version, static_cast<uint64_t>(version));
        EXPECT_EQ(b.info().remoteness_bits, 16u);
        EXPECT_GT(b.info().positions, 1 * b.info().chunk_elements);
        EXPECT_NE(b.info().positions % b.info().chunk_elements, 0u);
        expect_same(wide, b);
    }

    // 16-bit values.
    const Solution values16 = solve("nim", Convention::normal, 1, 300, {.remoteness = false});
    nimtb::test::write_solution(path("c.h5"), values16, {});
    TableReader c(path("c.h5"));
    EXPECT_EQ(c.info().value_bits, 16u);
    EXPECT_FALSE(c.has_remoteness());
    EXPECT_THROW(c.remoteness(0), TableError);
    expect_same(values16, c);
}

TEST_F(TableFiles, EveryCompressionRoundTrips) {
    // Several chunks of either version (321,201 positions), and a table
    // smaller than Blosc's smallest buffer.
    for (const auto& s :
         {solve("nim", Convention::misere, 2, 800), solve("nim", Convention::normal, 3, 7)}) {
        for (Compression c :
             {Compression::deflate, Compression::zstd, Compression::lz4, Compression::none}) {
            for (uint64_t version : {1, 2}) {
                nimtb::io::WriteOptions o;
                o.compression = c;
                o.overwrite = true;
                o.format_version = version;
                o.chunk_elements = 50'000;  // several chunks, and an edge chunk
                const std::string file = path(std::string(nimtb::io::to_string(c)) + ".h5");
                nimtb::test::write_solution(file, s, o);
                TableReader t(file);
                EXPECT_EQ(t.info().compression, c);
                EXPECT_EQ(t.info().format_version, version);
                expect_same(s, t);
            }
        }
    }
}

namespace {

// Every chunk of a dataset as stored.
std::vector<std::vector<uint8_t>> stored_chunks(const std::string& file, const char* dataset) {
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    hid_t space = H5Dget_space(d);
    hsize_t n = 0;
    H5Dget_num_chunks(d, space, &n);
    std::vector<std::vector<uint8_t>> chunks;
    for (hsize_t i = 0; i < n; ++i) {
        hsize_t offset[1] = {0}, size = 0;
        unsigned mask = 0;
        haddr_t addr = 0;
        H5Dget_chunk_info(d, space, i, offset, &mask, &addr, &size);
        std::vector<uint8_t> bytes(size);
        uint32_t filters = 0;
        H5Dread_chunk(d, H5P_DEFAULT, offset, &filters, bytes.data());
        chunks.push_back(std::move(bytes));
    }
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return chunks;
}

}  // namespace

// A streamed solve's run files hold the table's chunks as guessed before the
// solve ends. The writer stores them as they are when the guess holds, and
// reads the entries back and encodes anew when it does not (entries that
// fit a narrower width than their run's; chunks encoded with other options):
// the same table, chunk for chunk, as written from the arrays.
TEST_F(TableFiles, RunFilesMakeTheTableTheArraysMake) {
    const Solution wide = solve("nim", Convention::misere, 2, 800);  // 16-bit values and remoteness
    Solution narrow = solve("nim", Convention::normal, 3, 40);       // 8-bit both
    const nimtb::io::TableContents narrow_contents = nimtb::service::table_contents(narrow);
    narrow.value.widen();  // spilled at 16 bits, stored at 8
    narrow.remoteness.widen();
    struct Case {
        const Solution& s;
        const nimtb::io::TableContents direct;
        int spill_level;  // 0: the table's
    };
    const Case cases[] = {{wide, nimtb::service::table_contents(wide), 0},
                          {narrow, narrow_contents, 0},
                          {wide, nimtb::service::table_contents(wide), 2}};
    int n = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE("case " + std::to_string(n));
        nimtb::io::WriteOptions o;
        o.chunk_elements = 9'000;  // several chunks, a partial last one
        const std::string direct = path("direct" + std::to_string(n) + ".h5");
        const std::string spilled = path("spilled" + std::to_string(n++) + ".h5");
        nimtb::io::write_table(direct, c.direct, o);
        nimtb::io::WriteOptions spill = o;
        if (c.spill_level) spill.level = c.spill_level;
        nimtb::io::RunFile value(spilled, c.s.value.bits(), c.s.positions, spill, "value");
        nimtb::io::RunFile remoteness(spilled, c.s.remoteness.bits(), c.s.positions, spill, "rem");
        // Handed over in three uneven parts, as a streamed solve hands its groups.
        const uint64_t cuts[] = {0, 5'000, c.s.positions / 3 * 2 + 1, c.s.positions};
        for (int part = 0; part < 3; ++part) {
            const uint64_t first = cuts[part], count = cuts[part + 1] - first;
            nimtb::engine::QuantityArray v(count, c.s.value.bits()),
                r(count, c.s.remoteness.bits());
            std::memcpy(v.data<uint8_t>(), c.s.value.data<uint8_t>() + first * (v.bits() / 8),
                        v.bytes());
            std::memcpy(r.data<uint8_t>(), c.s.remoteness.data<uint8_t>() + first * (r.bits() / 8),
                        r.bytes());
            value.append(v, count);
            remoteness.append(r, count);
        }
        value.finish();
        remoteness.finish();
        nimtb::io::TableContents contents = c.direct;
        contents.value = value.entries();
        contents.remoteness = remoteness.entries();
        nimtb::io::write_table(spilled, contents, o);
        for (const char* dataset : {"value", "remoteness"}) {
            SCOPED_TRACE(dataset);
            EXPECT_EQ(stored_chunks(direct, dataset), stored_chunks(spilled, dataset));
        }
        TableReader back(spilled);
        expect_same(c.s, back);
    }
}

TEST(ChunkCodec, TransformsRoundTripInEitherWidth) {
    // Steps of every size both ways, wrapping around the width.
    std::vector<uint16_t> wide;
    std::vector<uint8_t> narrow;
    uint32_t x = 12345;
    for (int i = 0; i < 5000; ++i) {
        x = x * 1103515245u + 12345u;
        wide.push_back(static_cast<uint16_t>(i % 7 == 0 ? x >> 16 : (i * 3) % 400));
        narrow.push_back(static_cast<uint8_t>(x >> 24));
    }
    using nimtb::io::Transform;
    for (Transform t : {Transform::none, Transform::xor_previous, Transform::delta_zigzag}) {
        auto w = wide;
        auto n = narrow;
        nimtb::io::encode_transform<uint16_t>(t, w);
        nimtb::io::encode_transform<uint8_t>(t, n);
        if (t != Transform::none) {
            EXPECT_NE(w, wide);
        }
        nimtb::io::decode_transform<uint16_t>(t, w);
        nimtb::io::decode_transform<uint8_t>(t, n);
        EXPECT_EQ(w, wide) << nimtb::io::to_string(t);
        EXPECT_EQ(n, narrow) << nimtb::io::to_string(t);
    }
    // Zigzag: small steps either way are small numbers.
    std::vector<uint8_t> steps{5, 6, 4, 4, 255};
    nimtb::io::encode_transform<uint8_t>(Transform::delta_zigzag, steps);
    EXPECT_EQ(steps, (std::vector<uint8_t>{10, 2, 3, 0, 9}));  // 4 -> 255 is a step of -5
}

TEST(ChunkCodec, TheChosenTransformFitsTheData) {
    using nimtb::io::Transform;
    std::vector<uint16_t> ramp, xors, noise;
    uint32_t x = 1;
    for (uint16_t i = 0; i < 4096; ++i) {
        x = x * 1103515245u + 12345u;
        ramp.push_back(static_cast<uint16_t>(i / 3 + (x >> 31)));        // remoteness-like
        xors.push_back(static_cast<uint16_t>((i % 64) ^ (i / 64 % 8)));  // Nim-like values
        noise.push_back(static_cast<uint16_t>(x >> 16));
    }
    EXPECT_EQ(nimtb::io::choose_transform<uint16_t>(ramp, 1024), Transform::delta_zigzag);
    EXPECT_EQ(nimtb::io::choose_transform<uint16_t>(xors, 1024), Transform::xor_previous);
}

TEST(ChunkCodec, EveryDirectCodecRoundTripsAndChecksItsSum) {
    std::vector<uint8_t> raw(70000);
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i % 251 ^ i / 300);
    for (Compression c :
         {Compression::deflate, Compression::zstd, Compression::lz4, Compression::none}) {
        nimtb::io::ByteBuffer stored;
        std::vector<uint8_t> back(raw.size());
        ASSERT_TRUE(nimtb::io::compress_chunk(c, nimtb::io::default_level(c), 2, raw, stored));
        EXPECT_EQ(nimtb::io::decompress_chunk(c, stored, back), "");
        EXPECT_EQ(back, raw);
        stored[stored.size() / 2] ^= 0x10;
        EXPECT_EQ(nimtb::io::decompress_chunk(c, stored, back),
                  "data error detected by Fletcher32 checksum");
    }
}

namespace {

// A chunk of `count` entries of `width` bytes (steps up and down, as
// remoteness; some jumps, as values), transformed by `t` and stored by `c`.
template <class T>
std::vector<T> chunk_entries(size_t count) {
    std::vector<T> x(count);
    uint32_t r = 7;
    for (size_t i = 0; i < count; ++i) {
        r = r * 1103515245u + 12345u;
        x[i] = static_cast<T>(i % 97 == 0 ? r >> 16 : (i / 3) % 300 + (r >> 31));
    }
    return x;
}

}  // namespace

// nimtb builds Blosc's container of a zstd chunk itself, with a zstd
// context kept per thread: byte for byte what Blosc makes, at every level,
// both widths, chunks of Nim's shape, sizes around the smallest it builds,
// and chunks it leaves to Blosc (incompressible, too small).
TEST(ChunkCodec, ZstdChunksAreBloscsByteForByte) {
    blosc_init();
    std::vector<std::vector<uint8_t>> inputs;
    for (size_t count : {100, 2047, 2048, 5000, 70001}) {
        const auto x = chunk_entries<uint16_t>(count);
        inputs.emplace_back(reinterpret_cast<const uint8_t*>(x.data()),
                            reinterpret_cast<const uint8_t*>(x.data() + count));
    }
    {
        const auto x = chunk_entries<uint16_t>(1 << 20);
        inputs.emplace_back(reinterpret_cast<const uint8_t*>(x.data()),
                            reinterpret_cast<const uint8_t*>(x.data() + x.size()));
    }
    std::vector<uint8_t> noise(300000);
    uint32_t r = 1;
    for (uint8_t& b : noise) b = static_cast<uint8_t>((r = r * 1103515245u + 12345u) >> 24);
    inputs.push_back(noise);
    for (const auto& raw : inputs) {
        for (unsigned width : {1u, 2u}) {
            for (int level = 1; level <= 9; ++level) {
                // A whole chunk of the default size at the default level; the
                // highest levels take seconds on it.
                if (raw.size() > 200000 && raw != noise && level != 4) continue;
                SCOPED_TRACE(std::to_string(raw.size()) + " bytes, width " + std::to_string(width) +
                             ", level " + std::to_string(level));
                std::vector<uint8_t> blosc(raw.size() + BLOSC_MAX_OVERHEAD);
                const int n = blosc_compress_ctx(level, width > 1 ? BLOSC_SHUFFLE : BLOSC_NOSHUFFLE,
                                                 width, raw.size(), raw.data(), blosc.data(),
                                                 blosc.size(), "zstd", raw.size(), 1);
                ASSERT_GT(n, 0);
                blosc.resize(static_cast<size_t>(n));
                nimtb::io::ByteBuffer ours;
                ASSERT_TRUE(nimtb::io::compress_bytes(Compression::zstd, level, width, raw, ours));
                ASSERT_EQ(std::vector<uint8_t>(ours.begin(), ours.end()), blosc);
            }
        }
    }
}

TEST(ChunkCodec, TheDecoderGivesTheEntriesAtAnyOffsetsAsTheWholeChunkDecodedDoes) {
    using nimtb::io::Transform;
    constexpr size_t COUNT = 300000;  // zstd blocks of 128 KiB: stops inside the stream
    nimtb::io::ChunkDecoder decoder;  // one decoder for every chunk, as a thread's
    const std::vector<uint64_t> offsets{0,      1,      1,      2,      4095,      70000,    131071,
                                        131072, 150001, 150001, 262143, COUNT - 2, COUNT - 1};
    for (unsigned width : {1u, 2u}) {
        for (Transform t : {Transform::none, Transform::xor_previous, Transform::delta_zigzag}) {
            for (Compression c :
                 {Compression::zstd, Compression::deflate, Compression::lz4, Compression::none}) {
                std::vector<uint16_t> wide = chunk_entries<uint16_t>(COUNT);
                std::vector<uint8_t> narrow = chunk_entries<uint8_t>(COUNT);
                std::vector<uint8_t> raw(COUNT * width);
                if (width == 1) {
                    nimtb::io::encode_transform<uint8_t>(t, narrow);
                    std::memcpy(raw.data(), narrow.data(), raw.size());
                } else {
                    nimtb::io::encode_transform<uint16_t>(t, wide);
                    std::memcpy(raw.data(), wide.data(), raw.size());
                }
                nimtb::io::ByteBuffer stored;
                ASSERT_TRUE(nimtb::io::compress_chunk(c, 4, width, raw, stored));
                const std::vector<uint16_t> expect_wide = chunk_entries<uint16_t>(COUNT);
                const std::vector<uint8_t> expect_narrow = chunk_entries<uint8_t>(COUNT);
                // Every prefix of the offsets: the decoder stops at the last.
                for (size_t n : {size_t{1}, size_t{4}, size_t{8}, offsets.size()}) {
                    std::vector<uint32_t> out(n);
                    ASSERT_EQ(
                        decoder.entries_at(c, t, width, COUNT, stored, {offsets.data(), n}, out),
                        "");
                    for (size_t k = 0; k < n; ++k) {
                        const uint64_t o = offsets[k];
                        EXPECT_EQ(out[k], width == 1 ? expect_narrow[o] : expect_wide[o])
                            << "width " << width << ", " << nimtb::io::to_string(t) << ", "
                            << nimtb::io::to_string(c) << ", offset " << o;
                    }
                }
            }
        }
    }
}

TEST(ChunkCodec, AnLz4StreamIsTheFiltersAndADamagedOneIsRefused) {
    std::vector<uint8_t> raw(70000), back(raw.size());
    nimtb::io::ByteBuffer stored;
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i / 700);
    ASSERT_TRUE(nimtb::io::compress_bytes(Compression::lz4, 0, 1, raw, stored));
    // The LZ4 filter's header, big-endian: the raw size, the block size
    // (the whole chunk), then the block's stored size.
    const std::vector<uint8_t> header{0, 0, 0, 0, 0, 1, 0x11, 0x70, 0, 1, 0x11, 0x70};
    EXPECT_TRUE(std::equal(header.begin(), header.end(), stored.begin()));
    EXPECT_EQ(uint64_t{stored[12]} << 24 | stored[13] << 16 | stored[14] << 8 | stored[15],
              stored.size() - 16);
    EXPECT_EQ(nimtb::io::decompressed_size(Compression::lz4, stored), raw.size());
    EXPECT_EQ(nimtb::io::decompress_bytes(Compression::lz4, stored, back), "");
    EXPECT_EQ(back, raw);
    nimtb::io::ByteBuffer wrong_size = stored;
    wrong_size[7] ^= 1;
    EXPECT_EQ(nimtb::io::decompress_bytes(Compression::lz4, wrong_size, back),
              "LZ4 header damaged");
    std::vector<uint8_t> cut(stored.begin(), stored.end() - 5);
    EXPECT_EQ(nimtb::io::decompress_bytes(Compression::lz4, cut, back), "LZ4 stream damaged");
    nimtb::io::ByteBuffer flipped = stored;
    for (size_t i = 16; i < flipped.size(); i += 3) flipped[i] ^= 0x5a;
    EXPECT_EQ(nimtb::io::decompress_bytes(Compression::lz4, flipped, back), "LZ4 stream damaged");
    // A block LZ4 cannot shrink is stored as it is.
    uint64_t r = 88172645463325252u;
    for (uint8_t& b : raw) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;  // xorshift64
        b = static_cast<uint8_t>(r >> 56);
    }
    ASSERT_TRUE(nimtb::io::compress_bytes(Compression::lz4, 0, 1, raw, stored));
    EXPECT_EQ(stored.size(), raw.size() + 16);
    EXPECT_EQ(nimtb::io::decompress_bytes(Compression::lz4, stored, back), "");
    EXPECT_EQ(back, raw);
}

TEST(ChunkCodec, TheDecoderRefusesADamagedChunk) {
    using nimtb::io::Transform;
    constexpr size_t COUNT = 200000;
    std::vector<uint16_t> x = chunk_entries<uint16_t>(COUNT);
    nimtb::io::encode_transform<uint16_t>(Transform::delta_zigzag, x);
    std::vector<uint8_t> raw(COUNT * 2);
    nimtb::io::ByteBuffer stored;
    std::memcpy(raw.data(), x.data(), raw.size());
    ASSERT_TRUE(nimtb::io::compress_chunk(Compression::zstd, 4, 2, raw, stored));
    nimtb::io::ChunkDecoder decoder;
    const std::vector<uint64_t> last{COUNT - 1};
    std::vector<uint32_t> out(1);
    // A flipped byte: the checksum says so.
    nimtb::io::ByteBuffer flipped = stored;
    flipped[flipped.size() / 2] ^= 0x10;
    EXPECT_EQ(decoder.entries_at(Compression::zstd, Transform::delta_zigzag, 2, COUNT, flipped,
                                 last, out),
              "data error detected by Fletcher32 checksum");
    // A stream cut short under a checksum that matches it: zstd says so.
    std::vector<uint8_t> cut(stored.begin(), stored.end() - 4 - 40);
    const uint32_t length = static_cast<uint32_t>(cut.size());
    std::memcpy(cut.data() + 12, &length, 4);  // Blosc's compressed size
    const uint32_t stream = length - 24;
    std::memcpy(cut.data() + 20, &stream, 4);  // the stream's length
    const uint32_t sum = nimtb::io::fletcher32(cut);
    cut.resize(cut.size() + 4);
    std::memcpy(cut.data() + cut.size() - 4, &sum, 4);
    EXPECT_EQ(
        decoder.entries_at(Compression::zstd, Transform::delta_zigzag, 2, COUNT, cut, last, out),
        "zstd stream damaged");
    // The decoder is still good for the next chunk.
    EXPECT_EQ(
        decoder.entries_at(Compression::zstd, Transform::delta_zigzag, 2, COUNT, stored, last, out),
        "");
    EXPECT_EQ(out[0], chunk_entries<uint16_t>(COUNT)[COUNT - 1]);
}

TEST(ChunkCodec, TheDecoderReadsBloscChunksOfAnotherShapeThroughBlosc) {
    // Blocks of 64 KiB, split in streams: not what nimtb writes, but a
    // valid Blosc chunk (another writer's), so decoded whole by Blosc.
    using nimtb::io::Transform;
    constexpr size_t COUNT = 100000;
    std::vector<uint16_t> x = chunk_entries<uint16_t>(COUNT);
    nimtb::io::encode_transform<uint16_t>(Transform::xor_previous, x);
    std::vector<uint8_t> stored(COUNT * 2 + BLOSC_MAX_OVERHEAD + 4);
    const int n = blosc_compress_ctx(4, BLOSC_SHUFFLE, 2, COUNT * 2, x.data(), stored.data(),
                                     stored.size() - 4, "zstd", 65536, 1);
    ASSERT_GT(n, 0);
    stored.resize(static_cast<size_t>(n));
    const uint32_t sum = nimtb::io::fletcher32(stored);
    stored.resize(stored.size() + 4);
    std::memcpy(stored.data() + stored.size() - 4, &sum, 4);
    nimtb::io::ChunkDecoder decoder;
    const std::vector<uint64_t> offsets{3, 65535, 65536, COUNT - 1};
    std::vector<uint32_t> out(offsets.size());
    ASSERT_EQ(decoder.entries_at(Compression::zstd, Transform::xor_previous, 2, COUNT, stored,
                                 offsets, out),
              "");
    const std::vector<uint16_t> expect = chunk_entries<uint16_t>(COUNT);
    for (size_t k = 0; k < offsets.size(); ++k) EXPECT_EQ(out[k], expect[offsets[k]]);
}

TEST_F(TableFiles, NeverOverwritesUnlessAsked) {
    const Solution s = solve("nim", Convention::normal, 2, 5);
    nimtb::test::write_solution(path("t.h5"), s, {});
    EXPECT_THROW(nimtb::test::write_solution(path("t.h5"), s, {}), TableError);
    nimtb::io::WriteOptions o;
    o.overwrite = true;
    EXPECT_NO_THROW(nimtb::test::write_solution(path("t.h5"), s, o));
}

TEST_F(TableFiles, AnInterruptedWriteLeavesNothingBehind) {
    const Solution s = solve("nim", Convention::normal, 3, 90);
    for (Compression c : {Compression::deflate, Compression::zstd}) {
        std::atomic<bool> stop{true};
        nimtb::io::WriteOptions o;
        o.compression = c;
        o.cancel = &stop;
        EXPECT_THROW(nimtb::test::write_solution(path("t.h5"), s, o), nimtb::Cancelled);
        EXPECT_TRUE(fs::is_empty(dir_)) << fs::directory_iterator(dir_)->path();
    }
}

TEST_F(TableFiles, AFailedWriteLeavesNothingBehind) {
    const Solution s = solve("nim", Convention::normal, 3, 20);
    EXPECT_THROW(nimtb::test::write_solution(path("no/such/folder/t.h5"), s, {}), TableError);
    EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(TableFiles, RefusesMissingAndForeignFiles) {
    expect_refused(path("missing.h5"), "no such file");
    { std::ofstream(path("text.h5")) << "not a table\n"; }
    expect_refused(path("text.h5"), "not an HDF5 file");
    hid_t f = H5Fcreate(path("foreign.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    expect_refused(path("foreign.h5"), "not a nimtb table");
}

// Opens a good table for writing and changes one thing about it.
class Damage : public TableFiles {
  protected:
    std::string make() {
        const std::string file = path("t.h5");
        nimtb::test::write_solution(file, solve("nim", Convention::normal, 3, 20), {});
        return file;
    }
    void set_u64(const std::string& file, const char* name, uint64_t v) {
        hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        H5Adelete(f, name);
        nimtb::io::write_u64_attribute(f, name, v);
        H5Fclose(f);
    }
    void set_string(const std::string& file, const char* name, const std::string& v) {
        hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        H5Adelete(f, name);
        nimtb::io::write_string_attribute(f, name, v);
        H5Fclose(f);
    }
};

TEST_F(Damage, NewerFormatVersion) {
    const std::string f = make();
    set_u64(f, "format_version", 3);
    expect_refused(f, "version 3 is newer");
}

TEST_F(Damage, UnknownOrMissingTransform) {
    std::string f = make();
    hid_t h = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(h, "remoteness", H5P_DEFAULT);
    H5Adelete(d, "transform");
    nimtb::io::write_string_attribute(d, "transform", "wavelet");
    H5Dclose(d);
    H5Fclose(h);
    expect_refused(f, "unknown transform 'wavelet'");
    fs::remove(f);
    f = make();
    h = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    d = H5Dopen2(h, "value", H5P_DEFAULT);
    H5Adelete(d, "transform");
    H5Dclose(d);
    H5Fclose(h);
    expect_refused(f, "dataset /value: attribute 'transform' is missing");
}

TEST_F(Damage, BadAttributes) {
    std::string f = make();
    set_string(f, "index", "lex-v9");
    expect_refused(f, "unknown index 'lex-v9'");
    fs::remove(f);
    f = make();
    set_u64(f, "positions", 5);
    expect_refused(f, "attribute 'positions' is 5");
    fs::remove(f);
    f = make();
    set_string(f, "rules", "chess");
    expect_refused(f, "unknown rule");
    fs::remove(f);
    f = make();
    set_string(f, "rules", "grundy");  // a box cannot hold its splits
    expect_refused(f, "splits heaps");
    fs::remove(f);
    f = make();
    set_string(f, "convention", "sideways");
    expect_refused(f, "unknown convention");
    fs::remove(f);
    f = make();
    hid_t h = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Adelete(h, "max_heaps");
    H5Fclose(h);
    expect_refused(f, "attribute 'max_heaps' is missing");
}

TEST_F(Damage, WrongDatasetLengthAndType) {
    std::string f = make();
    set_u64(f, "max_heap_size", 21);
    set_u64(f, "positions", 2024);
    expect_refused(f, "dataset /value holds 1771 entries, expected 2024");
    fs::remove(f);
    f = make();
    hid_t h = H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(h, "value", H5P_DEFAULT);
    hsize_t n = 1771;
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t d = H5Dcreate2(h, "value", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(h);
    expect_refused(f, "wrong element type");
}

TEST_F(Damage, FlippedBytesInsideAChunkFailTheChecksum) {
    const std::string f = make();
    const auto [addr, size] = first_chunk(f, "value");
    ASSERT_GT(size, 8u);
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(static_cast<std::streamoff>(addr + size / 2));
    char byte = 0;
    io.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x5a);
    io.seekp(static_cast<std::streamoff>(addr + size / 2));
    io.write(&byte, 1);
    io.close();
    expect_refused(f, "the file is damaged");
}

TEST_F(Damage, TruncatedFile) {
    const std::string f = make();
    fs::resize_file(f, fs::file_size(f) / 2);
    expect_refused(f, f);
}

TEST_F(TableFiles, ProbeOrdersMovesBestFirst) {
    nimtb::test::write_solution(path("t.h5"), solve("nim", Convention::normal, 3, 7), {});
    nimtb::io::Prober p(path("t.h5"));
    const auto r = p.probe({3, 4, 5});
    EXPECT_EQ(r.rank, 48u);
    EXPECT_EQ(r.value, 2u);
    EXPECT_EQ(*r.remoteness, 11u);
    ASSERT_EQ(r.moves.size(), 12u);
    EXPECT_EQ(r.moves[0].heap, 1u);
    EXPECT_EQ(r.moves[0].amount, 2u);
    EXPECT_EQ(r.moves[0].result, (nimtb::engine::Heaps{1, 4, 5}));
    EXPECT_TRUE(r.moves[0].winning());
    for (size_t i = 2; i < r.moves.size(); ++i)
        EXPECT_GE(*r.moves[i - 1].remoteness, *r.moves[i].remoteness);
    EXPECT_EQ(p.principal_line({3, 4, 5}).size(), 11u);
    EXPECT_THROW(p.probe({8}), nimtb::InputError);
    EXPECT_THROW(p.probe({1, 1, 1, 1}), nimtb::InputError);
}

// best_move() finds probe()'s first move without building the others: the
// same move, every position, for rules whose children repeat (wythoff, moore),
// split (kayles, lasker) or are taken from several equal heaps.
TEST_F(TableFiles, BestMoveIsTheProbesFirst) {
    using nimtb::engine::Universe;
    const struct {
        const char* rule;
        Convention convention;
        Universe universe;
    } cases[] = {
        {"nim", Convention::misere, Universe(3, 6)},
        {"wythoff", Convention::normal, Universe(3, 5)},
        {"moore:2", Convention::misere, Universe(3, 4)},
        {"subtract:1,3,4", Convention::normal, Universe(4, 6)},
        {"kayles", Convention::misere, Universe::total_bounded(10)},
        {"lasker", Convention::normal, Universe::total_bounded(9)},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.rule);
        nimtb::engine::SolveOptions o;
        o.convention = c.convention;
        const std::string file = path(std::string(c.rule) + ".h5");
        nimtb::test::write_solution(
            file, nimtb::engine::solve(nimtb::engine::Rule::parse(c.rule), c.universe, o));
        nimtb::io::Prober p(file);
        nimtb::engine::Heaps heaps(c.universe.max_heaps(), 0);
        size_t moves = 0;
        for (uint64_t rank = 0; rank < c.universe.size(); ++rank, c.universe.next(heaps)) {
            // The heaps in descending order too: a move's heap is its place as given.
            for (bool reversed : {false, true}) {
                nimtb::engine::Heaps shown;
                for (uint32_t a : heaps)
                    if (a) shown.push_back(a);
                if (reversed) std::reverse(shown.begin(), shown.end());
                const auto all = p.probe(shown);
                const auto best = p.best_move(shown);
                ASSERT_EQ(best.has_value(), !all.moves.empty());
                if (!best) continue;
                ++moves;
                const auto& first = all.moves.front();
                EXPECT_EQ(best->result, first.result);
                EXPECT_EQ(best->child_rank, first.child_rank);
                EXPECT_EQ(best->phrase, first.phrase);
                EXPECT_EQ(best->heap, first.heap);
                EXPECT_EQ(best->heap_size, first.heap_size);
                EXPECT_EQ(best->amount, first.amount);
                EXPECT_EQ(best->value, first.value);
                EXPECT_EQ(best->remoteness, first.remoteness);
                ASSERT_EQ(best->touches.size(), first.touches.size());
                for (size_t i = 0; i < first.touches.size(); ++i) {
                    EXPECT_EQ(best->touches[i].heap, first.touches[i].heap);
                    EXPECT_EQ(best->touches[i].leaves, first.touches[i].leaves);
                }
            }
        }
        EXPECT_EQ(moves, 2 * (c.universe.size() - 1));  // every position but the empty one
    }
}

TEST(TableFormat, CompressionNames) {
    using nimtb::io::parse_compression;
    EXPECT_EQ(parse_compression("gzip"), Compression::deflate);
    EXPECT_STREQ(nimtb::io::to_string(Compression::deflate), "deflate");
    EXPECT_STREQ(nimtb::io::to_string(Compression::other), "other");
    for (Compression c :
         {Compression::deflate, Compression::zstd, Compression::lz4, Compression::none})
        EXPECT_EQ(parse_compression(nimtb::io::to_string(c)), c);
    try {
        parse_compression("other");
        FAIL() << "'other' names no filter nimtb writes";
    } catch (const nimtb::InputError& e) {
        EXPECT_STREQ(e.what(), "unknown compression 'other': expected deflate, zstd, lz4 or none");
    }
}
