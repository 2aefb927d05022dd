#include "io/output_path.h"

#include <filesystem>

#include "engine/base/errors.h"

namespace nimtb::io {

namespace fs = std::filesystem;

void check_output_kind(const std::string& path) {
    std::error_code ec;
    const fs::file_status s = fs::status(path, ec);
    if (ec || !fs::exists(s) || fs::is_regular_file(s)) return;
    const char* kind = fs::is_directory(s)                                ? "a folder"
                       : fs::is_character_file(s) || fs::is_block_file(s) ? "a device"
                       : fs::is_fifo(s)                                   ? "a pipe"
                                                                          : "not a regular file";
    throw TableError(path + " is " + kind +
                     "; nimtb writes only regular files (it would be replaced)");
}

void check_distinct(const std::string& path, const std::string& other, const std::string& roles) {
    if (path.empty() || other.empty()) return;
    std::error_code ec;
    const bool same = fs::exists(path, ec) && fs::exists(other, ec)
                          ? fs::equivalent(path, other, ec)
                          : fs::weakly_canonical(fs::absolute(path), ec) ==
                                fs::weakly_canonical(fs::absolute(other), ec);
    if (same) throw TableError(path + ": " + roles + "; give them different files");
}

}  // namespace nimtb::io
