// A streamed process's spill (mpi/spill.h): levels of every size, written
// in the background around the page cache, read back as appended; a
// checkpoint's spill cut back and appended to again; tmpfs, which refuses
// O_DIRECT.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "engine/base/errors.h"
#include "mpi/spill.h"
#include "scratch_dir.h"

namespace nimtb::mpi {
namespace {

using SpillTest = test::ScratchDir;

// Levels from 1 entry to past the spill's batches and buffers, at odd
// sizes, so that levels start and end inside disk blocks.
const std::vector<uint64_t> LEVELS = {1,       3, 4095,  4097,    70000,        1, 300001, 2,
                                      1 << 20, 5, 65536, 3 << 20, 4096 * 3 + 1, 17};

// Appends LEVELS, level i's entries (i, position) hashed, through one window
// of the largest level's size (swapped by each append, as the solve's is);
// returns the entries appended.
std::vector<uint8_t> append_levels(Spill& spill, unsigned bits, uint64_t seed) {
    const unsigned width = bits / 8;
    uint64_t largest = 0;
    for (uint64_t n : LEVELS) largest = std::max(largest, n);
    engine::QuantityArray window(largest, bits);
    std::vector<uint8_t> expected;
    std::mt19937_64 random(seed);
    for (uint64_t n : LEVELS) {
        auto* w = static_cast<uint8_t*>(const_cast<void*>(window.raw()));
        for (uint64_t i = 0; i < n * width; ++i) w[i] = static_cast<uint8_t>(random());
        expected.insert(expected.end(), w, w + n * width);
        spill.append(window, n);
        EXPECT_EQ(window.size(), largest);
        EXPECT_EQ(window.bits(), bits);
    }
    return expected;
}

void expect_read_back(const Spill& spill, const std::vector<uint8_t>& expected) {
    const unsigned width = spill.bits() / 8;
    ASSERT_EQ(spill.size() * width, expected.size());
    std::vector<uint8_t> all(expected.size());
    spill.read(0, spill.size(), all.data());
    EXPECT_TRUE(all == expected);
    // Pieces scattered over it, as the table's writer reads them.
    std::mt19937_64 random(7);
    for (int i = 0; i < 200; ++i) {
        const uint64_t first = random() % spill.size();
        const uint64_t count = 1 + random() % std::min<uint64_t>(100000, spill.size() - first);
        spill.prefetch(first, count);
        std::vector<uint8_t> piece(count * width);
        spill.read(first, count, piece.data());
        ASSERT_EQ(std::memcmp(piece.data(), expected.data() + first * width, piece.size()), 0);
    }
}

TEST_F(SpillTest, ReadsBackEveryLevelAppended) {
    for (const unsigned bits : {8u, 16u}) {
        Spill spill(path("t.h5"), bits, "t.h5: dataset /value");
        const std::vector<uint8_t> expected = append_levels(spill, bits, bits);
        spill.flush(true);
        expect_read_back(spill, expected);
    }
}

TEST_F(SpillTest, ACheckpointsSpillIsCutBackAndGoesOn) {
    const std::string file = path("value.spill");
    std::vector<uint8_t> expected;
    {
        Spill spill(file, 16, "t.h5: dataset /remoteness", 0);
        expected = append_levels(spill, 16, 1);
        spill.sync();
    }
    // A checkpoint saved inside a disk block: the rest is cut off.
    const uint64_t keep = 1000003;
    ASSERT_GT(expected.size(), keep * 2);
    expected.resize(keep * 2);
    Spill spill(file, 16, "t.h5: dataset /remoteness", keep);
    std::vector<uint8_t> more = append_levels(spill, 16, 2);
    expected.insert(expected.end(), more.begin(), more.end());
    spill.sync();
    expect_read_back(spill, expected);
    // Longer than the file (whose last block is padded): damaged.
    EXPECT_THROW(Spill(file, 16, "t.h5: dataset /remoteness", spill.size() + 4096), TableError);
}

TEST_F(SpillTest, WritesThroughThePageCacheWhereODirectIsRefused) {
    if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
    const std::string table = "/dev/shm/nimtb-test-spill-" + std::to_string(::getpid()) + ".h5";
    Spill spill(table, 8, "dataset /value");
    const std::vector<uint8_t> expected = append_levels(spill, 8, 3);
    spill.flush(true);
    expect_read_back(spill, expected);
}

}  // namespace
}  // namespace nimtb::mpi
