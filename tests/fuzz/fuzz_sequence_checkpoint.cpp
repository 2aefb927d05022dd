// libFuzzer: sequence checkpoint folders (`nimtb sequence --checkpoint DIR`):
// the manifest and a file of values, read back when a sequence resumes. Any
// folder is either refused with TableError or gives values from heap 0 on,
// as many as saved() says; values read, one more saved and the folder read
// again begin with the same values and the one more.
//
// The input: a flags byte, two bytes of the manifest's length (little
// endian), the manifest, then the values file's bytes. Flags: bit 0, the
// harness compresses those bytes into a zstd frame with its checksum itself
// (so mutations reach the content, not only the frame); bits 1-3, the first
// heap the file's name claims.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "scratch.h"
#include "service/sequence_checkpoint.h"

namespace {

namespace fs = std::filesystem;
using namespace nimtb;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path dir = fuzz::scratch_path("sequence-checkpoint");
    const std::optional<uint8_t> written =
        fuzz::write_checkpoint_folder(dir, data, size, [](uint8_t flags) {
            return "values-00000000000" + std::to_string((flags >> 1) & 7) + ".zst";
        });
    if (!written) return 0;

    const engine::Rule rule = engine::Rule::parse("grundy");
    std::vector<uint16_t> read;
    try {
        service::SequenceCheckpoint ck(dir.string(), rule);
        if (ck.saved() != ck.values().size()) std::abort();
        read = ck.values();
        std::vector<uint16_t> more = read;
        more.push_back(static_cast<uint16_t>(read.size()));
        ck.save(more);
    } catch (const TableError&) {
        return 0;
    }
    try {
        service::SequenceCheckpoint again(dir.string(), rule);
        read.push_back(static_cast<uint16_t>(read.size()));
        const std::vector<uint16_t>& got = again.values();
        if (got.size() < read.size() || !std::equal(read.begin(), read.end(), got.begin()))
            std::abort();
        again.remove();
    } catch (const TableError&) {
        std::abort();  // what was read and saved reads again
    }
    return 0;
}
