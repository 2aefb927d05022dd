#pragma once
// Each front end's words for the options a message mentions
// (engine/base/errors.h, `mention`): the command line's flags, Python's keyword
// arguments. Every front end shows every message through `in_words_of`.

#include <exception>
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

// Exit codes of the command-line programs, documented in `nimtb --help`.
inline constexpr int EXIT_OK = 0;
inline constexpr int EXIT_FAILED = 1;  // a failure, including a verification that found a mismatch
inline constexpr int EXIT_USAGE = 2;   // bad input

// What a failure says to a person, in the command line's words: its
// message, or what an interruption or a failed allocation means.
std::string failure_message(const std::exception& e);

// How the command-line programs (nimtb, nimtb-mpi) report a failure: the
// line they print ("nimtb: error: " and failure_message) and their exit
// code (service/request/events.h: exit_code of its kind).
struct Failure {
    std::string line;
    int exit_code;
};
Failure command_line_failure(const std::exception& e);

}  // namespace nimtb::service
