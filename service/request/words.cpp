#include "service/request/words.h"

#include <array>
#include <nlohmann/json.hpp>

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
    {"--until-proven", "until_proven=True"},
    {"--max-heap", "max_heap"},
    {"--limit", "limit"},
    {"--json", "the answer's elements"},
    {"-o", "path"},
    {"nimtb solve", "nimtb.solve"},
}};

// The solve that makes a table (`value`: its request's JSON, as solve_hint
// writes it) in a front end's words: the command, or Python's call.
std::string solve_words(FrontEnd front_end, std::string_view value) {
    const nlohmann::json r = nlohmann::json::parse(value, nullptr, false);
    if (r.is_discarded() || !r.is_object())  // no request: the command alone, as the table says
        return std::string(
            WORDS[static_cast<size_t>(Option::solve_command)][static_cast<size_t>(front_end)]);
    const bool misere = r.value("convention", "normal") == "misere";
    const std::string rules = r.value("rules", "nim");
    const auto number = [&](const char* key) { return r.value(key, uint64_t{0}); };
    if (front_end == FrontEnd::python) {
        std::string call = "nimtb.solve(\"" + rules + "\", PATH";
        if (misere) call += ", misere=True";
        if (r.contains("max_heap"))
            call += ", heaps=" + std::to_string(number("heaps")) +
                    ", max_heap=" + std::to_string(number("max_heap"));
        else
            call += ", max_total=" + std::to_string(number("max_total")) +
                    (r.contains("heaps") ? ", heaps=" + std::to_string(number("heaps")) : "");
        return call + ")";
    }
    std::string command = "nimtb solve --rules " + rules + (misere ? " --misere" : "");
    if (r.contains("max_heap"))
        command += " --heaps " + std::to_string(number("heaps")) + " --max-heap " +
                   std::to_string(number("max_heap"));
    else
        command += " --max-total " + std::to_string(number("max_total")) +
                   (r.contains("heaps") ? " --heaps " + std::to_string(number("heaps")) : "");
    return command;
}

}  // namespace

std::string in_words_of(FrontEnd front_end, std::string_view message) {
    return worded(message, [front_end](Option o, std::string_view value) {
        if (o == Option::solve_command) return solve_words(front_end, value);
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
