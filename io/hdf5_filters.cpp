#include "io/hdf5_filters.h"

#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "io/codec/chunk_codec.h"
#include "io/codec/table_format.h"

namespace nimtb::io {

namespace {

// The pipeline's call for compression `c`: compresses the `nbytes` of *buf
// (cd_values as io/table_layout.h declares them: for Blosc the level at 4,
// 5 if absent, the shuffle at 5, the width 2 when shuffled; LZ4 has none), or with
// H5Z_FLAG_REVERSE decompresses them. Returns the new size, 0 on failure.
template <Compression c>
size_t run_filter(unsigned flags, size_t cd_count, const unsigned cd[], size_t nbytes,
                  size_t* buf_size, void** buf) {
    const std::span<const uint8_t> in(static_cast<const uint8_t*>(*buf), nbytes);
    void* out = nullptr;
    size_t size = 0;
    try {
        if (flags & H5Z_FLAG_REVERSE) {
            const std::optional<uint64_t> raw = decompressed_size(c, in);
            if (!raw || *raw == 0) return 0;
            size = *raw;
            out = H5allocate_memory(size, false);
            if (!out || !decompress_bytes(c, in, {static_cast<uint8_t*>(out), size}).empty()) {
                H5free_memory(out);
                return 0;
            }
        } else {
            const int level = cd_count > 4 ? static_cast<int>(cd[4]) : 5;
            const unsigned width = c == Compression::zstd && cd_count > 5 && cd[5] ? 2 : 1;
            ByteBuffer packed;
            if (!compress_bytes(c, level, width, in, packed)) return 0;
            size = packed.size();
            out = H5allocate_memory(size, false);
            if (!out) return 0;
            std::memcpy(out, packed.data(), size);
        }
    } catch (...) {  // out of memory: HDF5 reports the filter's failure
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = size;
    return size;
}

template <Compression c>
bool register_filter(int id, const char* name) {
    const H5Z_class2_t filter = {
        H5Z_CLASS_T_VERS, static_cast<H5Z_filter_t>(id), 1, 1, name, nullptr, nullptr,
        run_filter<c>};
    return H5Zregister(&filter) >= 0;
}

}  // namespace

bool register_filters() {
    static const bool done = register_filter<Compression::zstd>(BLOSC_FILTER, "blosc (nimtb)") &&
                             register_filter<Compression::lz4>(LZ4_FILTER, "lz4 (nimtb)");
    return done;
}

}  // namespace nimtb::io
