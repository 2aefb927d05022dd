#include "io/hdf5_handle.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "io/hdf5_filters.h"

namespace nimtb::io {

void init_hdf5() {
    // Debian builds HDF5 thread-safe, where each thread has its own error
    // stack and its own printing of it: turned off for every thread that
    // calls, not only the first (a Python thread reading a file after a
    // solve on another thread printed HDF5's whole stack).
    thread_local const bool quiet = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
    (void)quiet;
    static const bool registered = register_filters();
    if (!registered) throw TableError("HDF5 refused nimtb's Blosc and LZ4 filters");
}

namespace {

// The number after `field = ` in an HDF5 description, or "".
std::string field_of(const std::string& text, const std::string& field) {
    const size_t at = text.find(field + " = ");
    if (at == std::string::npos) return "";
    const size_t from = at + field.size() + 3;
    return text.substr(from, text.find_first_not_of("0123456789", from) - from);
}

}  // namespace

std::string hdf5_error_message() {
    struct Cause {
        std::string desc;
        hid_t minor = -1;
    } cause;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
            // Walking upward, entry 0 is the innermost: the real cause.
            if (n == 0) {
                auto* c = static_cast<Cause*>(out);
                if (e->desc) c->desc = e->desc;
                c->minor = e->min_num;
            }
            return 0;
        },
        &cause);
    H5Eclear2(H5E_DEFAULT);
    std::string message = cause.desc;
    // A system error comes as several lines of fields; keep its words only.
    const std::string marker = "error message = '";
    if (const size_t at = message.find(marker); at != std::string::npos) {
        const size_t end = message.find('\'', at + marker.size());
        return message.substr(at + marker.size(), end == std::string::npos
                                                      ? std::string::npos
                                                      : end - at - marker.size());
    }
    // A file cut short: say so, in bytes.
    if (message.rfind("truncated file", 0) == 0) {
        const std::string eof = field_of(message, "eof"), want = field_of(message, "stored_eof");
        if (!eof.empty() && !want.empty())
            return fmt::format(
                "the file is cut short: it has {} bytes of the {} it was written with", eof, want);
        return "the file is cut short";
    }
    // A filter HDF5 does not have ("required filter 'lzf' is not registered").
    if (message.find("is not registered") != std::string::npos) {
        const size_t open = message.find('\''), close = message.find('\'', open + 1);
        const bool named = open != std::string::npos && close != std::string::npos;
        return fmt::format("compressed with an HDF5 filter{}{} that nimtb cannot decode",
                           named ? " " : "",
                           named ? message.substr(open, close - open + 1) : std::string());
    }
    // HDF5's own fields ("sblock->base_addr = 0") mean nothing to a reader:
    // the kind of error instead ("address overflowed").
    if (message.find(" = ") != std::string::npos || message.find("->") != std::string::npos) {
        char text[256] = {};
        if (cause.minor >= 0 && H5Eget_msg(cause.minor, nullptr, text, sizeof text) > 0) {
            message = text;
            if (!message.empty())
                message[0] =
                    static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
        } else {
            message = "the file is damaged";
        }
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    return message;
}

Handle checked(hid_t id, Handle::Closer close, const std::string& what) {
    if (id < 0) {
        const std::string why = hdf5_error_message();
        throw TableError(what + (why.empty() ? "" : ": " + why));
    }
    return Handle(id, close);
}

void check(herr_t status, const std::string& what) {
    if (status < 0) {
        const std::string why = hdf5_error_message();
        throw TableError(what + (why.empty() ? "" : ": " + why));
    }
}

void set_file_format(hid_t fapl, const std::string& what) {
    check(H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110), what);
}

void write_string_attribute(hid_t object, const char* name, const std::string& value) {
    // Fixed-length UTF-8, stored in the attribute itself: a variable-length
    // string lives in the file's global heap, which has no checksum, and
    // HDF5 follows a damaged reference there into a crash (h5py hands users
    // bytes for it: docs/FORMAT.md decodes them).
    Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(type.get(), std::max<size_t>(value.size(), 1)), "string type");
    check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "string type");
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "string type");
    Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
    Handle attr =
        checked(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose, std::string("attribute ") + name);
    std::string stored = value;
    stored.resize(std::max<size_t>(value.size(), 1), '\0');
    check(H5Awrite(attr.get(), type.get(), stored.data()), std::string("attribute ") + name);
}

void write_u64_attribute(hid_t object, const char* name, uint64_t value) {
    Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
    Handle attr =
        checked(H5Acreate2(object, name, H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose, std::string("attribute ") + name);
    check(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &value), std::string("attribute ") + name);
}

