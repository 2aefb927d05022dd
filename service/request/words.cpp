#include "service/request/words.h"

#include <array>

#include "engine/base/errors.h"
#include "service/request/events.h"

namespace nimtb::service {

namespace {

// One row per option, in the order of nimtb::Option: the command line's
// words, then Python's.
constexpr std::array<std::array<std::string_view, 2>, std::size(OPTION_IDS)> WORDS = {{
    {"output with -o", "path"},
    {"overwrite it with --force", "pass overwrite=True"},
    {"--max-total N", "max_total=N"},
    {"--max-total N without --heaps", "max_total=N without heaps"},
    {"--kernel brute", "kernel='brute'"},
    {"--checkpoint", "checkpoint"},
    {"--no-remoteness", "remoteness=False"},
    {"--output", "path"},
    {"--compression-level", "level"},
    {"--format-version", "format_version"},
    {"--stats", "stats"},
    {"--checkpoint-every", "checkpoint_every"},
    {"--kernel", "kernel"},
    {"--stream", "stream=True"},
}};

}  // namespace

std::string in_words_of(FrontEnd front_end, std::string_view message) {
    return worded(message, [front_end](Option o) {
        return std::string(WORDS[static_cast<size_t>(o)][static_cast<size_t>(front_end)]);
    });
}

std::string failure_message(const std::exception& e) {
    switch (error_kind(e)) {
        case ErrorKind::interrupted:
            return "interrupted; nothing was written";
        case ErrorKind::memory:
            return "out of memory";
        default:
            return command_line_words(e.what());
    }
}

Failure command_line_failure(const std::exception& e) {
    return {"nimtb: error: " + failure_message(e), exit_code(error_kind(e))};
}

}  // namespace nimtb::service
