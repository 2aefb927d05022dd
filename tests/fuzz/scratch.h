#pragma once
// The harnesses' own files: one name per harness and process in the
// temporary folder (tools/fuzz.sh gives each harness a TMPDIR of its own and
// removes it afterwards), and an input written to one as it is.

#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

namespace nimtb::fuzz {

inline std::filesystem::path scratch_path(const std::string& name, const std::string& suffix = "") {
    return std::filesystem::temp_directory_path() /
           ("nimtb-fuzz-" + name + "-" + std::to_string(::getpid()) + suffix);
}

inline void write_file(const std::filesystem::path& path, const void* bytes, size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
}

}  // namespace nimtb::fuzz
