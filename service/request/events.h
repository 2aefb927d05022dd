#pragma once
// The one stream every long operation reports on when asked for it
// (`--events json`): one JSON object a line, written whole and flushed, so
// that a program reading it (the server's children, a script) never reads
// a person's text.
//
//   {"event":"progress","done":D,"total":T,"fraction":F}
//   {"event":"note","message":M}            a line a person would read
//   {"event":"data","text":S}               a piece of the command's output
//                                           (dump's rows), in order
//   {"event":"result", ...}                 the answer: the command's --json
//   {"event":"error","kind":K,"message":M}  the last line of a failed run
//
// A run ends with exactly one result or one error event, or with none when
// the process was killed or crashed. The error's kind is the failure's
// class, the one thing a program may branch on (error_kind below); its
// message is for a person, in the command line's words.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace nimtb::service {

// What kind of failure a run met; each has one exit code (exit_code()).
enum class ErrorKind {
    usage,        // the request itself is wrong: a rule text, a position, a range (exit 2)
    too_large,    // well formed, but past what can be computed (a universe, a heap bound)
    memory,       // an allocation failed
    not_found,    // a file that is not there
    file,         // a file that cannot be read as what it claims to be (damaged or
                  // foreign), or cannot be written (a full disk, a folder not writable)
    interrupted,  // stopped by a signal (Ctrl-C) or a cancellation
    failed,       // anything else: a verification that found a mismatch, a bug
};

// The kind of `e`, from its type alone (engine/base/errors.h's classes).
ErrorKind error_kind(const std::exception& e);
std::string_view to_string(ErrorKind kind);
// The kind named `text` (an event's "kind"); `failed` for a name it does not know.
ErrorKind parse_error_kind(std::string_view text);
// The exit code of a command-line program that failed so: 2 for usage, else 1.
int exit_code(ErrorKind kind);

// An event stream on `out` (stdout for `--events json`). Progress is
// written at most ten times a second, and always when the work is done.
class EventStream {
  public:
    explicit EventStream(std::FILE* out) : out_(out) {}

    void progress(uint64_t done, uint64_t total);
    void note(const std::string& message);
    void data(std::string_view text);
    // `result` is an object; its keys go beside "event":"result".
    void result(const nlohmann::json& result);
    // The failure `e`, its message in the command line's words.
    void error(const std::exception& e);
    void error(ErrorKind kind, const std::string& message);

  private:
    void write(const nlohmann::json& event);
    std::FILE* out_;
    std::chrono::steady_clock::time_point last_progress_{};
    uint64_t last_done_ = UINT64_MAX;
};

// One event, parsed from a line of the stream (a reader's side): nullopt
// for a line that is not an event object.
std::optional<nlohmann::json> parse_event(std::string_view line);

}  // namespace nimtb::service
