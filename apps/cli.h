#pragma once
// What the subcommands share: usage errors, option parsing, progress on
// stderr, Ctrl-C, and the exit codes.

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/checks/verify.h"
#include "engine/sequences/period.h"
#include "engine/solve/solver.h"
#include "io/probe.h"
#include "service/request/hooks.h"
#include "service/request/progress_bar.h"
#include "service/request/solve_report.h"
#include "service/request/words.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::apps {

namespace po = boost::program_options;

// Exit codes, documented in `nimtb --help` (service/request/words.h).
using service::EXIT_OK;
using service::EXIT_USAGE;
inline constexpr int EXIT_FAILURE_ = service::EXIT_FAILED;

// Bad usage: a wrong option, argument or value. main prints it with a usage hint.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A subcommand's arguments parsed against its options. Returns nullopt after
// printing help to stdout when --help was given. Throws UsageError.
std::optional<po::variables_map> parse_arguments(
    const std::string& command, const std::vector<std::string>& args,
    const po::options_description& options, const po::positional_options_description& positional,
    const std::string& synopsis, const std::string& examples);

// An integer option read as int64_t, checked to lie in [0, max]: Boost would
// otherwise turn "-1" into a huge unsigned number.
unsigned whole_number(const po::variables_map& vm, const char* name, uint64_t max);

// How many heaps a single-heap sequence runs to (--max-heap, --limit): from
// 1 to service::MAX_SEQUENCE_HEAPS.
uint64_t heap_count(const po::variables_map& vm, const char* name);

// The hooks of a command's work: Ctrl-C stops it, notes go to stderr, and
// `bar` (when given) draws its progress.
service::Hooks command_hooks(service::ProgressBar* bar = nullptr);

// The service floor's names the commands use.
using service::census_json;
using service::count_table;
using service::find_or_solve_table;
using service::find_or_solve_universe;
using service::game_stem;
using service::heaps_json;
using service::human_count;
using service::info_json;
using service::move_json;
using service::period_json;
using service::ProgressBar;
using service::query_json;
using service::reported_period;
using service::sequence_json;
using service::stderr_is_terminal;
using service::storage_lines;

int cmd_solve(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);
int cmd_query(const std::vector<std::string>& args);
int cmd_dump(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args);
int cmd_sequence(const std::vector<std::string>& args);
int cmd_quotient(const std::vector<std::string>& args);
int cmd_play(const std::vector<std::string>& args);
int cmd_serve(const std::vector<std::string>& args);

}  // namespace nimtb::apps
