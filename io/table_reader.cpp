#include "io/table_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "engine/game/moves.h"
#include "io/codec/chunk_codec.h"
#include "io/dataset_reader.h"
#include "io/hdf5_handle.h"

namespace nimtb::io {

namespace {

// Stops a walk over a group's links once it has seen more than a table holds.
herr_t links_limit(const std::vector<std::string>& seen) {
    return seen.size() > 2 ? 1 : 0;
}

// The dataset's compression; a filter this HDF5 cannot run is refused here,
// by number and name, rather than at the first read.
Compression compression_of(hid_t dcpl, const std::string& what) {
    const int n = H5Pget_nfilters(dcpl);
    Compression c = Compression::none;
    for (int i = 0; i < n; ++i) {
        unsigned flags = 0;
        size_t cd_count = 0;
        char name[64] = {};
        const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &cd_count,
                                               nullptr, sizeof name, name, nullptr);
        if (id >= 0 && H5Zfilter_avail(id) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            throw TableError(what + ": compressed with HDF5 filter " + std::to_string(id) +
                             (name[0] ? " ('" + std::string(name) + "')" : std::string()) +
                             ", which nimtb cannot decode; nimtb reads none, deflate, zstd "
                             "(Blosc) and lz4");
        }
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

struct TableReader::Datasets {
    Handle file;
    std::unique_ptr<DatasetReader> value;
    std::unique_ptr<DatasetReader> remoteness;
    // read_range's last chunk of each dataset, decoded: consecutive ranges
    // (verify's groups, many far smaller than a chunk) decode each once.
    struct Decoded {
        uint64_t index = UINT64_MAX;
        std::vector<uint16_t> entries;
    };
    Decoded last[2];
};

TableReader::TableReader(const std::string& path) : data_(std::make_unique<Datasets>()) {
    init_hdf5();
    namespace fs = std::filesystem;
    info_.path = path;
    std::error_code ec;
    if (!fs::exists(path, ec)) throw NoSuchFile(path + ": no such file");
    if (fs::is_directory(path, ec)) throw TableError(path + ": is a folder, not a table");
    info_.file_bytes = fs::file_size(path, ec);
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw TableError(path + ": not an HDF5 file, so not a nimtb table");
    }
    data_->file = checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                          path + ": cannot open (truncated or damaged)");
    const hid_t root = data_->file.get();
    const std::string where = path;

