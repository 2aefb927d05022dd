// libFuzzer: quotient files (`nimtb quotient --output`, read by `query
// --misere --quotient`). Any input is believed only when every check
// passes; then the quotient it gives predicts positions without failing.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/base/errors.h"
#include "service/quotients.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = (std::filesystem::temp_directory_path() /
                                     ("nimtb-fuzz-quotient-" + std::to_string(::getpid())))
                                        .string();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
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
