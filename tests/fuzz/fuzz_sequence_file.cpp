// libFuzzer: sequence files (`nimtb sequence --output`, read by `query
// --sequence` and `nimtb.read_sequence`), HDF5 files of their own. Any file
// is refused with TableError, or read; then positions within its values, and
// beyond them where it claims a proven period, are answered, and a winning
// move leads to a position of value 0.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "scratch.h"
#include "service/sequences.h"
#include "service/views.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = nimtb::fuzz::scratch_path("sequence", ".h5").string();
    nimtb::fuzz::write_file(path, data, size);
    try {
        const nimtb::service::ProvenGame g = nimtb::service::proven_game(path, std::nullopt);
        const uint64_t known = g.game.known_up_to();
        for (const uint64_t heap : {uint64_t{1}, uint64_t{7}, known, uint64_t{1'000'000'000'000}}) {
            if (heap > known) continue;
            const std::vector<uint64_t> heaps{heap, 3, 5};
            (void)nimtb::service::proven_answer_json(g, heaps);
            if (const auto move = g.game.winning_move(heaps)) {
                std::vector<uint64_t> after;
                for (size_t i = 0; i < heaps.size(); ++i)
                    if (i != move->index) after.push_back(heaps[i]);
                after.insert(after.end(), move->leaves.begin(), move->leaves.end());
                if (g.game.value(after) != 0) std::abort();
            }
        }
    } catch (const nimtb::TableError&) {
    } catch (const nimtb::InputError&) {
    }
    return 0;
}
