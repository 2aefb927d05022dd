#pragma once
// Where nimtb may put a file it writes. Checked before any work, so that a
// long solve does not end in a refusal, and so that the rename that puts a
// finished file in place never replaces what is not a file of nimtb's.

#include <string>

namespace nimtb::io {

// Throws TableError when `path` exists and is not a regular file (a device
// such as /dev/null, a folder, a pipe, a socket): renaming a finished file
// over it would replace it.
void check_output_kind(const std::string& path);

// Throws TableError when `path` and `other` name the same file (the same
// path, or two names of one existing file); `roles` says what each is, as
// "--stats is also the table (-o)".
void check_distinct(const std::string& path, const std::string& other, const std::string& roles);

}  // namespace nimtb::io