    // 1. Identity and version.
    require_format(root, FORMAT_NAME, path, "table");
    auto require_u64 = [&](const char* name) { return require_u64_attribute(root, name, where); };
    auto require_string = [&](const char* name) {
        return require_string_attribute(root, name, where);
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
    auto open_dataset = [&](const char* name, bool required) -> std::unique_ptr<DatasetReader> {
        const std::string what = path + ": dataset /" + name;
        const htri_t exists = H5Lexists(root, name, H5P_DEFAULT);
        if (exists <= 0) {
            H5Eclear2(H5E_DEFAULT);
            if (required) throw TableError(what + " is missing");
            return nullptr;
        }
        Handle handle =
            checked(H5Dopen2(root, name, H5P_DEFAULT), H5Dclose, what + ": cannot open");
        Handle type = checked(H5Dget_type(handle.get()), H5Tclose, what);
        const size_t width = H5Tget_size(type.get());
        if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_sign(type.get()) != H5T_SGN_NONE ||
            (width != 1 && width != 2)) {
            throw TableError(
                what + " has the wrong element type: expected unsigned 8- or 16-bit integers");
        }
        Handle space = checked(H5Dget_space(handle.get()), H5Sclose, what);
        hsize_t dims = 0;
        if (H5Sget_simple_extent_ndims(space.get()) != 1 ||
            H5Sget_simple_extent_dims(space.get(), &dims, nullptr) != 1) {
            throw TableError(what + " is not one-dimensional");
        }
        if (dims != info_.positions) {
            throw TableError(what + " holds " + std::to_string(dims) + " entries, expected " +
                             std::to_string(info_.positions));
        }
        info_.data_bytes += dims * width;
        Handle dcpl = checked(H5Dget_create_plist(handle.get()), H5Pclose, what);
        hsize_t chunk = 0;
        const uint64_t chunk_length = H5Pget_layout(dcpl.get()) == H5D_CHUNKED &&
                                              H5Pget_chunk(dcpl.get(), 1, &chunk) == 1 && chunk > 0
                                          ? chunk
                                          : std::min<uint64_t>(dims, CHUNK_ELEMENTS);
        const Compression compression = compression_of(dcpl.get(), what);
        Transform transform = Transform::none;
        if (version < 2) {
            // Version 1 has no transforms: a dataset naming one is a later
            // table whose version was changed, and read as version 1 it
            // would answer wrongly.
            if (read_string_attribute(handle.get(), TRANSFORM_ATTRIBUTE, what)) {
                throw TableError(what + " names a transform, which a table of format version " +
                                 std::to_string(version) + " cannot have: the file is damaged");
            }
        } else {  // every version 2 dataset names its transform
            const std::string text =
                require_string_attribute(handle.get(), TRANSFORM_ATTRIBUTE, what);
            try {
                transform = parse_transform(text);
            } catch (const nimtb::InputError& e) {
                throw TableError(what + ": " + e.what() + " (a newer nimtb wrote it?)");
            }
        }
        if (name == std::string(VALUE_DATASET)) {
            info_.value_bits = static_cast<unsigned>(width * 8);
            info_.compression = compression;
            info_.chunk_elements = chunk_length;
            info_.value_transform = transform;
        } else {
            info_.remoteness_bits = static_cast<unsigned>(width * 8);
            info_.remoteness_transform = transform;
        }
        // nimtb decodes a chunk's bytes itself only where they are what it
        // writes, little-endian; any other byte order is read through HDF5,
        // which converts (a big-endian table once answered 512 for 2).
        const bool little_endian = width == 1 || H5Tget_order(type.get()) == H5T_ORDER_LE;
        return std::make_unique<DatasetReader>(
            std::move(handle), what, dims, chunk_length, static_cast<unsigned>(width), transform,
            compression, little_endian && direct_pipeline(dcpl.get(), compression));
    };
    // Nothing but the two datasets: a link whose name a damaged byte
    // changed ("remotenesq") would otherwise read as a table without it.
    std::vector<std::string> links;
    H5Literate(
        root, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
        [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
            static_cast<std::vector<std::string>*>(out)->push_back(name);
            return links_limit(*static_cast<std::vector<std::string>*>(out));
        },
        &links);
    H5Eclear2(H5E_DEFAULT);
    for (const std::string& name : links) {
        if (name != VALUE_DATASET && name != REMOTENESS_DATASET) {
            throw TableError(
                fmt::format("{}: the file is damaged or not a nimtb table: it holds "
                            "'{}', which is neither /value nor /remoteness",
                            path, name.substr(0, 40)));
        }
    }
    data_->value = open_dataset(VALUE_DATASET, true);
    data_->remoteness = open_dataset(REMOTENESS_DATASET, false);
    // A chunk decodes only from its start: the datasets are read chunk by
    // chunk together, so they must share the chunk length.
    if (data_->remoteness && data_->remoteness->chunk() != data_->value->chunk()) {
        throw TableError(path + ": datasets /value and /remoteness have different chunk lengths (" +
                         std::to_string(data_->value->chunk()) + " and " +
                         std::to_string(data_->remoteness->chunk()) + ")");
    }
    set_cache_bytes(DEFAULT_CACHE_BYTES);
}

TableReader::~TableReader() = default;
TableReader::TableReader(TableReader&&) noexcept = default;
TableReader& TableReader::operator=(TableReader&&) noexcept = default;

TableStorage TableReader::storage() const {
    TableStorage t;
    t.data_bytes = info_.data_bytes;
    t.file_bytes = info_.file_bytes;
    t.compression = info_.compression;
    t.stored_bytes =
        data_->value->stored_bytes() + (data_->remoteness ? data_->remoteness->stored_bytes() : 0);
    if (info_.file_bytes && t.stored_bytes > info_.file_bytes) {
        // The chunk index of a version 1 file has no checksum to catch this.
        throw TableError(
            fmt::format("{}: the file is damaged: its chunk index claims {} bytes in a file of {}",
                        info_.path, t.stored_bytes, info_.file_bytes));
    }
    if (t.stored_bytes) t.compression_ratio = double(info_.data_bytes) / double(t.stored_bytes);
    return t;
}

void TableReader::keep_decoded_chunks(bool keep) {
    data_->value->keep_chunks(keep);
    if (data_->remoteness) data_->remoteness->keep_chunks(keep);
}

void TableReader::set_cache_bytes(uint64_t bytes) {
    data_->value->set_cache(data_->remoteness ? bytes / 2 : bytes);
    if (data_->remoteness) data_->remoteness->set_cache(bytes / 2);
}

void TableReader::require_remoteness() const {
    if (!data_->remoteness)
        throw TableError(info_.path + ": the table has no remoteness (solved with " +
                         mention(Option::no_remoteness) + ")");
}

uint32_t TableReader::value(uint64_t rank) {
    return data_->value->get(rank);
}

uint32_t TableReader::remoteness(uint64_t rank) {
    require_remoteness();
    return data_->remoteness->get(rank);
}

void TableReader::look_up(std::span<const uint64_t> ranks, std::span<uint32_t> values,
                          std::span<uint32_t> remoteness) {
    DatasetReader* readers[] = {data_->value.get(), data_->remoteness.get()};
    const std::span<uint32_t> outs[] = {values, remoteness};
    const size_t n = has_remoteness() && !remoteness.empty() ? 2 : 1;
    DatasetReader::get_many({readers, n}, ranks, {outs, n});
}

void TableReader::for_each_chunk(const std::function<void(uint64_t, std::span<const uint16_t>,
                                                          std::span<const uint16_t>)>& visit) {
    std::vector<uint16_t> values, rem;
    const uint64_t chunk = data_->value->chunk();
    for (uint64_t index = 0; index * chunk < data_->value->size(); ++index) {
        data_->value->read_chunk(index, values);
        if (data_->remoteness) data_->remoteness->read_chunk(index, rem);
        visit(index * chunk, values,
              data_->remoteness ? std::span<const uint16_t>(rem) : std::span<const uint16_t>());
    }
}

void TableReader::read_range(uint64_t first, uint64_t count, std::vector<uint32_t>& values,
                             std::vector<uint32_t>& remoteness) {
    const uint64_t chunk = data_->value->chunk();
    auto read = [&](DatasetReader& d, Datasets::Decoded& last, std::vector<uint32_t>& out) {
        out.resize(count);
        for (uint64_t rank = first; rank < first + count;) {
            const uint64_t index = rank / chunk, from = rank - index * chunk;
            if (last.index != index) {
                last.index = UINT64_MAX;  // until the chunk is whole
                d.read_chunk(index, last.entries);
                last.index = index;
            }
            const std::vector<uint16_t>& decoded = last.entries;
            const uint64_t n = std::min<uint64_t>(decoded.size() - from, first + count - rank);
            std::copy_n(decoded.begin() + static_cast<ptrdiff_t>(from), n,
                        out.begin() + static_cast<ptrdiff_t>(rank - first));
            rank += n;
        }
    };
    read(*data_->value, data_->last[0], values);
    if (data_->remoteness) {
        read(*data_->remoteness, data_->last[1], remoteness);
    } else {
        remoteness.clear();
    }
}

void TableReader::read_all(engine::QuantityArray& values, engine::QuantityArray& remoteness) {
    values = engine::QuantityArray(info_.positions, info_.value_bits);
    remoteness = has_remoteness() ? engine::QuantityArray(info_.positions, info_.remoteness_bits)
                                  : engine::QuantityArray();
    auto read = [](DatasetReader& d, engine::QuantityArray& a) {
        d.read_whole({a.data<uint8_t>(), a.bytes()});
    };
    read(*data_->value, values);
    if (data_->remoteness) read(*data_->remoteness, remoteness);
}

}  // namespace nimtb::io
