#include "io/codec/checksum.h"

#include <cstring>

namespace nimtb::io {

uint32_t fletcher32(std::span<const uint8_t> bytes) {
    // 16-bit big-endian words, sums folded every 360 words; an odd last byte
    // counts as a high byte.
    const uint8_t* data = bytes.data();
    size_t words = bytes.size() / 2;
    uint32_t sum1 = 0, sum2 = 0;
    while (words) {
        size_t n = std::min<size_t>(words, 360);
        words -= n;
        for (; n; --n, data += 2) {
            sum1 += (uint32_t{data[0]} << 8) | data[1];
            sum2 += sum1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if (bytes.size() % 2) {
        sum1 += uint32_t{*data} << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    return (sum2 << 16) | sum1;
}

std::string checksum_error(std::span<const uint8_t> stored) {
    if (stored.size() < 4) return "a chunk shorter than its checksum";
    const size_t size = stored.size() - 4;
    uint32_t sum = 0;
    std::memcpy(&sum, stored.data() + size, 4);
    if (fletcher32(stored.first(size)) != sum) return "data error detected by Fletcher32 checksum";
    return "";
}

}  // namespace nimtb::io
