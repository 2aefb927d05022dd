#pragma once
// The errors every layer of nimtb throws, in one home below all of them, so
// that no layer includes a sibling's header to reach an error type.
//
// Each message is one line a user can act on: what was wrong and, where it
// helps, what would be right. `main` prints it as `nimtb: error: ...`.

#include <stdexcept>

namespace nimtb {

// Malformed user input: a rule text, a position, a convention, universe limits,
// a heap beyond a table. Bad usage (exit code 2).
class InputError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// A universe that cannot be solved with the memory available, or whose
// numbers would not fit the table format.
class ResourceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
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

}  // namespace nimtb
