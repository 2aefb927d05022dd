#include "mpi/spill.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "engine/base/errors.h"
#include "io/codec/checksum.h"
#include "io/codec/publish.h"

namespace nimtb::mpi {

namespace {

// A frame: its entries, its LZ4 stream's bytes (io::compress_bytes) and
// their Fletcher-32, 4 bytes each in the host's order (the file never
// leaves its process), then the stream. The checksum is of the stream, a
// tenth of the entries or less, so it costs little; LZ4 alone would decode
// a damaged literal without a word.
constexpr uint64_t HEADER = 12;
// Bytes of frames packed before they are written.
constexpr uint64_t WRITE_AT = uint64_t{1} << 20;

uint64_t get32(const uint8_t* p) {
    uint32_t x;
    std::memcpy(&x, p, sizeof x);
    return x;
}

void put32(uint8_t* p, uint64_t x) {
    const auto y = static_cast<uint32_t>(x);
    std::memcpy(p, &y, sizeof y);
}

}  // namespace

Spill::Spill(const std::string& table_path, unsigned bits, std::string what)
    : what_(std::move(what)), bits_(bits) {
    assert(bits == 8 || bits == 16);
    fd_ = io::create_nameless_file(table_path, what_);
}

Spill::Spill(const std::string& path, unsigned bits, std::string what, uint64_t keep)
    : what_(std::move(what)), bits_(bits), named_(true) {
    assert(bits == 8 || bits == 16);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    const auto fail = [&](const std::string& why) {
        if (fd_ >= 0) ::close(fd_);
        throw TableError(why);
    };
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0)
        fail(what_ + ": cannot open the spill " + path + ": " + std::strerror(errno));
    const auto damaged = [&](const char* why) {
        fail(path + " is damaged (" + why + "); remove its folder to start the solve again");
    };
    // The frames' headers, up to the first `keep` entries.
    const auto length = static_cast<uint64_t>(st.st_size);
    // A frame's stream: LZ4's header (12 bytes) and one block's size (4),
    // then at most its raw bytes (a block LZ4 cannot shrink is stored raw).
    const uint64_t most = 16 + MAX_FRAME * (bits / 8);
    while (size_ < keep) {
        uint8_t header[HEADER];
        if (length - bytes_ < HEADER || !io::pread_all(fd_, header, HEADER, bytes_))
            damaged("shorter than the checkpoint says");
        const uint64_t entries = get32(header), packed = get32(header + 4);
        if (entries == 0 || entries > MAX_FRAME || packed > most) damaged("a frame's header");
        if (size_ + entries > keep)
            damaged("its frames do not end at a level the checkpoint saved");
        if (length - bytes_ - HEADER < packed) damaged("shorter than the checkpoint says");
        size_ += entries;
        bytes_ += HEADER + packed;
        first_.push_back(size_);
        at_.push_back(bytes_);
    }
    if (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0)
        fail(what_ + ": cannot cut the spill " + path + ": " + std::strerror(errno));
}

Spill::~Spill() {
    if (fd_ >= 0) ::close(fd_);
}

void Spill::append(const engine::QuantityArray& a, std::span<const engine::Block> blocks) {
    assert(a.bits() == bits_);
    const uint64_t width = bits_ / 8;
    const auto* entries = static_cast<const uint8_t*>(a.raw());
    uint64_t from = 0, open = 0;  // the frame being filled: [from, from + open)
    const auto pack = [&] {
        if (!io::compress_bytes(io::Compression::lz4, 0, bits_ / 8,
                                {entries + from * width, open * width}, packet_))
            throw TableError(what_ + ": cannot compress the solved positions");
        const size_t at = out_.size();
        out_.resize(at + HEADER + packet_.size());
        put32(out_.data() + at, open);
        put32(out_.data() + at + 4, packet_.size());
        put32(out_.data() + at + 8, io::fletcher32(packet_));
        std::memcpy(out_.data() + at + HEADER, packet_.data(), packet_.size());
        from += open;
        first_.push_back(first_.back() + open);
        at_.push_back(at_.back() + HEADER + packet_.size());
        open = 0;
        if (out_.size() >= WRITE_AT) write_packed();
    };
    for (const engine::Block& b : blocks) {
        for (uint64_t left = b.count; left > 0;) {
            const uint64_t take = std::min(left, MAX_FRAME - open);
            open += take;
            left -= take;
            if (open >= MIN_FRAME) pack();
        }
    }
    assert(from + open <= a.size());
    if (open > 0) pack();
    write_packed();
}

void Spill::write_packed() {
    if (out_.empty()) return;
    if (!io::pwrite_all(fd_, out_.data(), out_.size(), bytes_)) {
        throw TableError(what_ + ": cannot spill the solved positions to disk: " +
                         std::strerror(errno));
    }
    // A checkpoint's spill goes to disk as it grows, not all at its next
    // flush (sync): the solve goes on meanwhile.
    if (named_)
        ::sync_file_range(fd_, static_cast<off_t>(bytes_), static_cast<off_t>(out_.size()),
                          SYNC_FILE_RANGE_WRITE);
    bytes_ += out_.size();
    size_ = first_.back();
    out_.clear();
}

void Spill::decode(size_t f) const {
    if (decoded_ == f) return;
    // The frame, its header first.
    packed_.resize(at_[f + 1] - at_[f]);
    raw_.resize((first_[f + 1] - first_[f]) * (bits_ / 8));
    if (!io::pread_all(fd_, packed_.data(), packed_.size(), at_[f]))
        throw TableError(what_ +
                         ": cannot read the spilled positions back: " + std::strerror(errno));
    const std::span<const uint8_t> stream(packed_.data() + HEADER, packed_.size() - HEADER);
    const std::string wrong = get32(packed_.data() + 8) != io::fletcher32(stream)
                                  ? "checksum mismatch"
                                  : io::decompress_bytes(io::Compression::lz4, stream, raw_);
    if (!wrong.empty())
        throw TableError(what_ + ": the spilled positions are damaged (" + wrong + ")");
    decoded_ = f;
}

void Spill::read(uint64_t first, uint64_t count, uint8_t* out) const {
    assert(first + count <= size_);
    const uint64_t width = bits_ / 8;
    // The frame holding `first`: the last that starts at or before it.
    size_t f = static_cast<size_t>(std::upper_bound(first_.begin(), first_.end(), first) -
                                   first_.begin()) -
               1;
    while (count > 0) {
        decode(f);
        const uint64_t n = std::min(count, first_[f + 1] - first);
        std::memcpy(out, raw_.data() + (first - first_[f]) * width, n * width);
        out += n * width;
        first += n;
        count -= n;
        ++f;
    }
}

void Spill::sync() const {
    if (::fdatasync(fd_) != 0)
        throw TableError(what_ +
                         ": cannot flush the spilled positions to disk: " + std::strerror(errno));
}

uint64_t Spill::memory(unsigned bits, uint64_t entries, uint64_t levels) {
    // Every frame but a level's last holds MIN_FRAME entries or more; the
    // buffers: frames packed for one write and one frame more, a frame's
    // stream being made, a frame read and the same decoded.
    const uint64_t frame = HEADER + 16 + MAX_FRAME * (bits / 8);
    return 2 * sizeof(uint64_t) * (entries / MIN_FRAME + levels + 1) + WRITE_AT + 4 * frame;
}

}  // namespace nimtb::mpi
