#include "io/hdf5_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/output_path.h"

namespace nimtb::io {

namespace {

void sync_path(const std::string& path, bool directory) {
    const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0) return;
    const int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0 && !directory)
        throw TableError(path + ": cannot sync to disk: " + std::strerror(errno));
}

}  // namespace

Hdf5Output::Hdf5Output(std::string path, std::string what)
    : path_(std::move(path)),
      what_(std::move(what)),
      tmp_(path_ + ".tmp-" + std::to_string(::getpid())) {
    init_hdf5();
    Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, tmp_ + ": cannot create");
    set_file_format(fapl.get(), tmp_ + ": cannot create");
    file_ = checked(H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                    tmp_ + ": cannot create");
}

Hdf5Output::~Hdf5Output() {
    if (committed_) return;
    release_space();
    file_.close();
    std::remove(tmp_.c_str());
}

void Hdf5Output::release_space() {
    if (::truncate(tmp_.c_str(), 0) != 0) {
        // Nothing more to do: the error being reported is the real one.
    }
}

void Hdf5Output::commit() {
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0 || !file_.close()) {
        const std::string why = hdf5_error_message();
        release_space();
        throw TableError(tmp_ + ": cannot finish writing: " + why);
    }
    // Synced bytes first, then the name: a file under the final name is whole.
    sync_path(tmp_, false);
    check_output_kind(path_);  // made a device or a folder while we wrote?
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        throw TableError(path_ + ": cannot rename the finished " + what_ +
                         " into place: " + std::strerror(errno));
    }
    committed_ = true;
    const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    sync_path(parent.empty() ? "." : parent.string(), true);
}

}  // namespace nimtb::io
