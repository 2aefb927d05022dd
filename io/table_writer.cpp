#include "io/table_writer.h"

#include <fcntl.h>
#include <oneapi/tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/base/parallel.h"
#include "io/codec/chunk_codec.h"
#include "io/hdf5_handle.h"
#include "io/hdf5_output.h"
#include "io/output_path.h"
#include "io/table_layout.h"

namespace nimtb::io {
namespace {

bool cancelled(const WriteOptions& o) {
    return o.cancel && o.cancel->load();
}

// Entries [first, first + count) of `a` in the file's width, padded with
// zeros to a whole chunk (HDF5 stores edge chunks whole). The transform
// then covers the entries alone: the padding stays zeros,
// as HDF5 leaves it where the MPI writer's pipeline fills an edge chunk.
void chunk_bytes(const Entries& a, unsigned file_bits, uint64_t first, uint64_t count,
                 uint64_t chunk, ByteBuffer& out) {
    const unsigned width = file_bits / 8;
    out.resize(chunk * width);
    // The file is never wider than the entries: an 8-bit array's maximum
    // fits in 8 bits.
    assert(file_bits <= a.bits && count <= chunk);
    a.read(first, count, file_bits, out.data());
    std::fill(out.begin() + static_cast<ptrdiff_t>(count * width), out.end(), uint8_t{0});
}

// The transform of a dataset, chosen on the chunks table_layout.h names.
Transform pick_transform(const Entries& a, unsigned file_bits, uint64_t chunk) {
    const uint64_t n = a.size;
    ByteBuffer sample, part;
    for (uint64_t first : transform_sample(n, chunk)) {
        const uint64_t count = std::min(chunk, n - first);
        chunk_bytes(a, file_bits, first, count, count, part);
        sample.insert(sample.end(), part.begin(), part.end());
    }
    return choose_transform(sample, file_bits / 8, chunk);
}

// Chunks transformed and compressed in parallel, written in order by this
// thread (HDF5 serialises its calls under one lock): a batch of chunks at a time, each into
// its own slot, so memory stays at a batch whatever the table's size. The
// bytes are what HDF5's filters would have made (chunk_codec.h), handed to
// H5Dwrite_chunk.
// Returns the bytes of the chunks written.
// Chunks in flight per compressing thread.
constexpr uint64_t CHUNKS_IN_FLIGHT = 4;

uint64_t write_chunks(hid_t dataset, const Entries& a, const DatasetLayout& layout,
                      Transform transform, const WriteOptions& o, const std::string& what) {
    const uint64_t n = a.size, chunk = layout.chunk;
    const uint64_t chunks = (n + chunk - 1) / chunk;
    const unsigned file_bits = layout.file_bits;
    tbb::task_arena arena(o.threads ? static_cast<int>(o.threads) : tbb::task_arena::automatic);
    const uint64_t batch = CHUNKS_IN_FLIGHT * static_cast<uint64_t>(arena.max_concurrency());
    const EncodedChunks encoding{.file_bits = file_bits,
                                 .chunk = chunk,
                                 .compression = o.compression,
                                 .level = layout.level,
                                 .transform = transform,
                                 .transform_chosen = true,
                                 .read = {}};
    std::vector<ByteBuffer> raws(batch), packets(batch);
    std::vector<std::string> failed(batch);
    uint64_t stored = 0;
    for (uint64_t first = 0; first < chunks && !cancelled(o); first += batch) {
        const uint64_t count = std::min(batch, chunks - first);
        arena.execute([&] {
            engine::sync_parallel_for(uint64_t{0}, count, [&](uint64_t slot) {
                const uint64_t begin = (first + slot) * chunk;
                ByteBuffer& raw = raws[slot];
                failed[slot].clear();
                const uint64_t entries = std::min(chunk, n - begin);
                try {  // no exception leaves a task: a run file's read is reported below
                    chunk_bytes(a, file_bits, begin, entries, chunk, raw);
                } catch (const std::exception& e) {
                    failed[slot] = e.what();
                    return;
                }
                if (!encode_chunk(encoding, entries, raw, packets[slot]))
                    failed[slot] = what + ": cannot write: " + to_string(o.compression) +
                                   " compression failed";
            });
        });
        for (uint64_t slot = 0; slot < count; ++slot) {
            const hsize_t offset = (first + slot) * chunk;
            if (!failed[slot].empty()) throw TableError(failed[slot]);
            if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, &offset, packets[slot].size(),
                               packets[slot].data()) < 0) {
                throw TableError(what + ": cannot write: " + hdf5_error_message());
            }
            stored += packets[slot].size();
        }
    }
    if (cancelled(o)) throw nimtb::Cancelled();
    return stored;
}

