#pragma once
// What a table holds for each position, by rank: one array of unsigned 8- or
// 16-bit integers (a value or a remoteness). The solver fills it, the table
// writer stores it, the reader fills it back; it is the one type the engine
// and io share for a table's contents, so io needs nothing of the solver.

#include <cstddef>
#include <cstdint>

#include "engine/base/memory.h"

namespace nimtb::engine {

class QuantityArray {
  public:
    QuantityArray() = default;
    QuantityArray(uint64_t size, unsigned bits);

    unsigned bits() const { return bits_; }
    uint64_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint32_t get(uint64_t rank) const {
        return bits_ == 8 ? static_cast<const uint8_t*>(buffer_.data())[rank]
                          : static_cast<const uint16_t*>(buffer_.data())[rank];
    }
    template <class T>
    T* data() const {
        return static_cast<T*>(buffer_.data());
    }
    const void* raw() const { return buffer_.data(); }
    // From 8 to 16 bits in place: the block grows, then elements move from
    // the last to the first, so none is overwritten before it is read. The
    // peak is the 16-bit array alone.
    void widen();
    // From 16 to 8 bits in place, when every element fits; the block shrinks.
    void narrow();
    size_t bytes() const { return buffer_.bytes(); }

  private:
    LargeBuffer buffer_;
    uint64_t size_ = 0;
    unsigned bits_ = 8;
};

}  // namespace nimtb::engine