namespace {

std::optional<Handle> open_attribute(hid_t object, const char* name, const std::string& where) {
    const htri_t exists = H5Aexists(object, name);
    check(exists, where + ": attribute " + name);
    if (!exists) return std::nullopt;
    return checked(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, where + ": attribute " + name);
}

// Whether `text` is UTF-8 (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF), as every string nimtb writes is: a damaged attribute text
// would otherwise travel into messages and JSON, where it cannot be written.
bool is_utf8(std::string_view text) {
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned c = *p++;
        if (c < 0x80) continue;
        int more = 0;
        unsigned low = 0x80, high = 0xBF;  // the second byte's range
        if (c >= 0xC2 && c <= 0xDF) {
            more = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            if (c == 0xE0) low = 0xA0;
            if (c == 0xED) high = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            if (c == 0xF0) low = 0x90;
            if (c == 0xF4) high = 0x8F;
        } else {
            return false;
        }
        if (end - p < more || *p < low || *p > high) return false;
        for (++p, --more; more > 0; --more, ++p)
            if (*p < 0x80 || *p > 0xBF) return false;
    }
    return true;
}

std::string utf8_text(std::string text, const std::string& what) {
    if (!is_utf8(text)) throw TableError(what + " is not UTF-8 text: the file is damaged");
    return text;
}

}  // namespace

std::optional<std::string> read_string_attribute(hid_t object, const char* name,
                                                 const std::string& where) {
    auto attr = open_attribute(object, name, where);
    if (!attr) return std::nullopt;
    const std::string what = where + ": attribute '" + name + "'";
    Handle type = checked(H5Aget_type(attr->get()), H5Tclose, what);
    if (H5Tget_class(type.get()) != H5T_STRING) throw TableError(what + " is not a string");
    Handle space = checked(H5Aget_space(attr->get()), H5Sclose, what);
    if (H5Sget_simple_extent_npoints(space.get()) != 1)
        throw TableError(what + " is not a single string");
    if (H5Tis_variable_str(type.get()) > 0) {
        Handle mem = checked(H5Tcopy(H5T_C_S1), H5Tclose, what);
        check(H5Tset_size(mem.get(), H5T_VARIABLE), what);
        check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), what);  // HDF5 converts no charsets
        char* text = nullptr;
        check(H5Aread(attr->get(), mem.get(), &text), what);
        std::string out = text ? text : "";
        H5free_memory(text);
        return utf8_text(std::move(out), what);
    }
    const size_t size = H5Tget_size(type.get());
    if (size == 0 || size > (1 << 20)) throw TableError(what + " has an unreasonable size");
    std::vector<char> buf(size + 1, '\0');
    Handle mem = checked(H5Tcopy(H5T_C_S1), H5Tclose, what);
    check(H5Tset_size(mem.get(), size + 1), what);
    check(H5Tset_cset(mem.get(), H5Tget_cset(type.get())), what);
    check(H5Aread(attr->get(), mem.get(), buf.data()), what);
    return utf8_text(std::string(buf.data()), what);
}

std::optional<uint64_t> read_u64_attribute(hid_t object, const char* name,
                                           const std::string& where) {
    auto attr = open_attribute(object, name, where);
    if (!attr) return std::nullopt;
    const std::string what = where + ": attribute '" + name + "'";
    Handle type = checked(H5Aget_type(attr->get()), H5Tclose, what);
    if (H5Tget_class(type.get()) != H5T_INTEGER) throw TableError(what + " is not an integer");
    Handle space = checked(H5Aget_space(attr->get()), H5Sclose, what);
    if (H5Sget_simple_extent_npoints(space.get()) != 1)
        throw TableError(what + " is not a single integer");
    if (H5Tget_sign(type.get()) == H5T_SGN_2) {
        int64_t v = 0;
        check(H5Aread(attr->get(), H5T_NATIVE_INT64, &v), what);
        if (v < 0) throw TableError(what + " is negative");
        return static_cast<uint64_t>(v);
    }
    uint64_t v = 0;
    check(H5Aread(attr->get(), H5T_NATIVE_UINT64, &v), what);
    return v;
}

std::string require_string_attribute(hid_t object, const char* name, const std::string& where) {
    auto v = read_string_attribute(object, name, where);
    if (!v) throw TableError(where + ": attribute '" + name + "' is missing");
    return *v;
}

uint64_t require_u64_attribute(hid_t object, const char* name, const std::string& where) {
    auto v = read_u64_attribute(object, name, where);
    if (!v) throw TableError(where + ": attribute '" + name + "' is missing");
    return *v;
}

void require_format(hid_t root, const char* expected, const std::string& path, const char* what) {
    const auto format = read_string_attribute(root, "format", path);
    if (!format || *format != expected) {
        throw TableError(path + ": not a nimtb " + what + " (its 'format' attribute is " +
                         (format ? "'" + *format + "'" : std::string("missing")) + ", expected '" +
                         expected + "')");
    }
}

}  // namespace nimtb::io
