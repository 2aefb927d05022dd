#pragma once
// What the subcommands share: usage errors, option parsing, progress on
// stderr, Ctrl-C, and the exit codes.

#include <boost/program_options.hpp>
#include <cstdio>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/quotients/quotient.h"  // MAX_QUOTIENT_ORDER
#include "service/request/events.h"
#include "service/request/fields.h"
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
// states the same range), from one constant (service/request/fields.h for
// the ranges requests share, below for the rest), so that an option means
// one range in every subcommand and in every request's JSON. What a command
// cannot compute within the range (a universe too large) is refused as too
// large, exit 1.
using service::HEAPS;
using service::LIMIT;
using service::MAX_COPIES;
using service::MAX_HEAP;
using service::MAX_TOTAL;
using service::Range;
using service::SEQUENCE_MAX_HEAP;
using service::THREADS;
using service::TIME_LIMIT;
inline constexpr Range COMPRESSION_LEVEL{1, 9};                   // --compression-level
inline constexpr Range FORMAT_VERSION{1, 2};                      // --format-version
inline constexpr Range GAMES{0, 1'000'000'000};                   // --games
inline constexpr Range ROWS{1, 8};                                // --rows
inline constexpr Range SEED{0, int64_t{UINT32_MAX}};              // --seed
inline constexpr Range PORT{0, 65535};                            // --port
inline constexpr Range MAX_ORDER{2, engine::MAX_QUOTIENT_ORDER};  // --max-order

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

// The options every long command (solve, sequence, quotient, genus, dump,
// verify) takes beside its own: `--request JSON`, the request as its JSON
// (the keys of Python's keywords) in place of the other options, and
// `--events json`, one JSON event a line on stdout (service/request/events.h)
// in place of the text.
void add_request_options(po::options_description& options);
// The request of --request, parsed; nullopt without it. Throws UsageError
// when other options of the request's are given beside it (`own`: those
// that are not: the table, --progress, ...).
std::optional<nlohmann::json> request_option(const po::variables_map& vm,
                                             std::initializer_list<const char*> own = {});
// Whether `args` ask for events (--events json): main reads it before the
// command parses its options, so that even a usage error is an event.
bool wants_events(const std::vector<std::string>& args);

// How a long command reports: to a person (text on stdout, a progress bar
// and notes on stderr), or as events on stdout (--events json).
class Report {
  public:
    // `label`: the progress bar's; `bar`: whether a person sees one (a terminal, --progress).
    Report(const po::variables_map& vm, std::string label, bool bar);
    bool events() const { return events_.has_value(); }
    // Ctrl-C, notes and progress, to the bar or as events.
    service::Hooks hooks();
    // The work is done: the bar ends its line.
    void finish() { bar_.finish(); }
    // The answer: the result event, or `text()` printed on stdout.
    template <class Text>
    void result(const nlohmann::json& j, Text&& text) {
        finish();
        if (events_) {
            events_->result(j);
        } else {
            const std::string out = text();
            std::fwrite(out.data(), 1, out.size(), stdout);
        }
    }
    // A piece of output that goes to stdout as it comes (dump's rows, in
    // pieces of about 64 KiB: one data event each).
    void data(std::string_view text);

  private:
    std::optional<service::EventStream> events_;
    service::ProgressBar bar_;
};

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
