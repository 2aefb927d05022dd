#include "io/table_reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "engine/moves.h"
#include "io/chunk_codec.h"

namespace nimtb::io {

// One dataset with a cache of decoded chunks: a chunk-to-slot index for O(1)
// hits, least recently used slot evicted on a miss (a miss costs a
// decompression, so the scan over slots is noise).
struct TableReader::Dataset {
    struct Slot {
        uint64_t chunk = UINT64_MAX;
        uint64_t used = 0;
        std::vector<uint16_t> data;
    };
    Handle handle;
    Handle file_space;
    std::string what;
    uint64_t size = 0;
    uint64_t chunk = 0;
    unsigned width = 1;  // bytes per entry in the file
    Transform transform = Transform::none;
    // The filters are a compressor nimtb decodes itself and the checksum
    // (chunk_codec.h): chunks are read raw, with no HDF5 plug-in.
    bool direct = false;
    Compression compression = Compression::none;
    std::vector<Slot> slots;
    std::vector<int32_t> slot_of;  // per chunk; -1 when not cached
    uint64_t clock = 0;
    std::vector<uint8_t> stored, raw;  // scratch of one chunk

    void set_cache(uint64_t bytes) {
        const uint64_t chunks = (size + chunk - 1) / chunk;
        const uint64_t n = std::clamp<uint64_t>(bytes / (chunk * sizeof(uint16_t)), 1, chunks);
        slots.assign(n, Slot());
        slot_of.assign(chunks, -1);
    }

    std::string damaged(uint64_t start, uint64_t count, const std::string& why) const {
        return what + ": cannot read positions " + std::to_string(start) + " to " +
               std::to_string(start + count - 1) + " (the file is damaged: " + why + ")";
    }

    // Chunk `index` in the file's width, transform undone, into `raw`
    // (count entries). Raw when the filters allow it, else through HDF5.
    void read_raw(uint64_t index, uint64_t count) {
        const hsize_t offset = index * chunk;
        raw.resize(chunk * width);
        bool done = false;
        if (direct) {
            hsize_t bytes = 0;
            uint32_t mask = 0;
            if (H5Dget_chunk_storage_size(handle.get(), &offset, &bytes) < 0 || bytes == 0)
                throw TableError(damaged(offset, count, "a chunk is missing"));
            stored.resize(bytes);
            if (H5Dread_chunk(handle.get(), H5P_DEFAULT, &offset, &mask, stored.data()) < 0)
                throw TableError(damaged(offset, count, hdf5_error_message()));
            // A plug-in filter may have been skipped for a chunk it could not
            // shrink (mask bit 0): then the chunk is stored as it is.
            if (mask == 0 || mask == 1) {
                const std::string why = decompress_chunk(mask ? Compression::none : compression,
                                                         stored, {raw.data(), raw.size()});
                if (!why.empty()) throw TableError(damaged(offset, count, why));
                done = true;
            }
        }
        if (!done) {
            const hsize_t n = count;
            Handle mem = checked(H5Screate_simple(1, &n, nullptr), H5Sclose, what);
            check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &offset, nullptr, &n,
                                      nullptr),
                  what);
            if (H5Dread(handle.get(), width == 1 ? H5T_NATIVE_UINT8 : H5T_NATIVE_UINT16, mem.get(),
                        file_space.get(), H5P_DEFAULT, raw.data()) < 0)
                throw TableError(damaged(offset, count, hdf5_error_message()));
        }
        if (width == 1) {
            decode_transform<uint8_t>(transform, {raw.data(), count});
        } else {
            decode_transform<uint16_t>(transform, {reinterpret_cast<uint16_t*>(raw.data()), count});
        }
    }

    // Reads chunk `index` whole: only that chunk is read and decompressed.
    void read_chunk(uint64_t index, std::vector<uint16_t>& out) {
        const uint64_t count = std::min(chunk, size - index * chunk);
        read_raw(index, count);
        out.resize(count);
        if (width == 1) {
            std::copy(raw.begin(), raw.begin() + static_cast<ptrdiff_t>(count), out.begin());
        } else {
            std::memcpy(out.data(), raw.data(), count * 2);
        }
    }

    uint16_t get(uint64_t rank) {
        const uint64_t index = rank / chunk;
        int32_t s = slot_of[index];
        if (s < 0) {
            s = 0;
            for (size_t i = 1; i < slots.size(); ++i) {
                if (slots[i].used < slots[static_cast<size_t>(s)].used) s = static_cast<int32_t>(i);
            }
            Slot& victim = slots[static_cast<size_t>(s)];
            if (victim.chunk != UINT64_MAX) slot_of[victim.chunk] = -1;
            victim.chunk = UINT64_MAX;
            read_chunk(index, victim.data);
            victim.chunk = index;
            slot_of[index] = s;
        }
        Slot& slot = slots[static_cast<size_t>(s)];
        slot.used = ++clock;
        return slot.data[rank - index * chunk];
    }
};

