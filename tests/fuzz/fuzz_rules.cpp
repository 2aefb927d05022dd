// libFuzzer: rule texts and position texts. Any input either parses or is
// refused with InputError; a parsed rule's canonical text parses to the
// same rule (and is its own canonical text).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/base/errors.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const nimtb::engine::Rule rule = nimtb::engine::Rule::parse(text);
        const std::string canonical = rule.canonical();
        const nimtb::engine::Rule again = nimtb::engine::Rule::parse(canonical);
        if (!(again == rule) || again.canonical() != canonical) std::abort();
    } catch (const nimtb::InputError&) {
    }
    try {
        (void)nimtb::engine::parse_heaps(text);
    } catch (const nimtb::InputError&) {
    }
    return 0;
}
