#include "mpi/chunk_encoder.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/base/errors.h"
#include "io/codec/compressors.h"
#include "io/codec/publish.h"
#include "io/codec/transforms.h"

namespace nimtb::mpi {

EncodedPart::EncodedPart(const std::string& table, std::string what)
    : what_(std::move(what)), fd_(io::create_nameless_file(table, what_)) {}

EncodedPart::~EncodedPart() {
    ::close(fd_);
}

void EncodedPart::append(uint64_t chunk, const io::ByteBuffer& packet) {
    if (!io::pwrite_all(fd_, packet.data(), packet.size(), end_))
        throw TableError(what_ + ": cannot write: " + std::strerror(errno));
    at_[chunk] = {end_, packet.size()};
    end_ += packet.size();
}

void EncodedPart::read(uint64_t chunk, io::ByteBuffer& out) const {
    const auto [at, bytes] = at_.at(chunk);
    out.resize(bytes);
    if (!io::pread_all(fd_, out.data(), out.size(), at))
        throw TableError(what_ + ": cannot read back its encoded chunks: " + std::strerror(errno));
}

std::vector<std::vector<uint64_t>> whole_chunks_by_level(const Layout& l, uint64_t positions,
                                                         uint64_t chunk, size_t from) {
    const engine::SolveOrder& lp = l.local_plan;
    const size_t levels = lp.level_start.empty() ? 0 : lp.level_start.size() - 1;
    // The level of each of this process's blocks (the layout's index).
    constexpr uint32_t NOT_MINE = UINT32_MAX;
    std::vector<uint32_t> level_of(l.first.size(), NOT_MINE);
    for (size_t level = 0; level < levels; ++level)
        for (size_t i = lp.level_start[level]; i < lp.level_start[level + 1]; ++i)
            level_of[l.find(l.local_global_first[i])] = static_cast<uint32_t>(level);
    std::vector<std::vector<uint64_t>> chunks(levels);
    for (uint64_t c = 0; c * chunk < positions; ++c) {
        uint32_t last = 0;
        bool whole = true;
        for_each_overlap(l, c * chunk, std::min(positions, (c + 1) * chunk),
                         [&](uint64_t, uint64_t, size_t b) {
                             whole = whole && level_of[b] != NOT_MINE;
                             if (whole) last = std::max(last, level_of[b]);
                         });
        if (whole && last >= from) chunks[last].push_back(c);
    }
    return chunks;
}

ChunkEncoder::ChunkEncoder(Spill& spill, EncodedPart& part, io::EncodedChunks guess, bool choose)
    : spill_(spill), part_(part), encoding_(std::move(guess)), choose_(choose) {
    thread_ = std::thread([this] { encode_jobs(); });
}

ChunkEncoder::~ChunkEncoder() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    spill_.stop_waiting();
    thread_.join();
}

uint64_t ChunkEncoder::memory(unsigned bits, uint64_t chunk, io::Compression c, int level) {
    const uint64_t bytes = chunk * (bits / 8);
    return 2 * bytes + bytes / 8 + io::compressor_memory(c, level, bytes);
}

void ChunkEncoder::add(const Layout& l, uint64_t positions, uint64_t c) {
    const uint64_t chunk = encoding_.chunk, first = c * chunk;
    Job job{c, std::min(chunk, positions - first), {}};
    for_each_overlap(l, first, first + job.entries, [&](uint64_t start, uint64_t end, size_t b) {
        const Piece p{l.offset[b] + (start - l.first[b]), end - start, start - first};
        Piece* last = job.pieces.empty() ? nullptr : &job.pieces.back();
        if (last && last->spilled + last->count == p.spilled && last->at + last->count == p.at)
            last->count += p.count;  // blocks side by side in the spill too: one read
        else
            job.pieces.push_back(p);
    });
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
    }
    changed_.notify_all();
}

std::optional<io::EncodedChunks> ChunkEncoder::finish() {
    std::unique_lock lock(mutex_);
    finishing_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return jobs_.empty() || failed_; });
    if (failed_) return std::nullopt;
    return encoding_;
}

bool ChunkEncoder::encode(const Job& job, io::ByteBuffer& raw, io::ByteBuffer& packet) {
    const unsigned width = spill_.bits() / 8;
    uint64_t last = 0;
    for (const Piece& p : job.pieces) last = std::max(last, p.spilled + p.count);
    if (!spill_.wait_on_disk(last)) return false;
    // Asked for once written: no page of the cache read before its write.
    for (const Piece& p : job.pieces) spill_.prefetch(p.spilled, p.count);
    raw.assign(encoding_.chunk * width, 0);
    for (const Piece& p : job.pieces) spill_.read(p.spilled, p.count, raw.data() + p.at * width);
    if (choose_) {
        encoding_.transform = io::choose_transform(raw, width, encoding_.chunk);
        choose_ = false;
    }
    if (!io::encode_chunk(encoding_, job.entries, raw, packet)) return false;
    part_.append(job.chunk, packet);
    return true;
}

void ChunkEncoder::encode_jobs() {
    io::ByteBuffer raw, packet;
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return !jobs_.empty() || stopping_ || finishing_; });
        if (stopping_ || jobs_.empty()) return;
        lock.unlock();
        // A failure (a full disk, the spill's) is the table writer's to
        // meet and say, as it encodes these chunks again.
        bool done = false;
        try {
            done = encode(jobs_.front(), raw, packet);
        } catch (const std::exception&) {
        }
        lock.lock();
        if (done) done_.push_back(jobs_.front().chunk);
        jobs_.pop_front();
        failed_ = !done;
        changed_.notify_all();
        if (failed_) return;
    }
}

}  // namespace nimtb::mpi
