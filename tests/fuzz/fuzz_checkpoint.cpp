// libFuzzer: checkpoint folders (`nimtb solve --checkpoint DIR`): the
// manifest and a file of levels, read back when a solve resumes. Any folder
// is either refused with TableError or restores whole levels into the
// solve's arrays, never past them; levels restored and saved again restore
// to the same arrays.
//
// The input: a flags byte, two bytes of the manifest's length (little
// endian), the manifest, then the levels file's bytes. Flags: bit 0, the
// harness compresses those bytes into a zstd frame with its checksum itself
// (so mutations reach the level records, not only the frame); bit 1, the
// solve keeps no remoteness; bits 2-4, the last level the file's name claims.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/base/errors.h"
#include "engine/solve/solve_order.h"
#include "engine/solve/solver.h"
#include "scratch.h"
#include "service/request/checkpoint.h"

namespace {

namespace fs = std::filesystem;
using namespace nimtb;

// The plan key of every seed's manifest.
constexpr const char* PLAN_KEY = "fuzz";

engine::Solution fresh(const engine::Universe& u, bool remoteness) {
    engine::Solution s{.rule = engine::Rule::nim()};
    s.value = engine::QuantityArray(u.size(), 8);
    if (remoteness) s.remoteness = engine::QuantityArray(u.size(), 8);
    return s;
}

bool same(const engine::QuantityArray& a, const engine::QuantityArray& b, uint64_t n) {
    if (a.empty() != b.empty()) return false;
    for (uint64_t r = 0; !a.empty() && r < n; ++r)
        if (a.get(r) != b.get(r)) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fs::path dir = fuzz::scratch_path("checkpoint");
    const std::optional<uint8_t> written =
        fuzz::write_checkpoint_folder(dir, data, size, [](uint8_t flags) {
            return "levels-000000-00000" + std::to_string((flags >> 2) & 7) + ".zst";
        });
    if (!written) return 0;
    const uint8_t flags = *written;

    // Three heaps of at most 3: 20 positions in 10 levels.
    const engine::Universe u(3, 3);
    const engine::SolveOrder plan = engine::make_order(u, engine::choose_block_heaps(u));
    const bool remoteness = !(flags & 2);
    const service::CheckpointIdentity id{"nim", "normal", u.describe(), "brute", remoteness, 1};
    try {
        engine::Solution s = fresh(u, remoteness);
        size_t restored = 0;
        {
            service::Checkpoint checkpoint(dir.string(), id, std::chrono::milliseconds(0));
            restored = checkpoint.restore(PLAN_KEY, plan, s);
            if (restored > plan.levels()) std::abort();
        }
        if (restored == 0) return 0;
        // Saved again in a new folder and restored: the same arrays.
        const fs::path again = dir / "again";
        engine::Solution t = fresh(u, remoteness);
        {
            service::Checkpoint checkpoint(again.string(), id, std::chrono::milliseconds(0));
            if (checkpoint.restore(PLAN_KEY, plan, t) != 0) std::abort();
            for (size_t l = 0; l < restored; ++l) checkpoint.save(plan, l, s);
        }
        engine::Solution r = fresh(u, remoteness);
        service::Checkpoint checkpoint(again.string(), id, std::chrono::milliseconds(0));
        if (checkpoint.restore(PLAN_KEY, plan, r) != restored) std::abort();
        if (!same(s.value, r.value, u.size()) || !same(s.remoteness, r.remoteness, u.size()))
            std::abort();
    } catch (const TableError&) {
    }
    return 0;
}
