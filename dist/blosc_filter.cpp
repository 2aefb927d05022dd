#include "dist/blosc_filter.h"

#include <blosc.h>
#include <hdf5.h>

#include "engine/errors.h"
#include "io/table_format.h"

namespace nimtb::dist {

namespace {

// The pipeline's call: compresses `nbytes` of *buf as io/chunk_codec.cpp
// does (one Blosc block of the whole chunk, zstd, byte-shuffled for 16-bit
// entries, cd_values as io/table_layout.h declares them: level at 4,
// shuffle at 5), or decompresses with H5Z_FLAG_REVERSE. Returns the new
// size, 0 on failure.
size_t blosc_zstd(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                  size_t* buf_size, void** buf) {
    void* out = nullptr;
    int n = 0;
    size_t size = 0;
    if (flags & H5Z_FLAG_REVERSE) {
        size_t bytes = 0, compressed = 0, block = 0;
        if (nbytes < BLOSC_MIN_HEADER_LENGTH) return 0;
        blosc_cbuffer_sizes(*buf, &bytes, &compressed, &block);
        size = bytes;
        out = H5allocate_memory(size, false);
        if (!out) return 0;
        n = blosc_decompress_ctx(*buf, out, size, 1);
    } else {
        const int level = cd_nelmts > 4 ? static_cast<int>(cd_values[4]) : 5;
        const bool shuffle = cd_nelmts > 5 && cd_values[5] != 0;
        size = nbytes + BLOSC_MAX_OVERHEAD;
        out = H5allocate_memory(size, false);
        if (!out) return 0;
        n = blosc_compress_ctx(level, shuffle ? BLOSC_SHUFFLE : BLOSC_NOSHUFFLE, shuffle ? 2 : 1,
                               nbytes, *buf, out, size, "zstd", nbytes, 1);
    }
    if (n <= 0) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = size;
    return static_cast<size_t>(n);
}

}  // namespace

void register_blosc_filter() {
    static const bool done = [] {
        const H5Z_class2_t filter = {H5Z_CLASS_T_VERS,
                                     static_cast<H5Z_filter_t>(io::BLOSC_FILTER),
                                     1,
                                     1,
                                     "blosc (zstd, nimtb)",
                                     nullptr,
                                     nullptr,
                                     blosc_zstd};
        return H5Zregister(&filter) >= 0;
    }();
    if (!done) throw TableError("cannot register the Blosc filter with HDF5");
}

}  // namespace nimtb::dist
