#include "engine/base/quantity_array.h"

#include <cassert>
#include <limits>

namespace nimtb::engine {

QuantityArray::QuantityArray(uint64_t size, unsigned bits)
    : buffer_(size * (bits / 8)), size_(size), bits_(bits) {}

void QuantityArray::widen() {
    if (bits_ == 16) return;
    buffer_.grow(size_ * 2);
    const uint8_t* narrow = static_cast<const uint8_t*>(buffer_.data());
    uint16_t* wide = static_cast<uint16_t*>(buffer_.data());
    for (uint64_t i = size_; i-- > 0;) wide[i] = narrow[i];
    bits_ = 16;
}

void QuantityArray::narrow() {
    if (bits_ == 8) return;
    const uint16_t* wide = static_cast<const uint16_t*>(buffer_.data());
    uint8_t* narrow = static_cast<uint8_t*>(buffer_.data());
    for (uint64_t i = 0; i < size_; ++i) {
        assert(wide[i] <= std::numeric_limits<uint8_t>::max());
        narrow[i] = static_cast<uint8_t>(wide[i]);
    }
    buffer_.shrink(size_);
    bits_ = 8;
}

}  // namespace nimtb::engine