namespace {

Compression compression_of(hid_t dcpl) {
    const int n = H5Pget_nfilters(dcpl);
    Compression c = Compression::none;
    for (int i = 0; i < n; ++i) {
        unsigned flags = 0;
        size_t cd_count = 0;
        const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &cd_count,
                                               nullptr, 0, nullptr, nullptr);
        if (id == H5Z_FILTER_DEFLATE)
            c = Compression::deflate;
        else if (id == BLOSC_FILTER)
            c = Compression::zstd;
        else if (id == LZ4_FILTER)
            c = Compression::lz4;
        else if (id != H5Z_FILTER_FLETCHER32 && id != H5Z_FILTER_SHUFFLE)
            c = Compression::other;
    }
    return c;
}

// Whether the pipeline is what nimtb writes, so chunks can be decoded
// without HDF5: at most one compressor nimtb knows, then Fletcher-32.
bool direct_pipeline(hid_t dcpl, Compression c) {
    const int n = H5Pget_nfilters(dcpl);
    if (!direct_codec(c) || n < 1 || n > 2) return false;
    unsigned flags = 0;
    size_t cd_count = 0;
    const H5Z_filter_t last = H5Pget_filter2(dcpl, static_cast<unsigned>(n - 1), &flags, &cd_count,
                                             nullptr, 0, nullptr, nullptr);
    return last == H5Z_FILTER_FLETCHER32 && (n == 2) == (c != Compression::none);
}

}  // namespace

