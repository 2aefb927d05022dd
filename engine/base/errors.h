#pragma once
// The errors every layer of nimtb throws, in one home below all of them, so
// that no layer includes a sibling's header to reach an error type.
//
// Each message is one line a user can act on: what was wrong and, where it
// helps, what would be right. `main` prints it as `nimtb: error: ...`.
//
// A message that tells the user to change an option names it by `mention`,
// never by a front end's spelling: the command says `--force`, Python
// `overwrite=True`. Each front end words the mentions in its own terms
// (`worded`, with its table of names) where it shows the message.

#include <stdexcept>
#include <string>
#include <string_view>

namespace nimtb {

// Malformed user input: a rule text, a position, a convention, universe limits,
// a heap beyond a table. Bad usage (exit code 2).
class InputError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// A well-formed position that lies outside a table's universe: a heap above
// its limit, too many heaps, too many tokens. The Python module raises it as
// a KeyError as well (nimtb.NotInTableError), as a missing key.
class NotInTable : public InputError {
  public:
    using InputError::InputError;
};

// A universe that cannot be solved with the memory available, or whose
// numbers would not fit the table format.
class ResourceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The one ResourceError that is this machine's, not nimtb's limit: work that
// needs more memory than is available (or than the limit given). Python
// raises MemoryError for it, and its ValueError TooLargeError for the rest.
class MemoryShortfall : public ResourceError {
  public:
    using ResourceError::ResourceError;
};

// A solve or write stopped on request (Ctrl-C); nothing is left half-written.
class Cancelled : public std::runtime_error {
  public:
    Cancelled() : std::runtime_error("interrupted") {}
};

// Any failure to read or write a table or another file nimtb keeps. The
// message names the file and, where there is one, the dataset or attribute.
class TableError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A file or folder that is not there (Python: a FileNotFoundError too).
class NoSuchFile : public TableError {
  public:
    using TableError::TableError;
};

// The options a message may ask a user to change, whatever the front end.
enum class Option {
    output,            // where a table goes (the command's -o FILE)
    overwrite,         // replace an existing file
    max_total,         // a universe of at most N tokens in all
    max_total_only,    // that universe, without a limit on the number of heaps
    kernel_brute,      // the brute-force kernel
    checkpoint,        // the folder of a resumable solve's checkpoint
    no_remoteness,     // values only
    sequence_out,      // where a sequence goes
    level,             // the compression level
    format_version,    // the table format written
    stats,             // the file of a solve's figures by level
    checkpoint_every,  // seconds between a checkpoint's writes
    kernel,            // the brute method's kernel
    stream,            // a solve streamed to disk
    until_proven,      // a sequence or quotient computed until proven
    max_heap,          // the largest heap
    limit,             // the largest heap tried until proven
    json,              // the answer whole, as JSON
    table_path,        // where a table goes, alone (the command's -o)
    solve_command,     // the solve that makes a table; its value: the request's JSON
};
constexpr std::string_view OPTION_IDS[] = {
    "output",       "overwrite",      "max_total",     "max_total_only",
    "kernel_brute", "checkpoint",     "no_remoteness", "sequence_out",
    "level",        "format_version", "stats",         "checkpoint_every",
    "kernel",       "stream",         "until_proven",  "max_heap",
    "limit",        "json",           "table_path",    "solve_command"};

// A mention of `option` inside a message: a marker `worded` replaces. With
// a value (the request of Option::solve_command), the front end words both.
inline std::string mention(Option option, std::string_view value = {}) {
    std::string marker(1, '\x1e');
    marker.append(OPTION_IDS[static_cast<int>(option)]);
    if (!value.empty()) marker.append(1, ':').append(value);
    marker.push_back('\x1f');
    return marker;
}

// `message` with each mention replaced by name(option, value): how a front
// end shows a message to its user. Text between markers that names no
// option is left as it is.
template <class Name>
std::string worded(std::string_view message, Name&& name) {
    std::string out;
    for (size_t at = 0;;) {
        const size_t open = message.find('\x1e', at);
        const size_t close = open == message.npos ? open : message.find('\x1f', open);
        if (close == message.npos) {
            out.append(message.substr(at));
            return out;
        }
        out.append(message.substr(at, open - at));
        const std::string_view marked = message.substr(open + 1, close - open - 1);
        const size_t colon = marked.find(':');
        const std::string_view id = marked.substr(0, colon);
        const std::string_view value =
            colon == std::string_view::npos ? std::string_view() : marked.substr(colon + 1);
        bool known = false;
        for (size_t i = 0; i < std::size(OPTION_IDS); ++i) {
            if (OPTION_IDS[i] == id) {
                out.append(name(static_cast<Option>(i), value));
                known = true;
            }
        }
        if (!known) out.append(marked);
        at = close + 1;
    }
}

// A word of the user's (or of a file's) as a message quotes it: long ones cut
// short, so a 100,000-character word makes a line, not a page.
inline std::string quoted(std::string_view word) {
    constexpr size_t SHOWN = 20;
    std::string out = "'";
    out.append(word.substr(0, SHOWN));
    if (word.size() <= SHOWN) return out.append("'");
    return out.append("...' (").append(std::to_string(word.size())).append(" characters)");
}

}  // namespace nimtb
