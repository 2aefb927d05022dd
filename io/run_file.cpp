#include "io/run_file.h"

#include <fcntl.h>
#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "engine/base/errors.h"
#include "engine/base/parallel.h"
#include "io/codec/compressors.h"
#include "io/codec/publish.h"
#include "io/codec/transforms.h"
#include "io/table_layout.h"

namespace nimtb::io {

namespace {

// Blocks encoded at once per thread: enough to keep both cores busy
// between the writes, few enough that memory stays small.
constexpr uint64_t BLOCKS_IN_FLIGHT = 4;

std::string error_text() {
    return std::strerror(errno);
}

}  // namespace

RunFile::RunFile(const std::string& table_path, unsigned bits, uint64_t entries,
                 const WriteOptions& options, std::string what)
    : what_(std::move(what)), bits_(bits) {
    assert(bits == 8 || bits == 16);
    if (!direct_codec(options.compression))
        throw TableError(what_ + ": cannot spill in " + to_string(options.compression));
    const DatasetLayout layout = guessed_layout(bits, entries, options);
    encoding_.file_bits = bits;
    encoding_.chunk = std::max<uint64_t>(layout.chunk, 1);
    encoding_.compression = options.compression;
    encoding_.level = layout.level;
    transformed_ = layout.transformed;
    fd_ = create_nameless_file(table_path, what_);
    offset_.push_back(0);
}

RunFile::~RunFile() {
    if (fd_ >= 0) ::close(fd_);
}

uint64_t RunFile::memory(unsigned bits, unsigned threads, uint64_t entries,
                         const WriteOptions& options) {
    // The partial block; per thread, a batch of blocks being transformed and
    // encoded (a little over the raw size at worst), the compressor's state,
    // and on reading back a block and its encoded bytes.
    const DatasetLayout layout = guessed_layout(bits, entries, options);
    const uint64_t block_bytes = layout.chunk * (bits / 8);
    const uint64_t per_thread = (2 * BLOCKS_IN_FLIGHT + 2) * (block_bytes + block_bytes / 8) +
                                compressor_memory(options.compression, layout.level, block_bytes);
    return block_bytes + std::max(1u, threads) * per_thread;
}

void RunFile::write_blocks(const uint8_t* raw, uint64_t blocks, uint64_t entries) {
    if (blocks == 0) return;
    const unsigned width = bits_ / 8;
    const uint64_t block = encoding_.chunk, block_bytes = block * width;
    // The transform: the one that suits the first block (the table's
    // writer chooses on the first, middle and last chunks; where it
    // chooses otherwise, it encodes anew).
    if (offset_.size() == 1 && transformed_) {
        encoding_.transform = choose_transform({raw, block_bytes}, width, block);
    }
    const uint64_t batch =
        BLOCKS_IN_FLIGHT * static_cast<uint64_t>(tbb::this_task_arena::max_concurrency());
    const uint64_t slots = std::min(batch, blocks);
    if (packets_.size() < slots) {
        packets_.resize(slots);
        raws_.resize(slots);
    }
    std::vector<char> failed(slots);
    for (uint64_t first = 0; first < blocks; first += batch) {
        const uint64_t count = std::min(batch, blocks - first);
        engine::sync_parallel_for(uint64_t{0}, count, [&](uint64_t slot) {
            ByteBuffer& b = raws_[slot];
            b.resize(block_bytes);
            std::memcpy(b.data(), raw + (first + slot) * block_bytes, block_bytes);
            const uint64_t valid = std::min(block, entries - (first + slot) * block);
            failed[slot] = !encode_chunk(encoding_, valid, b, packets_[slot]);
        });
        for (uint64_t slot = 0; slot < count; ++slot) {
            if (failed[slot]) {
                throw TableError(what_ + ": cannot spill: " + to_string(encoding_.compression) +
                                 " compression failed");
            }
            const ByteBuffer& p = packets_[slot];
            if (!pwrite_all(fd_, p.data(), p.size(), end_)) {
                throw TableError(what_ +
                                 ": cannot spill the solved positions to disk: " + error_text());
            }
            end_ += p.size();
            offset_.push_back(end_);
        }
    }
}

void RunFile::append(const engine::QuantityArray& a, uint64_t count) {
    assert(a.bits() == bits_ && count <= a.size());
    const unsigned width = bits_ / 8;
    const uint64_t block = encoding_.chunk;
    const uint8_t* raw = static_cast<const uint8_t*>(a.raw());
    uint64_t used = 0;
    // 1. Complete the partial block.
    if (!pending_.empty()) {
        const uint64_t room = block - pending_.size() / width;
        used = std::min(room, count);
        pending_.insert(pending_.end(), raw, raw + used * width);
        if (pending_.size() == block * width) {
            write_blocks(pending_.data(), 1, block);
            pending_.clear();
        }
    }
    // 2. Whole blocks straight from the array; 3. the rest waits.
    const uint64_t whole = (count - used) / block;
    write_blocks(raw + used * width, whole, whole * block);
    used += whole * block;
    pending_.insert(pending_.end(), raw + used * width, raw + count * width);
    size_ += count;
}

void RunFile::finish() {
    if (pending_.empty()) return;
    const uint64_t entries = pending_.size() / (bits_ / 8);
    pending_.resize(encoding_.chunk * (bits_ / 8), 0);  // padded: every block is whole
    write_blocks(pending_.data(), 1, entries);
    pending_ = {};
}

void RunFile::read_block(uint64_t index, ByteBuffer& out) const {
    const uint64_t begin = offset_[index], bytes = offset_[index + 1] - begin;
    out.resize(bytes);
    if (!pread_all(fd_, out.data(), bytes, begin))
        throw TableError(what_ + ": cannot read the run file back: " + error_text());
}

void RunFile::read(uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) const {
    assert(pending_.empty() && first + count <= size_ && file_bits <= bits_);
    const unsigned width = bits_ / 8;
    const uint64_t block = encoding_.chunk;
    ByteBuffer packet, raw(block * width);
    for (uint64_t rank = first; rank < first + count;) {
        const uint64_t index = rank / block;
        read_block(index, packet);
        const std::string why = decompress_chunk(encoding_.compression, packet, raw);
        if (!why.empty()) throw TableError(what_ + ": run file damaged: " + why);
        decode_transform(encoding_.transform, width, raw);
        const uint64_t from = rank - index * block;
        const uint64_t n = std::min(block - from, first + count - rank);
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
    auto encoded = std::make_shared<EncodedChunks>(encoding_);
    encoded->read = [this](uint64_t index, ByteBuffer& out) { read_block(index, out); };
    return {size_, bits_,
            [this](uint64_t first, uint64_t count, unsigned file_bits, uint8_t* out) {
                read(first, count, file_bits, out);
            },
            std::move(encoded)};
}

}  // namespace nimtb::io
