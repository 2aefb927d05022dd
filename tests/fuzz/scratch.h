#pragma once
// The harnesses' own files: one name per harness and process in the
// temporary folder (tools/fuzz.sh gives each harness a TMPDIR of its own and
// removes it afterwards), and an input written to one as it is or, for the
// checkpoints' files, inside a zstd frame with its checksum.

#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
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

// A checkpoint folder made anew at `dir` from one input: a flags byte, two
// bytes of the manifest's length (little endian), the manifest, then the
// bytes of its one data file, named name(flags) and put in a zstd frame when
// flags bit 0 is set. The flags, or nullopt for an input too short for them.
template <class Name>
std::optional<uint8_t> write_checkpoint_folder(const std::filesystem::path& dir,
                                               const uint8_t* data, size_t size, Name&& name) {
    if (size < 3) return std::nullopt;
    const uint8_t flags = data[0];
    const size_t manifest_size = std::min<size_t>(size - 3, data[1] | size_t{data[2]} << 8);
    const uint8_t* manifest = data + 3;
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir);
    write_file(dir / "manifest.json", manifest, manifest_size);
    write_zstd_file(dir / name(flags), manifest + manifest_size, size - 3 - manifest_size,
                    flags & 1);
    return flags;
}

}  // namespace nimtb::fuzz
