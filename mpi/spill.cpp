#include "mpi/spill.h"

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
    size_ += count;
}

void Spill::read(uint64_t first, uint64_t count, uint8_t* out) const {
    assert(first + count <= size_);
    const uint64_t width = bits_ / 8;
    if (!io::pread_all(fd_, out, count * width, first * width))
        throw TableError(what_ + ": cannot read the spilled positions back: " +
                         std::strerror(errno));
}

}  // namespace nimtb::mpi
