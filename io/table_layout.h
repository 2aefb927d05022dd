#pragma once
// What a table writer decides and declares in the file: the root's
// attributes, each dataset's width, chunks, level and filter pipeline, and
// the chunks its transform is chosen on (docs/FORMAT.md). The one-process
// writer (table_writer.cpp) uses it, and the distributed one
// (mpi/parallel_writer.cpp) to encode its chunks as that writer stores them.

#include <algorithm>
#include <string>
#include <vector>

#include "engine/base/version.h"
#include "io/codec/table_format.h"
#include "io/hdf5_handle.h"
#include "io/table_writer.h"

namespace nimtb::io {

inline constexpr unsigned BLOSC_ZSTD = 5;  // Blosc's code for its zstd codec

// The attributes of a table's root group.
inline void write_root_attributes(hid_t root, const TableHeader& s, uint64_t format_version) {
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
    write_string_attribute(root, "method", s.method);
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

// How a dataset of `entries` entries, the largest `max`, is laid out.
struct DatasetLayout {
    unsigned file_bits;  // 8 when every entry fits, else 16
    uint64_t chunk;      // entries per chunk (the last one padded)
    int level;           // the compressor's
    bool transformed;    // version 2: chunks go through the transform a sample chose
};

inline DatasetLayout dataset_layout(uint64_t entries, uint32_t max, const WriteOptions& o) {
    const bool v2 = o.format_version >= 2;
    const uint64_t wanted = o.chunk_elements ? o.chunk_elements : CHUNK_ELEMENTS;
    return {max <= 0xff ? 8u : 16u, std::min(wanted, entries),
            o.level ? o.level : default_level(o.compression), v2};
}

// How the table will lay out a dataset of `entries` entries held at `bits`
// bits, as far as is known before its largest entry (a streamed solve's
// chunks encoded beside it: io/run_file.h, mpi/chunk_encoder.h): at that width.
inline DatasetLayout guessed_layout(unsigned bits, uint64_t entries, const WriteOptions& o) {
    return dataset_layout(entries, bits == 8 ? 0xff : 0xffff, o);
}

// Whether `e` holds the chunks the writer would make with `layout` and
// `transform` (so that it stores them as they are). In table_writer.cpp.
bool encoded_as(const EncodedChunks* e, const DatasetLayout& layout, Transform transform,
                const WriteOptions& o);

// The first entries of the chunks a dataset's transform is chosen on: the
// first, the middle and the last whole one, enough to tell the candidates
// apart, little beside the write itself.
inline std::vector<uint64_t> transform_sample(uint64_t entries, uint64_t chunk) {
    const uint64_t chunks = entries / chunk;
    std::vector<uint64_t> firsts{0};
    if (chunks > 2) firsts.push_back(chunks / 2 * chunk);
    if (chunks > 1) firsts.push_back((chunks - 1) * chunk);
    return firsts;
}

// Dataset `name` of `entries` entries created in `file` as `layout` says,
// with its filters and (version 2) its transform's attribute. Throws
// TableError that begins with `what`.
inline Handle create_dataset(hid_t file, const char* name, uint64_t entries,
                             const DatasetLayout& layout, Compression c, Transform transform,
                             const std::string& what) {
    const hsize_t dims = entries, chunk = layout.chunk;
    Handle space = checked(H5Screate_simple(1, &dims, nullptr), H5Sclose, what);
    Handle dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
    check(H5Pset_chunk(dcpl.get(), 1, &chunk), what);
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), what);
    set_filters(dcpl.get(), c, layout.level, layout.file_bits);
    Handle dataset =
        checked(H5Dcreate2(file, name, layout.file_bits == 8 ? H5T_STD_U8LE : H5T_STD_U16LE,
                           space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                H5Dclose, what + ": cannot create");
    if (layout.transformed)
        write_string_attribute(dataset.get(), TRANSFORM_ATTRIBUTE, to_string(transform));
    return dataset;
}

}  // namespace nimtb::io
