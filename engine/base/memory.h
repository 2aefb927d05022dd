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
    // `huge`: in huge pages from 2 MiB on (false: small pages, for a block
    // filled here and there and given back a part at a time).
    explicit LargeBuffer(size_t bytes, bool huge = true);
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
    // Gives the whole pages within bytes [from, to) back to the system;
    // they read as zeros again.
    void give_back(size_t from, size_t to);

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }
    bool empty() const { return bytes_ == 0; }

  private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
    bool huge_ = true;
};

// Bytes the system can give without swapping (MemAvailable), or 0 if unknown.
uint64_t available_memory();

// "1.5 GiB", "312 MiB", "900 B".
std::string format_bytes(uint64_t bytes);

}  // namespace nimtb::engine
