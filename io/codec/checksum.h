#pragma once
// HDF5's Fletcher-32 checksum, which ends every stored chunk.

#include <cstdint>
#include <span>
#include <string>

namespace nimtb::io {

// HDF5's Fletcher-32 (H5_checksum_fletcher32) of `bytes`.
uint32_t fletcher32(std::span<const uint8_t> bytes);

// What is wrong with the checksum that ends a stored chunk, or "".
std::string checksum_error(std::span<const uint8_t> stored);

}  // namespace nimtb::io
