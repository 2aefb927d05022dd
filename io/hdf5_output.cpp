#include "io/hdf5_output.h"

namespace nimtb::io {

Hdf5Output::Hdf5Output(std::string path, std::string what)
    : what_(std::move(what)), draft_(std::move(path)) {
    init_hdf5();
    const std::string& tmp = draft_.draft();
    Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, tmp + ": cannot create");
    set_file_format(fapl.get(), tmp + ": cannot create");
    file_ = checked(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                    tmp + ": cannot create");
}

Hdf5Output::~Hdf5Output() {
    if (committed_) return;
    release_space();
    file_.close();  // before the draft, a member, removes the file
}

void Hdf5Output::release_space() {
    draft_.release_space();
}

void Hdf5Output::commit() {
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0 || !file_.close()) {
        const std::string why = hdf5_error_message();
        release_space();
        throw TableError(draft_.draft() + ": cannot finish writing the " + what_ + ": " + why);
    }
    draft_.publish();
    committed_ = true;
}

}  // namespace nimtb::io
