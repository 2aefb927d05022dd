#pragma once
// The command line's words for the options a message mentions
// (engine/errors.h): `nimtb` and `nimtb-mpi` show every message through it.

#include <string>
#include <string_view>

namespace nimtb::service {

// `message` with each mention of an option as the command spells it
// ("choose another output with -o or overwrite it with --force").
std::string command_line_words(std::string_view message);

}  // namespace nimtb::service
