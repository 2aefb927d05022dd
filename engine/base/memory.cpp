#include "engine/base/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

namespace nimtb::engine {

namespace {

constexpr size_t HUGE_PAGE = size_t{2} << 20;

// The length mapped for `bytes`: whole huge pages from 2 MiB on (when
// `huge`), so that the last one can be huge too.
size_t mapped_length(size_t bytes, bool huge) {
    return huge && bytes >= HUGE_PAGE ? (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : bytes;
}

// Maps `length` zero-filled bytes, aligned to a huge page when it is a
// multiple of one, and asks for huge pages there. THP backs only aligned
// 2 MiB ranges, so an unaligned mapping keeps its partial ranges at both
// ends in small pages (the arrays of nim misere K=5 H=63: 16 of 21 MiB in
// huge pages unaligned, 20 aligned).
void* map_block(size_t length, bool huge_pages) {
    const bool huge = huge_pages && length >= HUGE_PAGE;
    const size_t span = huge ? length + HUGE_PAGE : length;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    if (!huge) return raw;
    const uintptr_t start = (reinterpret_cast<uintptr_t>(raw) + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    const size_t head = start - reinterpret_cast<uintptr_t>(raw);
    if (head) munmap(raw, head);
    if (span - head > length) munmap(reinterpret_cast<void*>(start + length), span - head - length);
    void* p = reinterpret_cast<void*>(start);
    madvise(p, length, MADV_HUGEPAGE);  // advisory; failure is harmless
    return p;
}

}  // namespace

LargeBuffer::LargeBuffer(size_t bytes, bool huge) : bytes_(bytes), huge_(huge) {
    if (bytes == 0) return;
    try {
        data_ = map_block(mapped_length(bytes, huge), huge);
    } catch (...) {
        bytes_ = 0;
        throw;
    }
}

void LargeBuffer::grow(size_t bytes) {
    if (bytes <= bytes_) return;
    if (!data_) {
        *this = LargeBuffer(bytes, huge_);
        return;
    }
    const size_t length = mapped_length(bytes, huge_);
    void* p = mremap(data_, mapped_length(bytes_, huge_), length, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (huge_ && length >= HUGE_PAGE) madvise(p, length, MADV_HUGEPAGE);
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
    if (mremap(data_, mapped_length(bytes_, huge_), mapped_length(bytes, huge_), 0) != MAP_FAILED)
        bytes_ = bytes;
}

void LargeBuffer::give_back(size_t from, size_t to) {
    static const size_t small = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t page = huge_ && bytes_ >= HUGE_PAGE ? HUGE_PAGE : small;
    const size_t first = (from + page - 1) / page * page, last = std::min(to, bytes_) / page * page;
    // Advisory: were it refused, the pages would simply stay.
    if (data_ && first < last)
        madvise(static_cast<char*>(data_) + first, last - first, MADV_DONTNEED);
}

LargeBuffer::~LargeBuffer() {
    if (data_) munmap(data_, mapped_length(bytes_, huge_));
}

LargeBuffer::LargeBuffer(LargeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      huge_(other.huge_) {}

LargeBuffer& LargeBuffer::operator=(LargeBuffer&& other) noexcept {
    if (this != &other) {
        if (data_) munmap(data_, mapped_length(bytes_, huge_));
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
        huge_ = other.huge_;
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
