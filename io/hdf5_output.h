#pragma once
// A new HDF5 file that appears under its name only when whole: written as a
// draft (io/codec/publish.h), then flushed, closed and published by
// commit(). On any failure, or when commit() is never reached, nothing is
// left under either name. For io/ only.

#include <string>

#include "io/codec/publish.h"
#include "io/hdf5_handle.h"

namespace nimtb::io {

class Hdf5Output {
  public:
    // Creates the draft of `path`. Throws TableError (`what`: "table", "sequence").
    Hdf5Output(std::string path, std::string what);
    ~Hdf5Output();
    Hdf5Output(const Hdf5Output&) = delete;
    Hdf5Output& operator=(const Hdf5Output&) = delete;

    hid_t root() const { return file_.get(); }
    const std::string& path() const { return draft_.path(); }

    // After a failed write (a full disk above all), HDF5 cannot close a file
    // whose cached data it cannot flush, and then crashes at exit. Emptying
    // the temporary file first gives the flush room; call it before the
    // handles of the failed write close.
    void release_space();

    // Flush and close (a full disk shows up here at the latest), then
    // publish. Throws TableError.
    void commit();

  private:
    std::string what_;
    FileDraft draft_;
    Handle file_;
    bool committed_ = false;
};

}  // namespace nimtb::io
