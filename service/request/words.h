#pragma once
// Each front end's words for the options a message mentions
// (engine/base/errors.h, `mention`): the command line's flags, Python's keyword
// arguments. Every front end shows every message through `in_words_of`.

#include <string>
#include <string_view>

namespace nimtb::service {

enum class FrontEnd { command_line, python };

// `message` with each mention of an option as `front_end` spells it: "choose
// another output with -o or overwrite it with --force" on the command line,
// "choose another path or pass overwrite=True" in Python.
std::string in_words_of(FrontEnd front_end, std::string_view message);

// The command line's words (nimtb, nimtb-mpi).
inline std::string command_line_words(std::string_view message) {
    return in_words_of(FrontEnd::command_line, message);
}

}  // namespace nimtb::service