// The chunks of `e`, stored as they are, in order. Returns their bytes.
uint64_t copy_chunks(hid_t dataset, const EncodedChunks& e, uint64_t entries, const WriteOptions& o,
                     const std::string& what) {
    const uint64_t chunks = (entries + e.chunk - 1) / e.chunk;
    ByteBuffer packet;
    uint64_t stored = 0;
    for (uint64_t index = 0; index < chunks && !cancelled(o); ++index) {
        e.read(index, packet);
        const hsize_t offset = index * e.chunk;
        if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, &offset, packet.size(), packet.data()) < 0)
            throw TableError(what + ": cannot write: " + hdf5_error_message());
        stored += packet.size();
    }
    if (cancelled(o)) throw nimtb::Cancelled();
    return stored;
}

// Adds what the dataset takes to `storage`.
void write_dataset(Hdf5Output& out, const char* name, const Entries& a, uint32_t max,
                   const WriteOptions& o, TableStorage& storage) {
    const std::string what = out.path() + ": dataset /" + name;
    const DatasetLayout layout = dataset_layout(a.size, max, o);
    const EncodedChunks* e = a.encoded.get();
    const Transform transform = !layout.transformed ? Transform::none
                                : e && e->transform_chosen
                                    ? e->transform
                                    : pick_transform(a, layout.file_bits, layout.chunk);
    Handle dataset =
        create_dataset(out.root(), name, a.size, layout, o.compression, transform, what);
    try {
        storage.stored_bytes += encoded_as(e, layout, transform, o)
                                    ? copy_chunks(dataset.get(), *a.encoded, a.size, o, what)
                                    : write_chunks(dataset.get(), a, layout, transform, o, what);
        storage.data_bytes += a.size * (layout.file_bits / 8);
    } catch (...) {
        out.release_space();
        throw;
    }
    if (!dataset.close()) {
        const std::string why = hdf5_error_message();
        out.release_space();
        throw TableError(what + ": cannot write: " + why);
    }
}

}  // namespace

bool encoded_as(const EncodedChunks* e, const DatasetLayout& layout, Transform transform,
                const WriteOptions& o) {
    return e && e->file_bits == layout.file_bits && e->chunk == layout.chunk &&
           e->compression == o.compression && e->level == layout.level && e->transform == transform;
}

bool encode_chunk(const EncodedChunks& e, uint64_t entries, ByteBuffer& raw, ByteBuffer& out) {
    const unsigned width = e.file_bits / 8;
    encode_transform(e.transform, width, std::span(raw).first(entries * width));
    return compress_chunk(e.compression, e.level, width, raw, out);
}

uint64_t write_memory(unsigned threads) {
    // A 16-bit chunk, raw, and compressed (at most a little more).
    const uint64_t chunk = CHUNK_ELEMENTS * 2;
    return CHUNKS_IN_FLIGHT * std::max(1u, threads) * (chunk + chunk + chunk / 8);
}

void check_output(const std::string& path, const WriteOptions& o) {
    namespace fs = std::filesystem;
    check_output_kind(path);
    std::error_code ec;
    if (fs::exists(path, ec) && !o.overwrite) {
        throw TableError(path + " already exists; choose another " + mention(Option::output) +
                         " or " + mention(Option::overwrite));
    }
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
        throw TableError(path + ": folder " + parent.string() + " does not exist");
    }
}

TableStorage write_table(const std::string& path, const TableContents& s, const WriteOptions& o) {
    init_hdf5();
    check_output(path, o);

    // 1. Everything goes to a temporary file beside the final one.
    Hdf5Output out(path, "table");
    const hid_t root = out.root();
    write_root_attributes(root, s.header, o.format_version);

    // 2. The datasets, in the narrowest width that holds them.
    TableStorage storage;
    storage.compression = o.compression;
    write_dataset(out, VALUE_DATASET, s.value, s.max_value, o, storage);
    if (s.remoteness.size) {
        write_dataset(out, REMOTENESS_DATASET, s.remoteness, s.max_remoteness, o, storage);
    }
    if (cancelled(o)) throw nimtb::Cancelled();

    // 3. Flushed, synced, renamed: a file under the final name is whole.
    out.commit();
    std::error_code ec;
    storage.file_bytes = std::filesystem::file_size(path, ec);
    if (storage.stored_bytes)
        storage.compression_ratio = double(storage.data_bytes) / double(storage.stored_bytes);
    return storage;
}

}  // namespace nimtb::io
