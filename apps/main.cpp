// nimtb: the command line. It only parses, calls the libraries and prints;
// the work lives in engine/ and io/.
#include <fmt/core.h>

#include <iostream>
#include <map>

#include "apps/cli.h"
#include "engine/base/errors.h"
#include "engine/base/version.h"
#include "engine/game/rule_families.h"
#include "service/request/events.h"
#include "service/request/words.h"

namespace {

constexpr const char* USAGE = R"(usage: nimtb COMMAND [OPTIONS]

An endgame tablebase for impartial heap games (Nim and its relatives).

commands:
  solve     solve every position of a universe and write a table
  info      describe a table
  query     who wins a position, its value, remoteness and every move
  dump      list positions of a table (all, P-positions, small ones)
  verify    check a table against its definition and the theorems
  play      play a game against the perfect computer (or a gentler one, or a person)
  sequence  single-heap values of a rule, to any length, with its proven period
  quotient  the misère quotient of a one-heap rule: misère play of every position, exactly
  genus     Conway's genus of every heap of a one-heap rule, and where it is wild
  serve     the tables in a browser: play, Northcott's game, explore, count

  nimtb COMMAND --help   shows the options of a command, with examples.
  nimtb --version        prints the version.

rules:
{}positions: heap sizes like "3 4 5" or 3,4,5

exit codes: 0 success; 1 failure (including a verification that found a
mismatch, a missing or damaged table, an interrupted solve, a universe too
large); 2 bad usage.

examples:
  nimtb solve --preset default
  nimtb query tables/nim-normal-k3-h15.h5 "3 4 5"
)";

// The usage, with the rule families from their one table.
std::string usage() {
    return fmt::format(USAGE, nimtb::engine::rules_help("  "));
}

}  // namespace

int main(int argc, char** argv) {
    using namespace nimtb;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << usage();
        return apps::EXIT_USAGE;
    }
    const std::string command = args.front();
    args.erase(args.begin());
    if (command == "--help" || command == "-h" || command == "help") {
        std::cout << usage();
        return apps::EXIT_OK;
    }
    if (command == "--version") {
        std::cout << "nimtb " << VERSION << "\n";
        return apps::EXIT_OK;
    }
    static const std::map<std::string, int (*)(const std::vector<std::string>&)> commands = {
        {"solve", apps::cmd_solve},       {"info", apps::cmd_info},
        {"query", apps::cmd_query},       {"dump", apps::cmd_dump},
        {"verify", apps::cmd_verify},     {"play", apps::cmd_play},
        {"sequence", apps::cmd_sequence}, {"serve", apps::cmd_serve},
        {"quotient", apps::cmd_quotient}, {"genus", apps::cmd_genus},
    };
    const auto it = commands.find(command);
    // With --events json every failure is an error event on stdout, as the
    // command's answer would have been a result event.
    const bool events = apps::wants_events(args);
    try {
        if (it == commands.end()) throw apps::UsageError("unknown command '" + command + "'");
        return it->second(args);
    } catch (const apps::UsageError& e) {
        if (events) {
            service::EventStream(stdout).error(service::ErrorKind::usage,
                                               service::command_line_words(e.what()));
            return apps::EXIT_USAGE;
        }
        fmt::print(stderr, "nimtb: error: {}\nusage: nimtb {} [OPTIONS]; see 'nimtb {}--help'\n",
                   service::command_line_words(e.what()),
                   it == commands.end() ? "COMMAND" : command,
                   it == commands.end() ? "" : command + " ");
        return apps::EXIT_USAGE;
    } catch (const std::exception& e) {
        if (events) {
            service::EventStream(stdout).error(e);
            return service::exit_code(service::error_kind(e));
        }
        const service::Failure failure = service::command_line_failure(e);
        fmt::print(stderr, "{}\n", failure.line);
        return failure.exit_code;
    }
}
