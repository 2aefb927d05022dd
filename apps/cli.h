#pragma once
// What the subcommands share: usage errors, option parsing, progress on
// stderr, Ctrl-C, and the exit codes.

#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/periodicity.h"
#include "engine/solver.h"
#include "engine/verify.h"
#include "io/probe.h"

namespace nimtb::apps {

namespace po = boost::program_options;

// Exit codes, documented in `nimtb --help`.
inline constexpr int EXIT_OK = 0;
inline constexpr int EXIT_FAILURE_ =
    1;  // a failure, including a verification that found a mismatch
inline constexpr int EXIT_USAGE = 2;

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
// 1 to MAX_SEQUENCE_HEAPS (values are 2 bytes a heap: 2^31 heaps is 4 GiB).
inline constexpr uint64_t MAX_SEQUENCE_HEAPS = uint64_t{1} << 31;
uint64_t heap_count(const po::variables_map& vm, const char* name);

// Set by SIGINT/SIGTERM. A signal handler can only reach a global; this flag
// is the one piece of process state nimtb keeps outside an object.
std::atomic<bool>& interrupted();
void install_interrupt_handler();

// A one-line progress bar on stderr: percent, rate, time left. Drawn only
// when enabled (stderr is a terminal, or --progress), at most ten times a second.
class ProgressBar {
  public:
    ProgressBar(std::string label, bool enabled);
    ~ProgressBar();
    void update(uint64_t done, uint64_t total);
    void finish();

  private:
    std::string label_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

bool stderr_is_terminal();

// The io reader seen as the engine's TableSource.
class ReaderSource : public engine::TableSource {
  public:
    explicit ReaderSource(io::TableReader& reader) : reader_(reader) {}
    uint32_t value(uint64_t rank) override { return reader_.value(rank); }
    bool has_remoteness() const override { return reader_.has_remoteness(); }
    uint32_t remoteness(uint64_t rank) override { return reader_.remoteness(rank); }

  private:
    io::TableReader& reader_;
};

// <rule>-<convention>, with the rule made safe for a file name (subtract-1_3_4-misere).
std::string game_stem(const engine::Rule& rule, engine::Convention c);
// tables/<rule>-<convention>-k<K>-h<H>.h5 for a box,
// tables/<rule>-<convention>-n<N>[-k<K>].h5 for a total-bounded universe.
std::string default_table_path(const engine::Rule& rule, engine::Convention c,
                               const engine::Universe& u);
// The table for a game without a TABLE argument: the smallest one in `dir`
// whose universe holds `start`, or one solved now into `dir` when it is small
// (a second or two of work), or an error naming the solve to run.
std::string find_or_solve_table(const std::string& dir, const engine::Rule& rule,
                                engine::Convention c, const engine::Heaps& start);
// The same for exactly the universe `u`: a table of `dir` with the same
// universe, or `u` solved now when small (normal and misère side by side).
std::string find_or_solve_universe(const std::string& dir, const engine::Rule& rule,
                                   engine::Convention c, const engine::Universe& u);
// The options of `nimtb solve` that make `u`: "--heaps K --max-heap H" or "--max-total N".
std::string universe_options(const engine::Universe& u);
// The smallest universe that holds `start` and the rule's moves from it: a
// box of its heaps, or for rules that split heaps every position of at most
// its total.
engine::Universe smallest_universe(const engine::Rule& rule, const engine::Heaps& start);

// "1.2M", "340k", "12".
std::string human_count(double n);

// Two summary lines: the data's size as arrays and as stored, with the
// compression ratio of the data alone, then the file's size. Both `solve`
// and `info` print them from what the file holds.
std::string storage_lines(const io::TableReader& table);

int cmd_solve(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);
int cmd_query(const std::vector<std::string>& args);
int cmd_dump(const std::vector<std::string>& args);
int cmd_verify(const std::vector<std::string>& args);
int cmd_sequence(const std::vector<std::string>& args);
int cmd_play(const std::vector<std::string>& args);
int cmd_serve(const std::vector<std::string>& args);

}  // namespace nimtb::apps
