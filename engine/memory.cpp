#include "engine/memory.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

namespace nimtb::engine {

LargeBuffer::LargeBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        bytes_ = 0;
        throw std::bad_alloc();
    }
    if (bytes >= (size_t{2} << 20))
        madvise(p, bytes, MADV_HUGEPAGE);  // advisory; failure is harmless
    data_ = p;
}

void LargeBuffer::grow(size_t bytes) {
    if (bytes <= bytes_) return;
    if (!data_) {
        *this = LargeBuffer(bytes);
        return;
    }
    void* p = mremap(data_, bytes_, bytes, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (bytes >= (size_t{2} << 20)) madvise(p, bytes, MADV_HUGEPAGE);
    data_ = p;
    bytes_ = bytes;
}

void LargeBuffer::shrink(size_t bytes) {
    if (bytes >= bytes_) return;
    if (bytes == 0) {
        *this = LargeBuffer();
        return;
    }
    // Shrinking in place cannot fail for a mapping of our own; if it did, the
    // block would simply stay larger.
    if (mremap(data_, bytes_, bytes, 0) != MAP_FAILED) bytes_ = bytes;
}

LargeBuffer::~LargeBuffer() {
    if (data_) munmap(data_, bytes_);
}

LargeBuffer::LargeBuffer(LargeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

LargeBuffer& LargeBuffer::operator=(LargeBuffer&& other) noexcept {
    if (this != &other) {
        if (data_) munmap(data_, bytes_);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

uint64_t available_memory() {
    FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    uint64_t kib = 0;
    while (std::fgets(line, sizeof line, f)) {
        if (std::sscanf(line, "MemAvailable: %lu kB", &kib) == 1) break;
    }
    std::fclose(f);
    return kib * 1024;
}

std::string format_bytes(uint64_t bytes) {
    char buf[64];
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    if (u == 0) {
        std::snprintf(buf, sizeof buf, "%lu B", static_cast<unsigned long>(bytes));
    } else {
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    }
    return buf;
}

}  // namespace nimtb::engine
