#include "io/sequence_file.h"

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "engine/base/version.h"
#include "io/hdf5_output.h"
#include "io/output_path.h"

namespace nimtb::io {

namespace {
constexpr const char* VALUES = "value";
constexpr hsize_t CHUNK = hsize_t{1} << 20;
// A file's period answers heaps beyond its values, so its claim is proven
// again here, by the theorem that proves it, from the values themselves: a
// damaged or edited file is refused rather than believed.
void check_claim(const std::string& path, const SequenceFile& s) {
    const auto window = engine::proof_window(s.rule, engine::Convention::normal);
    const uint64_t pre = s.period.preperiod, p = s.period.period, last = s.values.size() - 1;
    auto refuse = [&](const std::string& why) {
        throw TableError(path + ": the period the file claims (" + std::to_string(p) +
                         " from heap " + std::to_string(pre) + ") " + why);
    };
    if (!window) refuse("has no theorem to prove it for " + s.rule.canonical());
    for (uint64_t n = pre; n + p <= last; ++n) {
        if (s.values[n] != s.values[n + p]) {
            refuse("does not hold in its values: g(" + std::to_string(n) +
                   ") = " + std::to_string(s.values[n]) + " but g(" + std::to_string(n + p) +
                   ") = " + std::to_string(s.values[n + p]));
        }
    }
    if (window->needed(std::max(pre, window->first), p) > last)
        refuse("needs values up to heap " +
               std::to_string(window->needed(std::max(pre, window->first), p)) +
               " to be proven, and the file holds them up to " + std::to_string(last));
}

// The values as nimtb writes them: unsigned integers of at most 16 bits (in
// either byte order: HDF5 converts), each chunk under a Fletcher-32 checksum,
// so that damage is caught. Anything else is a file nimtb did not write.
void check_values_dataset(hid_t dataset, const std::string& what) {
    Handle type = checked(H5Dget_type(dataset), H5Tclose, what);
    if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_sign(type.get()) != H5T_SGN_NONE ||
        H5Tget_size(type.get()) > 2) {
        throw TableError(what + " has the wrong element type: expected unsigned 16-bit integers");
    }
    Handle dcpl = checked(H5Dget_create_plist(dataset), H5Pclose, what);
    unsigned flags = 0;
    size_t cd_count = 0;
    if (H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_FLETCHER32, &flags, &cd_count, nullptr, 0,
                             nullptr, nullptr) < 0) {
        H5Eclear2(H5E_DEFAULT);
        throw TableError(what + " has no Fletcher-32 checksum: not a sequence nimtb wrote");
    }
}

// The record: /milestones, rows of (heaps, largest value, its first heap,
// rare heaps), and /rare, rows of (heap, value); the mask an attribute.
// As cells, row after row, the way both datasets hold them.
std::vector<uint64_t> milestone_cells(const engine::SequenceRecord& r) {
    std::vector<uint64_t> cells;
    for (const engine::Milestone& m : r.milestones)
        cells.insert(cells.end(), {m.heaps, m.largest, m.largest_heap, m.rare_heaps});
    return cells;
}

std::vector<uint64_t> rare_cells(const engine::SequenceRecord& r) {
    std::vector<uint64_t> cells;
    for (const engine::RareHeap& h : r.rare) cells.insert(cells.end(), {h.heap, h.value});
    return cells;
}

void write_record(hid_t root, const std::string& path, const engine::SequenceRecord& r,
                  Hdf5Output& out) {
    write_u64_attribute(root, "mask", r.mask);
    auto table = [&](const char* name, const std::vector<uint64_t>& cells, hsize_t columns) {
        const std::string where = path + ": dataset /" + name;
        const hsize_t dims2[2] = {cells.size() / columns, columns};
        Handle space2 = checked(H5Screate_simple(2, dims2, nullptr), H5Sclose, where);
        Handle dataset = checked(H5Dcreate2(root, name, H5T_STD_U64LE, space2.get(), H5P_DEFAULT,
                                            H5P_DEFAULT, H5P_DEFAULT),
                                 H5Dclose, where + ": cannot create");
        if ((!cells.empty() && H5Dwrite(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                                        H5P_DEFAULT, cells.data()) < 0) ||
            !dataset.close()) {
            const std::string why = hdf5_error_message();
            out.release_space();
            throw TableError(where + ": cannot write: " + why);
        }
    };
    table("milestones", milestone_cells(r), 4);
    table("rare", rare_cells(r), 2);
}