TableReader::TableReader(const std::string& path) {
    init_hdf5();
    namespace fs = std::filesystem;
    info_.path = path;
    std::error_code ec;
    if (!fs::exists(path, ec)) throw TableError(path + ": no such file");
    if (fs::is_directory(path, ec)) throw TableError(path + ": is a folder, not a table");
    info_.file_bytes = fs::file_size(path, ec);
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw TableError(path + ": not an HDF5 file, so not a nimtb table");
    }
    file_ = checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                    path + ": cannot open (truncated or damaged)");
    const hid_t root = file_.get();
    const std::string where = path;

    // 1. Identity and version.
    auto format = read_string_attribute(root, "format", where);
    if (!format || *format != FORMAT_NAME) {
        throw TableError(path + ": not a nimtb table (its 'format' attribute is " +
                         (format ? "'" + *format + "'" : std::string("missing")) + ", expected '" +
                         FORMAT_NAME + "')");
    }
    auto require_u64 = [&](const char* name) {
        auto v = read_u64_attribute(root, name, where);
        if (!v) throw TableError(path + ": attribute '" + name + "' is missing");
        return *v;
    };
    auto require_string = [&](const char* name) {
        auto v = read_string_attribute(root, name, where);
        if (!v) throw TableError(path + ": attribute '" + name + "' is missing");
        return *v;
    };
    const uint64_t version = require_u64("format_version");
    if (version < 1 || version > FORMAT_VERSION) {
        const std::string known = "versions 1 to " + std::to_string(FORMAT_VERSION);
        throw TableError(path + ": table format version " + std::to_string(version) +
                         (version > FORMAT_VERSION
                              ? " is newer than this nimtb reads (" + known + "); update nimtb"
                              : " is not one this nimtb reads (" + known + ")"));
    }
    info_.format_version = version;
    const std::string index = require_string("index");
    if (index != INDEX_NAME && index != TOTAL_INDEX_NAME) {
        throw TableError(path + ": unknown index '" + index + "', expected '" + INDEX_NAME +
                         "' or '" + TOTAL_INDEX_NAME + "'");
    }
    info_.index = index;

    // 2. The game and the universe.
    try {
        rule_ = engine::Rule::parse(require_string("rules"));
        info_.convention = engine::parse_convention(require_string("convention"));
        const uint64_t k = require_u64("max_heaps"), h = require_u64("max_heap_size");
        if (index == TOTAL_INDEX_NAME) {
            const uint64_t n = require_u64("max_total");
            if (n > engine::Universe::MAX_TOTAL || k > n || h != n) {
                throw nimtb::InputError("max_total " + std::to_string(n) + ", max_heaps " +
                                        std::to_string(k) + " and max_heap_size " +
                                        std::to_string(h) +
                                        " do not make a total-bounded universe");
            }
            universe_ = std::make_unique<engine::Universe>(engine::Universe::total_bounded(
                static_cast<uint32_t>(n), static_cast<unsigned>(k)));
        } else {
            if (k > engine::Universe::MAX_HEAPS || h > engine::Universe::MAX_HEAP_SIZE) {
                throw nimtb::InputError("max_heaps " + std::to_string(k) + " or max_heap_size " +
                                        std::to_string(h) + " out of range");
            }
            universe_ = std::make_unique<engine::Universe>(static_cast<unsigned>(k),
                                                           static_cast<uint32_t>(h));
        }
        engine::check_closed(rule_, *universe_);
    } catch (const nimtb::InputError& e) {
        throw TableError(path + ": bad attribute: " + e.what());
    }
    info_.rules = rule_.canonical();
    info_.max_heaps = universe_->max_heaps();
    info_.max_heap_size = universe_->max_heap_size();
    info_.max_total = universe_->max_total();
    info_.positions = require_u64("positions");
    if (info_.positions != universe_->size()) {
        throw TableError(path + ": attribute 'positions' is " + std::to_string(info_.positions) +
                         " but " + universe_->describe() + " makes " +
                         std::to_string(universe_->size()));
    }
    info_.generator = require_string("generator");
    info_.method = read_string_attribute(root, "method", where).value_or("");

    // 3. The datasets: present, one-dimensional, the right length, unsigned 8 or 16 bits.
    auto open_dataset = [&](const char* name, bool required) -> std::unique_ptr<Dataset> {
        const std::string what = path + ": dataset /" + name;
        const htri_t exists = H5Lexists(root, name, H5P_DEFAULT);
        if (exists <= 0) {
            H5Eclear2(H5E_DEFAULT);
            if (required) throw TableError(what + " is missing");
            return nullptr;
        }
        auto d = std::make_unique<Dataset>();
        d->what = what;
        d->handle = checked(H5Dopen2(root, name, H5P_DEFAULT), H5Dclose, what + ": cannot open");
        Handle type = checked(H5Dget_type(d->handle.get()), H5Tclose, what);
        const size_t width = H5Tget_size(type.get());
        if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_sign(type.get()) != H5T_SGN_NONE ||
            (width != 1 && width != 2)) {
            throw TableError(
                what + " has the wrong element type: expected unsigned 8- or 16-bit integers");
        }
        d->file_space = checked(H5Dget_space(d->handle.get()), H5Sclose, what);
        hsize_t dims = 0;
        if (H5Sget_simple_extent_ndims(d->file_space.get()) != 1 ||
            H5Sget_simple_extent_dims(d->file_space.get(), &dims, nullptr) != 1) {
            throw TableError(what + " is not one-dimensional");
        }
        if (dims != info_.positions) {
            throw TableError(what + " holds " + std::to_string(dims) + " entries, expected " +
                             std::to_string(info_.positions));
        }
        d->size = dims;
        info_.data_bytes += dims * width;
        info_.stored_bytes += H5Dget_storage_size(d->handle.get());
        Handle dcpl = checked(H5Dget_create_plist(d->handle.get()), H5Pclose, what);
        hsize_t chunk = 0;
        d->chunk = H5Pget_layout(dcpl.get()) == H5D_CHUNKED &&
                           H5Pget_chunk(dcpl.get(), 1, &chunk) == 1 && chunk > 0
                       ? chunk
                       : std::min<uint64_t>(dims, CHUNK_ELEMENTS);
        d->width = static_cast<unsigned>(width);
        d->compression = compression_of(dcpl.get());
        d->direct = direct_pipeline(dcpl.get(), d->compression);
        if (version >= 2) {  // every version 2 dataset names its transform
            auto transform = read_string_attribute(d->handle.get(), TRANSFORM_ATTRIBUTE, what);
            if (!transform) throw TableError(what + ": attribute 'transform' is missing");
            try {
                d->transform = parse_transform(*transform);
            } catch (const nimtb::InputError& e) {
                throw TableError(what + ": " + e.what() + " (a newer nimtb wrote it?)");
            }
        }
        if (name == std::string(VALUE_DATASET)) {
            info_.value_bits = static_cast<unsigned>(width * 8);
            info_.compression = d->compression;
            info_.chunk_elements = d->chunk;
            info_.value_transform = d->transform;
        } else {
            info_.remoteness_bits = static_cast<unsigned>(width * 8);
            info_.remoteness_transform = d->transform;
        }
        return d;
    };
    value_ = open_dataset(VALUE_DATASET, true);
    remoteness_ = open_dataset(REMOTENESS_DATASET, false);
    // A chunk decodes only from its start: the datasets are read chunk by
    // chunk together, so they must share the chunk length.
    if (remoteness_ && remoteness_->chunk != value_->chunk) {
        throw TableError(path + ": datasets /value and /remoteness have different chunk lengths (" +
                         std::to_string(value_->chunk) + " and " +
                         std::to_string(remoteness_->chunk) + ")");
    }
    set_cache_bytes(DEFAULT_CACHE_BYTES);
}

