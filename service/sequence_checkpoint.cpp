#include "service/sequence_checkpoint.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "engine/base/errors.h"

namespace nimtb::service {

namespace {

constexpr char MAGIC[8] = {'N', 'I', 'M', 'T', 'B', 'S', 'Q', '1'};
constexpr const char* FORMAT = "nimtb-sequence-checkpoint";
constexpr int VERSION = 1;
constexpr int ZSTD_LEVEL = 1;  // fast: saved while the sequence runs

std::string system_error(const std::string& what, const std::string& path) {
    return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

uint64_t le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

void put_le64(std::vector<uint8_t>& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Reads exactly `n` bytes at the file's position; false at its end.
bool read_exactly(int fd, void* into, size_t n) {
    auto* p = static_cast<uint8_t*>(into);
    while (n > 0) {
        const ssize_t got = ::read(fd, p, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        n -= static_cast<size_t>(got);
    }
    return true;
}

// The content of the zstd frame `frame`, or nothing when it is damaged.
std::optional<std::vector<uint8_t>> unpack(const std::vector<uint8_t>& frame) {
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 40))
        return std::nullopt;
    std::vector<uint8_t> content(size);
    const size_t n = ZSTD_decompress(content.data(), content.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != size) return std::nullopt;
    return content;
}

}  // namespace

SequenceCheckpoint::SequenceCheckpoint(std::string path, const engine::Rule& rule)
    : path_(std::move(path)) {
    const std::string rules = rule.canonical();
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw TableError(system_error("cannot open the checkpoint", path_));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd_);
        throw TableError("the checkpoint " + path_ + " is not a file");
    }
    try {
        if (st.st_size == 0) {  // new: the magic and the record naming the rule
            if (::write(fd_, MAGIC, sizeof MAGIC) != sizeof MAGIC)
                throw TableError(system_error("cannot write the checkpoint", path_));
            const std::string id =
                nlohmann::json{{"format", FORMAT}, {"version", VERSION}, {"rules", rules}}.dump();
            append(std::vector<uint8_t>(id.begin(), id.end()));
            return;
        }
        char magic[sizeof MAGIC];
        std::vector<uint8_t> frame;
        auto record = [&]() -> std::optional<std::vector<uint8_t>> {
            uint8_t length[8];
            if (!read_exactly(fd_, length, 8)) return std::nullopt;
            const uint64_t n = le64(length);
            if (n > uint64_t(st.st_size)) return std::nullopt;
            frame.resize(n);
            if (!read_exactly(fd_, frame.data(), n)) return std::nullopt;
            return unpack(frame);
        };
        std::optional<std::vector<uint8_t>> id;
        if (!read_exactly(fd_, magic, sizeof magic) ||
            std::memcmp(magic, MAGIC, sizeof MAGIC) != 0 || !(id = record())) {
            throw TableError(path_ + " is not a nimtb sequence checkpoint (give another " +
                             mention(Option::checkpoint) + ", or delete it)");
        }
        const nlohmann::json j = nlohmann::json::parse(id->begin(), id->end(), nullptr, false);
        if (!j.is_object() || j.value("format", "") != FORMAT || j.value("version", 0) != VERSION)
            throw TableError(path_ + " is not a nimtb sequence checkpoint of this version");
        if (j.value("rules", "") != rules) {
            throw TableError(
                fmt::format("the checkpoint {} is of the rule {}, not {} (give another {})", path_,
                            j.value("rules", "?"), rules, mention(Option::checkpoint)));
        }
        off_t good = ::lseek(fd_, 0, SEEK_CUR);
        while (auto content = record()) {
            if (content->size() < 8 || content->size() % 2 != 0 ||
                le64(content->data()) != values_.size())
                break;
            const size_t n = (content->size() - 8) / 2;
            const size_t at = values_.size();
            values_.resize(at + n);
            for (size_t i = 0; i < n; ++i)
                values_[at + i] =
                    static_cast<uint16_t>((*content)[8 + 2 * i] | (*content)[9 + 2 * i] << 8);
            good = ::lseek(fd_, 0, SEEK_CUR);
        }
        // What follows the last whole record (a save cut short) is cut off.
        if (::ftruncate(fd_, good) != 0 || ::lseek(fd_, good, SEEK_SET) != good)
            throw TableError(system_error("cannot repair the checkpoint", path_));
        saved_ = values_.size();
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

SequenceCheckpoint::~SequenceCheckpoint() {
    if (fd_ >= 0) ::close(fd_);
}

void SequenceCheckpoint::append(const std::vector<uint8_t>& content) {
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> z(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!z) throw std::bad_alloc();
    ZSTD_CCtx_setParameter(z.get(), ZSTD_c_compressionLevel, ZSTD_LEVEL);
    ZSTD_CCtx_setParameter(z.get(), ZSTD_c_checksumFlag, 1);
    std::vector<uint8_t> record(8 + ZSTD_compressBound(content.size()));
    const size_t n = ZSTD_compress2(z.get(), record.data() + 8, record.size() - 8, content.data(),
                                    content.size());
    if (ZSTD_isError(n)) throw TableError("cannot compress the checkpoint " + path_);
    record.resize(8 + n);
    for (int i = 0; i < 8; ++i) record[i] = static_cast<uint8_t>(uint64_t(n) >> (8 * i));
    const off_t before = ::lseek(fd_, 0, SEEK_END);
    size_t done = 0;
    while (done < record.size()) {
        const ssize_t put = ::write(fd_, record.data() + done, record.size() - done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            const std::string why = system_error("cannot write the checkpoint", path_);
            // The record is taken back; were that to fail too, the record
            // cut short would be cut off when the file is next read.
            const int taken_back = before >= 0 ? ::ftruncate(fd_, before) : -1;
            (void)taken_back;
            throw TableError(why);
        }
        done += static_cast<size_t>(put);
    }
    if (::fdatasync(fd_) != 0) throw TableError(system_error("cannot flush the checkpoint", path_));
}

void SequenceCheckpoint::save(std::span<const uint16_t> values) {
    if (values.size() <= saved_) return;
    std::vector<uint8_t> content;
    content.reserve(8 + 2 * (values.size() - saved_));
    put_le64(content, saved_);
    for (size_t i = saved_; i < values.size(); ++i) {
        content.push_back(static_cast<uint8_t>(values[i]));
        content.push_back(static_cast<uint8_t>(values[i] >> 8));
    }
    append(content);
    saved_ = values.size();
}

void SequenceCheckpoint::remove() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
}

}  // namespace nimtb::service
