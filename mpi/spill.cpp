#include "mpi/spill.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "engine/base/errors.h"
#include "io/codec/publish.h"

namespace nimtb::mpi {

Spill::Spill(const std::string& table_path, unsigned bits, std::string what)
    : what_(std::move(what)), bits_(bits) {
    assert(bits == 8 || bits == 16);
    fd_ = io::create_nameless_file(table_path, what_);
}

Spill::Spill(const std::string& path, unsigned bits, std::string what, uint64_t keep)
    : what_(std::move(what)), bits_(bits), named_(true), size_(keep) {
    assert(bits == 8 || bits == 16);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    const auto fail = [&](const std::string& why) {
        if (fd_ >= 0) ::close(fd_);
        throw TableError(why);
    };
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0)
        fail(what_ + ": cannot open the spill " + path + ": " + std::strerror(errno));
    const uint64_t bytes = keep * (bits / 8);
    if (static_cast<uint64_t>(st.st_size) < bytes)
        fail(path +
             " is damaged (shorter than the checkpoint says); remove its folder to start "
             "the solve again");
    if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
        fail(what_ + ": cannot cut the spill " + path + ": " + std::strerror(errno));
}

Spill::~Spill() {
    if (fd_ >= 0) ::close(fd_);
}

void Spill::append(const engine::QuantityArray& a, uint64_t count) {
    assert(a.bits() == bits_ && count <= a.size());
    const uint64_t width = bits_ / 8;
    if (!io::pwrite_all(fd_, a.raw(), count * width, size_ * width)) {
        throw TableError(what_ + ": cannot spill the solved positions to disk: " +
                         std::strerror(errno));
    }
    // A checkpoint's spill goes to disk as it grows, not all at its next
    // flush (sync): the solve goes on meanwhile.
    if (named_)
        ::sync_file_range(fd_, static_cast<off_t>(size_ * width), static_cast<off_t>(count * width),
                          SYNC_FILE_RANGE_WRITE);
    size_ += count;
}

void Spill::read(uint64_t first, uint64_t count, uint8_t* out) const {
    assert(first + count <= size_);
    const uint64_t width = bits_ / 8;
    if (!io::pread_all(fd_, out, count * width, first * width))
        throw TableError(what_ + ": cannot read the spilled positions back: " +
                         std::strerror(errno));
}

void Spill::sync() const {
    if (::fdatasync(fd_) != 0)
        throw TableError(what_ +
                         ": cannot flush the spilled positions to disk: " + std::strerror(errno));
}

}  // namespace nimtb::mpi
