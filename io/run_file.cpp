#include "io/run_file.h"

#include <fcntl.h>
#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/base/errors.h"
#include "engine/base/parallel.h"
#include "io/codec/compressors.h"

namespace nimtb::io {

namespace {

// Blocks compressed at once per thread: enough to keep both cores busy
// between the writes, few enough that memory stays small.
constexpr uint64_t BLOCKS_IN_FLIGHT = 4;

std::string error_text() {
    return std::strerror(errno);
}

}  // namespace

RunFile::RunFile(const std::string& table_path, unsigned bits, std::string what)
    : what_(std::move(what)), bits_(bits) {
    assert(bits == 8 || bits == 16);
    const std::filesystem::path parent = std::filesystem::path(table_path).parent_path();
    std::string dir = parent.empty() ? std::string(".") : parent.string();
    // O_TMPFILE makes it nameless from the start; where the file system
    // has none, a named file unlinked at once.
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) {
        std::string name = dir + "/.nimtb-run-XXXXXX";
        fd_ = ::mkostemp(name.data(), O_CLOEXEC);
        if (fd_ >= 0) ::unlink(name.c_str());
    }
    if (fd_ < 0) {
        throw TableError(what_ + ": cannot create a run file in " + dir + ": " + error_text());
    }
    offset_.push_back(0);
}

RunFile::~RunFile() {
    if (fd_ >= 0) ::close(fd_);
}

uint64_t RunFile::memory(unsigned bits, unsigned threads) {
    // The partial block; per thread, a batch of compressed blocks in flight
    // (LZ4's bound is a little over the raw size), and on reading back a
    // block and its compressed bytes.
    const uint64_t block_bytes = BLOCK * (bits / 8);
    return block_bytes +
           (BLOCKS_IN_FLIGHT + 2) * std::max(1u, threads) * (block_bytes + block_bytes / 8);
}

void RunFile::write_blocks(const uint8_t* raw, uint64_t blocks) {
    const unsigned width = bits_ / 8;
    const uint64_t block_bytes = BLOCK * width;
    const uint64_t batch =
        BLOCKS_IN_FLIGHT * static_cast<uint64_t>(tbb::this_task_arena::max_concurrency());
    if (packets_.size() < std::min(batch, blocks)) packets_.resize(std::min(batch, blocks));
    std::vector<char> failed(packets_.size());
    for (uint64_t first = 0; first < blocks; first += batch) {
        const uint64_t count = std::min(batch, blocks - first);
        engine::sync_parallel_for(uint64_t{0}, count, [&](uint64_t slot) {
            const std::span<const uint8_t> block(raw + (first + slot) * block_bytes, block_bytes);
            failed[slot] = !compress_bytes(Compression::lz4, 0, width, block, packets_[slot]);
        });
        for (uint64_t slot = 0; slot < count; ++slot) {
            if (failed[slot]) throw TableError(what_ + ": cannot spill: LZ4 compression failed");
            const ByteBuffer& p = packets_[slot];
            for (uint64_t done = 0; done < p.size();) {
                const ssize_t n = ::pwrite(fd_, p.data() + done, p.size() - done,
                                           static_cast<off_t>(end_ + done));
                if (n <= 0) {
                    throw TableError(
                        what_ + ": cannot spill the solved positions to disk: " + error_text());
                }
                done += static_cast<uint64_t>(n);
            }
            end_ += p.size();
            offset_.push_back(end_);
        }
    }
}

void RunFile::append(const engine::QuantityArray& a, uint64_t count) {
    assert(a.bits() == bits_ && count <= a.size());
    const unsigned width = bits_ / 8;
    const uint8_t* raw = static_cast<const uint8_t*>(a.raw());
    uint64_t used = 0;
    // 1. Complete the partial block.
    if (!pending_.empty()) {
        const uint64_t room = BLOCK - pending_.size() / width;
        used = std::min(room, count);
        pending_.insert(pending_.end(), raw, raw + used * width);
        if (pending_.size() == BLOCK * width) {
            write_blocks(pending_.data(), 1);
            pending_.clear();
        }
    }
    // 2. Whole blocks straight from the array; 3. the rest waits.
    const uint64_t whole = (count - used) / BLOCK;
    write_blocks(raw + used * width, whole);
    used += whole * BLOCK;
    pending_.insert(pending_.end(), raw + used * width, raw + count * width);
    size_ += count;
}

void RunFile::finish() {
    if (pending_.empty()) return;
    pending_.resize(BLOCK * (bits_ / 8), 0);  // padded: every block is whole
    write_blocks(pending_.data(), 1);
    pending_ = {};
}

void RunFile::read(uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) const {
    assert(pending_.empty() && first + count <= size_ && file_bits <= bits_);
    const unsigned width = bits_ / 8;
    ByteBuffer packet, raw(BLOCK * width);
    for (uint64_t rank = first; rank < first + count;) {
        const uint64_t block = rank / BLOCK;
        const uint64_t begin = offset_[block], bytes = offset_[block + 1] - begin;
        packet.resize(bytes);
        for (uint64_t done = 0; done < bytes;) {
            const ssize_t n =
                ::pread(fd_, packet.data() + done, bytes - done, static_cast<off_t>(begin + done));
            if (n <= 0)
                throw TableError(what_ + ": cannot read the run file back: " + error_text());
            done += static_cast<uint64_t>(n);
        }
        const std::string why = decompress_bytes(Compression::lz4, packet, raw);
        if (!why.empty()) throw TableError(what_ + ": run file damaged: " + why);
        const uint64_t from = rank - block * BLOCK;
        const uint64_t n = std::min(BLOCK - from, first + count - rank);
        uint8_t* dest = out + (rank - first) * (file_bits / 8);
        if (file_bits == bits_) {
            std::memcpy(dest, raw.data() + from * width, n * width);
        } else {  // 16 to 8 bits: every entry was checked to fit
            const uint16_t* src = reinterpret_cast<const uint16_t*>(raw.data()) + from;
            for (uint64_t i = 0; i < n; ++i) dest[i] = static_cast<uint8_t>(src[i]);
        }
        rank += n;
    }
}

Entries RunFile::entries() const {
    return {size_, bits_, [this](uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) {
                read(first, count, file_bits, out);
            }};
}

}  // namespace nimtb::io
