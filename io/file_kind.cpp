#include "io/file_kind.h"

#include <hdf5.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "engine/base/errors.h"
#include "io/codec/table_format.h"
#include "io/hdf5_handle.h"
#include "io/sequence_file.h"

namespace nimtb::io {

FileKind file_kind(const std::string& path) {
    init_hdf5();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw TableError(path + ": is a folder, not a file");
    if (!std::filesystem::is_regular_file(path, ec)) return FileKind::other;
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        std::ifstream in(path, std::ios::binary);
        char c = 0;
        while (in.get(c) && std::isspace(static_cast<unsigned char>(c))) {
        }
        return in && c == '{' ? FileKind::quotient : FileKind::other;
    }
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        H5Eclear2(H5E_DEFAULT);
        return FileKind::other;
    }
    Handle owner(file, H5Fclose);
    const auto format = read_string_attribute(file, "format", path);
    if (format == FORMAT_NAME) return FileKind::table;
    if (format == SEQUENCE_FORMAT_NAME) return FileKind::sequence;
    return FileKind::other;
}

}  // namespace nimtb::io
