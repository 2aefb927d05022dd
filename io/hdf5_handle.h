#pragma once
// Small RAII and error helpers over the HDF5 C library, for io/ only.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>

#include "engine/base/errors.h"

namespace nimtb::io {

// Called before any other use of HDF5 on a thread: turns off HDF5's printing
// of error stacks to stderr on this thread (nimtb reports errors itself, in
// one line) and, once, registers nimtb's Blosc and LZ4 filters
// (hdf5_filters.h). Idempotent and thread-safe; throws TableError if HDF5
// refuses the filters.
void init_hdf5();

// The innermost message of HDF5's current error stack ("" if none), e.g.
// "data error detected by Fletcher32 checksum".
std::string hdf5_error_message();

// Owns one hid_t and closes it with the matching H5?close.
class Handle {
  public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer closer) : id_(id), close_(closer) {}
    ~Handle() { reset(); }
    Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = o.id_;
            close_ = o.close_;
            o.id_ = H5I_INVALID_HID;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    // Closes now and reports whether HDF5 succeeded (a file close flushes).
    bool close() {
        if (id_ < 0) return true;
        const herr_t status = close_(id_);
        id_ = H5I_INVALID_HID;
        return status >= 0;
    }
    void reset() { close(); }

  private:
    hid_t id_ = H5I_INVALID_HID;
    Closer close_ = nullptr;
};

// Wraps an id just returned by HDF5; throws TableError(`what`: HDF5's reason) if negative.
Handle checked(hid_t id, Handle::Closer close, const std::string& what);
void check(herr_t status, const std::string& what);

// Sets the file format nimtb writes on a file-access property list: HDF5
// 1.10's, whose superblock, object headers and chunk indices carry
// checksums (h5py on Debian bundles HDF5 1.10 and reads it).
void set_file_format(hid_t fapl, const std::string& what);

void write_string_attribute(hid_t object, const char* name, const std::string& value);
void write_u64_attribute(hid_t object, const char* name, uint64_t value);
// Reads an attribute; nullopt if it is missing; throws if it has another type.
std::optional<std::string> read_string_attribute(hid_t object, const char* name,
                                                 const std::string& where);
std::optional<uint64_t> read_u64_attribute(hid_t object, const char* name,
                                           const std::string& where);
// The same, a missing attribute being an error: TableError("`where`:
// attribute 'name' is missing").
std::string require_string_attribute(hid_t object, const char* name, const std::string& where);
uint64_t require_u64_attribute(hid_t object, const char* name, const std::string& where);
// Throws TableError("`path`: not a nimtb `what` (its 'format' attribute is
// ...)") unless the root's `format` attribute is `expected`.
void require_format(hid_t root, const char* expected, const std::string& path, const char* what);

}  // namespace nimtb::io
