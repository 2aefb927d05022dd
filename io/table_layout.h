#pragma once
// What every table writer declares in the file, whichever HDF5 it is built
// against: the root's attributes and each dataset's filter pipeline
// (docs/FORMAT.md). Header-only, so that the one-process writer
// (table_writer.cpp, serial HDF5) and the distributed one (mpi/, HDF5's MPI
// flavour) compile the same lines against their own library.

#include <string>

#include "engine/base/version.h"
#include "engine/solve/solver.h"
#include "io/codec/table_format.h"
#include "io/hdf5_handle.h"

namespace nimtb::io {

inline constexpr unsigned BLOSC_ZSTD = 5;  // Blosc's code for its zstd codec

// The attributes of a table's root group for the solved universe `s`.
inline void write_root_attributes(hid_t root, const engine::Solution& s, uint64_t format_version) {
    write_string_attribute(root, "format", FORMAT_NAME);
    write_u64_attribute(root, "format_version", format_version);
    write_string_attribute(root, "rules", s.rule.canonical());
    write_string_attribute(root, "convention", engine::to_string(s.convention));
    write_u64_attribute(root, "max_heaps", s.max_heaps);
    write_u64_attribute(root, "max_heap_size", s.max_heap_size);
    write_u64_attribute(root, "positions", s.positions);
    write_string_attribute(root, "index", s.max_total ? TOTAL_INDEX_NAME : INDEX_NAME);
    if (s.max_total) write_u64_attribute(root, "max_total", s.max_total);
    write_string_attribute(root, "generator", std::string("nimtb ") + VERSION);
    write_string_attribute(root, "method", engine::to_string(s.method));
}

// The filters the dataset declares: what HDF5 and h5py read it with. The
// plug-in filters are optional in the pipeline, as version 1 wrote them
// through HDF5 (Blosc refused buffers too small to gain); chunks nimtb
// compresses itself always pass every filter. The checksum is mandatory.
inline void set_filters(hid_t dcpl, Compression c, int level, unsigned file_bits) {
    switch (c) {
        case Compression::deflate:
            check(H5Pset_deflate(dcpl, static_cast<unsigned>(level)), "deflate filter");
            break;
        case Compression::zstd: {
            const unsigned shuffle = file_bits > 8 ? 1 : 0;
            const unsigned cd[7] = {0, 0, 0, 0, static_cast<unsigned>(level), shuffle, BLOSC_ZSTD};
            check(H5Pset_filter(dcpl, BLOSC_FILTER, H5Z_FLAG_OPTIONAL, 7, cd), "blosc/zstd filter");
            break;
        }
        case Compression::lz4:
            check(H5Pset_filter(dcpl, LZ4_FILTER, H5Z_FLAG_OPTIONAL, 0, nullptr), "lz4 filter");
            break;
        case Compression::none:
        case Compression::other:
            break;
    }
    // Last in the pipeline, so the checksum covers the bytes on disk.
    check(H5Pset_fletcher32(dcpl), "Fletcher-32 filter");
}

}  // namespace nimtb::io
