// libFuzzer: quotient files (`nimtb quotient --output`, read by `query
// --misere --quotient`). Any input is believed only when every check
// passes; then the quotient it gives predicts positions without failing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/errors.h"
#include "scratch.h"
#include "service/quotients.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = nimtb::fuzz::scratch_path("quotient").string();
    nimtb::fuzz::write_file(path, data, size);
    try {
        const nimtb::service::StoredQuotient q = nimtb::service::read_quotient(path, {});
        const std::vector<uint64_t> heaps{1, 2, 3, 1'000'000'007};
        for (uint64_t h : heaps) {
            if (h <= q.quotient.monoid.max_heap() || q.quotient.proof)
                (void)nimtb::service::misere_answer_json(q.rule, q.quotient, {h, 1, 2});
        }
    } catch (const nimtb::TableError&) {
    } catch (const nimtb::InputError&) {
    }
    return 0;
}
