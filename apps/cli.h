#pragma once
// What the subcommands share: usage errors, option parsing, progress on
// stderr, Ctrl-C, and the exit codes.

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/quotients/quotient.h"  // MAX_QUOTIENT_ORDER
#include "service/request/hooks.h"
#include "service/request/progress_bar.h"
#include "service/request/words.h"

namespace nimtb::apps {

namespace po = boost::program_options;

// Exit codes, documented in `nimtb --help` (service/request/words.h).
using service::EXIT_FAILED;
using service::EXIT_OK;
using service::EXIT_USAGE;

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

// A whole-number option's range. Every such option is declared with
// `ranged` (its help states the range) and read with `number` (its error
// states the same range), from one constant below, so that an option means
// one range in every subcommand. What a command cannot compute within the
// range (a universe too large) is refused as too large, exit 1.
struct Range {
    int64_t min;
    int64_t max;
};
inline constexpr Range HEAPS{1, 128};                             // --heaps K
inline constexpr Range MAX_HEAP{1, int64_t{UINT32_MAX}};          // --max-heap H
inline constexpr Range MAX_TOTAL{1, int64_t{UINT32_MAX}};         // --max-total N
inline constexpr Range LIMIT{1, int64_t{UINT32_MAX}};             // --limit N
inline constexpr Range THREADS{0, 1024};                          // --threads
inline constexpr Range COMPRESSION_LEVEL{1, 9};                   // --compression-level
inline constexpr Range FORMAT_VERSION{1, 2};                      // --format-version
inline constexpr Range GAMES{0, 1'000'000'000};                   // --games
inline constexpr Range ROWS{1, 8};                                // --rows
inline constexpr Range SEED{0, int64_t{UINT32_MAX}};              // --seed
inline constexpr Range PORT{0, 65535};                            // --port
inline constexpr Range TIME_LIMIT{1, 10'000'000};                 // --time-limit SECONDS
inline constexpr Range MAX_ORDER{2, engine::MAX_QUOTIENT_ORDER};  // --max-order
inline constexpr Range MAX_COPIES{1, 1000};                       // --max-copies

// `help` with the range: "K: at most this many heaps (1 to 128)".
std::string ranged(const std::string& help, Range r);

// The option `name`, checked to lie in `r` (Boost would turn "-1" into a
// huge unsigned number were it read unsigned).
uint64_t number(const po::variables_map& vm, const char* name, Range r);

// `text`, a size such as 64K, 512M or 2G, in bytes: --`name`'s value.
// Throws UsageError naming the option.
uint64_t bytes_option(const std::string& name, const std::string& text);

// A largest heap for a misère quotient: refused as too large beyond
// engine::MAX_QUOTIENT_HEAP (exit 1), as a universe too large is.
uint32_t quotient_heaps(uint64_t heaps);

// The hooks of a command's work: Ctrl-C stops it, notes go to stderr, and
// `bar` (when given) draws its progress.
service::Hooks command_hooks(service::ProgressBar* bar = nullptr);

int cmd_solve(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);
int cmd_query(const std::vector<std::string>& args);
int cmd_dump(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args);
int cmd_sequence(const std::vector<std::string>& args);
int cmd_quotient(const std::vector<std::string>& args);
int cmd_genus(const std::vector<std::string>& args);
int cmd_play(const std::vector<std::string>& args);
int cmd_serve(const std::vector<std::string>& args);

}  // namespace nimtb::apps