// The record a file holds, when it holds one: recomputed from its values
// under its mask, and refused unless its datasets say the same.
std::optional<engine::SequenceRecord> read_record(hid_t root, const std::string& path,
                                                  std::span<const uint16_t> values) {
    const std::optional<uint64_t> mask = read_u64_attribute(root, "mask", path);
    if (!mask) return std::nullopt;
    if (*mask > UINT16_MAX) throw TableError(path + ": attribute 'mask' is out of range");
    engine::SequenceRecord r = engine::sequence_record(values, static_cast<uint32_t>(*mask));
    auto read = [&](const char* name, const std::vector<uint64_t>& expected, hsize_t columns) {
        const std::string where = path + ": dataset /" + name;
        Handle dataset =
            checked(H5Dopen2(root, name, H5P_DEFAULT), H5Dclose, where + ": cannot open");
        Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, where);
        hsize_t dims[2] = {0, 0};
        if (H5Sget_simple_extent_ndims(space.get()) != 2 ||
            H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2 || dims[1] != columns ||
            dims[0] * columns != expected.size())
            throw TableError(where + " does not match the values (the record is " +
                             std::to_string(expected.size() / columns) + " rows)");
        std::vector<uint64_t> cells(expected.size());
        if (!cells.empty() && H5Dread(dataset.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                                      H5P_DEFAULT, cells.data()) < 0)
            throw TableError(where + ": cannot read (the file is damaged: " + hdf5_error_message() +
                             ")");
        if (cells != expected) throw TableError(where + " does not match the values");
    };
    read("milestones", milestone_cells(r), 4);
    read("rare", rare_cells(r), 2);
    return r;
}

}  // namespace

void write_sequence(const std::string& path, const SequenceFile& s, bool overwrite) {
    check_output_kind(path);
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !overwrite)
        throw TableError(path + " already exists; choose another " + mention(Option::sequence_out) +
                         " or " + mention(Option::overwrite));
    Hdf5Output out(path, "sequence");
    const hid_t root = out.root();
    write_string_attribute(root, "format", SEQUENCE_FORMAT_NAME);
    write_u64_attribute(root, "format_version", SEQUENCE_FORMAT_VERSION);
    write_string_attribute(root, "rules", s.rule.canonical());
    write_string_attribute(root, "convention", "normal");
    write_u64_attribute(root, "max_heap", s.values.size() - 1);
    write_string_attribute(root, "algorithm", s.algorithm);
    write_string_attribute(root, "generator", std::string("nimtb ") + VERSION);
    write_string_attribute(root, "period_basis", engine::to_string(s.period.basis));
    write_string_attribute(root, "period_explanation", s.period.explanation);
    if (s.period.basis == engine::Basis::proof) {
        write_u64_attribute(root, "preperiod", s.period.preperiod);
        write_u64_attribute(root, "period", s.period.period);
    }
    // g(n) as 16-bit integers: deflate over byte planes (HDF5's shuffle),
    // readable by every HDF5 reader with no plug-in.
    const std::string what = path + ": dataset /" + VALUES;
    const hsize_t dims = s.values.size(), chunk = std::min(CHUNK, dims);
    Handle space = checked(H5Screate_simple(1, &dims, nullptr), H5Sclose, what);
    Handle dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
    check(H5Pset_chunk(dcpl.get(), 1, &chunk), what);
    check(H5Pset_shuffle(dcpl.get()), what);
    check(H5Pset_deflate(dcpl.get(), 6), what);
    check(H5Pset_fletcher32(dcpl.get()), what);
    {
        Handle dataset = checked(H5Dcreate2(root, VALUES, H5T_STD_U16LE, space.get(), H5P_DEFAULT,
                                            dcpl.get(), H5P_DEFAULT),
                                 H5Dclose, what + ": cannot create");
        if (H5Dwrite(dataset.get(), H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                     s.values.data()) < 0 ||
            !dataset.close()) {
            const std::string why = hdf5_error_message();
            out.release_space();
            throw TableError(what + ": cannot write: " + why);
        }
    }
    if (s.record) write_record(root, path, *s.record, out);
    out.commit();
}

