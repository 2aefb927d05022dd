#pragma once
// The harnesses' own files: one name per harness and process in the
// temporary folder (tools/fuzz.sh gives each harness a TMPDIR of its own and
// removes it afterwards), and an input written to one as it is or, for the
// checkpoints' files, inside a zstd frame with its checksum.

#include <unistd.h>
#include <zstd.h>

#include <cstddef>
#include <cstdlib>
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

// The bytes in one zstd frame with its checksum when `framed` (what a
// checkpoint writes, so that the fuzzer's bytes reach the reader past the
// decompressor), else as they are.
inline void write_zstd_file(const std::filesystem::path& path, const void* bytes, size_t size,
                            bool framed) {
    if (!framed) return write_file(path, bytes, size);
    std::string frame(ZSTD_compressBound(size), '\0');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    const size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), bytes, size);
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(n)) std::abort();
    write_file(path, frame.data(), n);
}

}  // namespace nimtb::fuzz
