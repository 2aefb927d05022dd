#pragma once
// Large zero-initialised arrays for the solver, and how much memory is free.

#include <cstddef>
#include <cstdint>
#include <string>

namespace nimtb::engine {

// A page-aligned, zero-filled block of memory from the kernel. Blocks of 2 MiB
// or more are mapped in whole huge pages, aligned, and ask for transparent
// huge pages: the solver's child look-ups roam over the whole array, and with
// THP in `madvise` mode only a request gets them.
class LargeBuffer {
  public:
    LargeBuffer() = default;
    explicit LargeBuffer(size_t bytes);
    ~LargeBuffer();
    LargeBuffer(LargeBuffer&& other) noexcept;
    LargeBuffer& operator=(LargeBuffer&& other) noexcept;
    LargeBuffer(const LargeBuffer&) = delete;
    LargeBuffer& operator=(const LargeBuffer&) = delete;

    // Grows the block to `bytes`, keeping its contents; the kernel may move
    // it (mremap) without copying pages. Throws std::bad_alloc.
    void grow(size_t bytes);
    // Shrinks the block to `bytes` in place, keeping its first bytes.
    void shrink(size_t bytes);

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }
    bool empty() const { return bytes_ == 0; }

  private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

// Bytes the system can give without swapping (MemAvailable), or 0 if unknown.
uint64_t available_memory();

// "1.5 GiB", "312 MiB", "900 B".
std::string format_bytes(uint64_t bytes);

}  // namespace nimtb::engine