TableReader::~TableReader() = default;
TableReader::TableReader(TableReader&&) noexcept = default;
TableReader& TableReader::operator=(TableReader&&) noexcept = default;

uint32_t TableReader::lookup(Dataset& d, uint64_t rank) {
    if (rank >= d.size)
        throw TableError(d.what + ": rank " + std::to_string(rank) + " is outside the table");
    return d.get(rank);
}

void TableReader::set_cache_bytes(uint64_t bytes) {
    value_->set_cache(remoteness_ ? bytes / 2 : bytes);
    if (remoteness_) remoteness_->set_cache(bytes / 2);
}

uint32_t TableReader::value(uint64_t rank) {
    return lookup(*value_, rank);
}

uint32_t TableReader::remoteness(uint64_t rank) {
    if (!remoteness_)
        throw TableError(info_.path +
                         ": the table has no remoteness (solved with --no-remoteness)");
    return lookup(*remoteness_, rank);
}

void TableReader::for_each_chunk(const std::function<void(uint64_t, std::span<const uint16_t>,
                                                          std::span<const uint16_t>)>& visit) {
    std::vector<uint16_t> values, rem;
    const uint64_t chunk = value_->chunk;
    for (uint64_t index = 0; index * chunk < value_->size; ++index) {
        value_->read_chunk(index, values);
        if (remoteness_) remoteness_->read_chunk(index, rem);
        visit(index * chunk, values,
              remoteness_ ? std::span<const uint16_t>(rem) : std::span<const uint16_t>());
    }
}

void TableReader::read_all(engine::QuantityArray& values, engine::QuantityArray& remoteness) {
    values = engine::QuantityArray(info_.positions, info_.value_bits);
    remoteness = has_remoteness() ? engine::QuantityArray(info_.positions, info_.remoteness_bits)
                                  : engine::QuantityArray();
    auto store = [](engine::QuantityArray& a, uint64_t first, std::span<const uint16_t> from) {
        if (a.bits() == 8) {
            std::copy(from.begin(), from.end(), a.data<uint8_t>() + first);
        } else {
            std::copy(from.begin(), from.end(), a.data<uint16_t>() + first);
        }
    };
    for_each_chunk([&](uint64_t first, std::span<const uint16_t> v, std::span<const uint16_t> r) {
        store(values, first, v);
        if (!r.empty()) store(remoteness, first, r);
    });
}

}  // namespace nimtb::io