SequenceFile read_sequence(const std::string& path) {
    init_hdf5();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw NoSuchFile(path + ": no such file");
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw TableError(path + ": not an HDF5 file, so not a nimtb sequence");
    }
    Handle file = checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                          path + ": cannot open (truncated or damaged)");
    const hid_t root = file.get();
    auto require_string = [&](const char* name) {
        auto v = read_string_attribute(root, name, path);
        if (!v) throw TableError(path + ": attribute '" + name + "' is missing");
        return *v;
    };
    auto require_u64 = [&](const char* name) {
        auto v = read_u64_attribute(root, name, path);
        if (!v) throw TableError(path + ": attribute '" + name + "' is missing");
        return *v;
    };
    const auto format = read_string_attribute(root, "format", path);
    if (!format || *format != SEQUENCE_FORMAT_NAME) {
        throw TableError(path + ": not a nimtb sequence (its 'format' attribute is " +
                         (format ? "'" + *format + "'" : std::string("missing")) + ", expected '" +
                         SEQUENCE_FORMAT_NAME + "')");
    }
    const uint64_t version = require_u64("format_version");
    if (version != SEQUENCE_FORMAT_VERSION) {
        throw TableError(path + ": sequence format version " + std::to_string(version) +
                         " is not one this nimtb reads (version 1)");
    }
    SequenceFile s;
    try {
        s.rule = engine::Rule::parse(require_string("rules"));
    } catch (const nimtb::InputError& e) {
        throw TableError(path + ": bad attribute: " + e.what());
    }
    s.algorithm = require_string("algorithm");
    const uint64_t max_heap = require_u64("max_heap");
    s.period.explanation = require_string("period_explanation");
    try {
        s.period.basis = engine::parse_basis(require_string("period_basis"));
    } catch (const nimtb::InputError& e) {
        throw TableError(path + ": bad attribute 'period_basis': " + e.what());
    }
    if (s.period.basis == engine::Basis::proof) {
        s.period.preperiod = static_cast<uint32_t>(require_u64("preperiod"));
        s.period.period = static_cast<uint32_t>(require_u64("period"));
        if (s.period.period == 0 || uint64_t{s.period.preperiod} + s.period.period > max_heap + 1)
            throw TableError(path + ": the period does not fit the values stored");
    }
    const std::string what = path + ": dataset /" + VALUES;
    Handle dataset = checked(H5Dopen2(root, VALUES, H5P_DEFAULT), H5Dclose, what + ": cannot open");
    check_values_dataset(dataset.get(), what);
    Handle space = checked(H5Dget_space(dataset.get()), H5Sclose, what);
    hsize_t dims = 0;
    if (H5Sget_simple_extent_ndims(space.get()) != 1 ||
        H5Sget_simple_extent_dims(space.get(), &dims, nullptr) != 1 || dims != max_heap + 1) {
        throw TableError(what + " does not hold max_heap + 1 = " + std::to_string(max_heap + 1) +
                         " values");
    }
    s.values.resize(dims);
    if (H5Dread(dataset.get(), H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.values.data()) <
        0) {
        throw TableError(what + ": cannot read (the file is damaged: " + hdf5_error_message() +
                         ")");
    }
    if (s.period.basis == engine::Basis::proof) check_claim(path, s);
    s.record = read_record(root, path, s.values);
    return s;
}

}  // namespace nimtb::io
