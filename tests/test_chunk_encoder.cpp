// The table's chunks a streamed process holds whole, encoded beside the
// solve (mpi/chunk_encoder.h): which chunks and when, and that each is
// encoded as the table's writer encodes it, read back from the spill as
// the levels are appended.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "engine/game/universe.h"
#include "engine/solve/solve_order.h"
#include "io/codec/compressors.h"
#include "io/table_writer.h"
#include "mpi/chunk_encoder.h"
#include "mpi/deal.h"
#include "mpi/spill.h"
#include "scratch_dir.h"

namespace nimtb::mpi {
namespace {

using ChunkEncoderTest = test::ScratchDir;
using engine::Universe;

constexpr uint64_t CHUNK = 97;  // entries: chunks begin and end inside blocks

// The entry of a rank (16 bits: some need both bytes).
uint16_t entry(uint64_t rank) {
    return static_cast<uint16_t>((rank * 2654435761u >> 7) % 700);
}

// Process `rank`'s layout of the line chain's deal of `u` over `processes`.
Layout chain_layout(const Universe& u, int rank, int processes) {
    const engine::SolveOrder plan = engine::make_order(u, chain_block_heaps(u));
    return deal(plan, rank, processes, u, chain_deal(u, processes).owner);
}

// A chunk is listed, once, at the level of its last block, where every
// block of it is the process's; every other chunk has a block of another.
TEST(WholeChunks, AreThoseWhoseBlocksAreAllTheProcesssAtTheirLastLevel) {
    const Universe u(5, 12);
    for (int processes = 1; processes <= 3; ++processes) {
        std::vector<int> listed((u.size() + CHUNK - 1) / CHUNK, 0);
        for (int rank = 0; rank < processes; ++rank) {
            const Layout l = chain_layout(u, rank, processes);
            std::vector<size_t> level_of(l.first.size(), SIZE_MAX);
            const engine::SolveOrder& lp = l.local_plan;
            for (size_t level = 0; level < lp.levels(); ++level)
                for (size_t i = lp.level_start[level]; i < lp.level_start[level + 1]; ++i)
                    level_of[l.find(l.local_global_first[i])] = level;
            const auto chunks = whole_chunks_by_level(l, u.size(), CHUNK, 0);
            ASSERT_EQ(chunks.size(), lp.levels());
            for (size_t level = 0; level < chunks.size(); ++level) {
                for (const uint64_t c : chunks[level]) {
                    ++listed[c];
                    size_t last = 0;
                    for_each_overlap(l, c * CHUNK, std::min(u.size(), (c + 1) * CHUNK),
                                     [&](uint64_t, uint64_t, size_t b) {
                                         EXPECT_EQ(l.owner[b], rank);
                                         last = std::max(last, level_of[b]);
                                     });
                    EXPECT_EQ(last, level);
                }
            }
            // A resumed solve's: none of the levels solved before.
            const auto resumed = whole_chunks_by_level(l, u.size(), CHUNK, 20);
            for (size_t level = 0; level < resumed.size(); ++level)
                EXPECT_EQ(resumed[level], level < 20 ? std::vector<uint64_t>{} : chunks[level]);
        }
        const Layout l = chain_layout(u, 0, processes);
        for (uint64_t c = 0; c < listed.size(); ++c) {
            bool one_owner = true;
            int owner = -1;
            for_each_overlap(l, c * CHUNK, std::min(u.size(), (c + 1) * CHUNK),
                             [&](uint64_t, uint64_t, size_t b) {
                                 one_owner = one_owner && (owner < 0 || l.owner[b] == owner);
                                 owner = l.owner[b];
                             });
            EXPECT_EQ(listed[c], one_owner ? 1 : 0) << c << " of " << processes;
        }
        if (processes == 1) {
            EXPECT_EQ(size_t(std::count(listed.begin(), listed.end(), 1)), listed.size());
        } else {
            EXPECT_GT(std::count(listed.begin(), listed.end(), 0), 0);  // some chunks are shared
        }
    }
}

// Process 1 of 2 solves its levels into a window, spills them and hands
// its whole chunks to the encoder, as the distributed solve does; each
// chunk encoded is the writer's encoding of the chunk's entries.
TEST_F(ChunkEncoderTest, EncodesEachWholeChunkAsTheWriterDoes) {
    const Universe u(5, 12);
    const Layout l = chain_layout(u, 1, 2);
    const engine::SolveOrder& lp = l.local_plan;
    const auto chunks = whole_chunks_by_level(l, u.size(), CHUNK, 0);
    for (const unsigned bits : {8u, 16u}) {
        Spill spill(path("t.h5"), bits, "t.h5: dataset /value");
        EncodedPart part(path("t.h5"), "t.h5: dataset /value");
        const io::EncodedChunks guess{.file_bits = bits,
                                      .chunk = CHUNK,
                                      .compression = io::Compression::zstd,
                                      .level = 3,
                                      .transform = io::Transform::none,
                                      .transform_chosen = false,
                                      .read = {}};
        ChunkEncoder encoder(spill, part, guess, true);
        const auto level_first = [&](size_t level) {
            return lp.level_start[level] < lp.blocks.size() ? lp.blocks[lp.level_start[level]].first
                                                            : l.local_positions;
        };
        uint64_t largest = 0;
        for (size_t level = 0; level < lp.levels(); ++level)
            largest = std::max(largest, level_first(level + 1) - level_first(level));
        engine::QuantityArray window(largest, bits);
        for (size_t level = 0; level < lp.levels(); ++level) {
            for (size_t i = lp.level_start[level]; i < lp.level_start[level + 1]; ++i) {
                for (uint64_t j = 0; j < lp.blocks[i].count; ++j) {
                    const uint64_t at = lp.blocks[i].first - level_first(level) + j;
                    const uint16_t x = entry(l.local_global_first[i] + j);
                    if (bits == 8)
                        window.data<uint8_t>()[at] = static_cast<uint8_t>(x);
                    else
                        window.data<uint16_t>()[at] = x;
                }
            }
            spill.append(window, level_first(level + 1) - level_first(level));
            for (const uint64_t c : chunks[level]) encoder.add(l, u.size(), c);
        }
        spill.flush(true);
        const std::optional<io::EncodedChunks> e = encoder.finish();
        ASSERT_TRUE(e);
        std::vector<uint64_t> expected;
        for (const auto& level : chunks)
            expected.insert(expected.end(), level.begin(), level.end());
        EXPECT_EQ(encoder.chunks(), expected);
        ASSERT_FALSE(expected.empty());
        for (const uint64_t c : expected) {
            const uint64_t entries = std::min(CHUNK, u.size() - c * CHUNK);
            io::ByteBuffer raw(CHUNK * bits / 8), want, got;
            std::fill(raw.begin(), raw.end(), uint8_t{0});
            for (uint64_t j = 0; j < entries; ++j) {
                const uint16_t x = bits == 8 ? entry(c * CHUNK + j) & 0xff : entry(c * CHUNK + j);
                std::memcpy(raw.data() + j * bits / 8, &x, bits / 8);  // little-endian
            }
            ASSERT_TRUE(io::encode_chunk(*e, entries, raw, want));
            part.read(c, got);
            EXPECT_EQ(got, want) << "chunk " << c << " at " << bits << " bits";
        }
    }
}

// An encoder waiting for entries not yet spilled stops when let go.
TEST_F(ChunkEncoderTest, StopsWhileWaitingForTheSpill) {
    const Universe u(5, 12);
    const Layout l = chain_layout(u, 0, 1);
    Spill spill(path("t.h5"), 8, "t.h5: dataset /value");
    EncodedPart part(path("t.h5"), "t.h5: dataset /value");
    ChunkEncoder encoder(spill, part,
                         {.file_bits = 8,
                          .chunk = CHUNK,
                          .compression = io::Compression::zstd,
                          .level = 3,
                          .transform = io::Transform::none,
                          .transform_chosen = false,
                          .read = {}},
                         false);
    encoder.add(l, u.size(), 0);
}

}  // namespace
}  // namespace nimtb::mpi
