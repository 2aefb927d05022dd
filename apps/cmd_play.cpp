#include <fmt/core.h>

#include <filesystem>
#include <iostream>
#include <random>

#include "apps/cli.h"
#include "play/northcott.h"
#include "play/session.h"
#include "service/tables.h"

namespace nimtb::apps {
namespace {

constexpr const char* PLAY_EXAMPLES = R"(examples:
  nimtb play                                   # Nim from 3 4 5 against the perfect computer
  nimtb play --layout random --level easy
  nimtb play --rules subtract:1-3 --layout matches --first computer
  nimtb play tables/nim-misere-k4-h20.h5 --layout marienbad
  nimtb play --opponent human                  # two people at one keyboard
  nimtb play --watch --level perfect,learning --games 100 --seed 7
  nimtb play --game northcott --rows 4         # Northcott's game, played from a Nim table
  nimtb play --game northcott --start "1-12 3-7 5-6"

Levels: perfect (always the best move), medium (20% random moves), easy (50%),
random (random moves, but takes a win it can finish at once), learning (the
matchbox learner: it gets better from its games; its bags persist in a file).
Layouts: )";

// `play --game northcott`: the board's gaps are Nim heaps of at most 10.
int play_northcott(const po::variables_map& vm, play::Level level, bool two_people,
                   bool person_first) {
    for (const char* o : {"table", "misere", "watch", "games", "learning-file", "trace"}) {
        if (vm.count(o) && !vm[o].defaulted())
            throw UsageError(std::string("--") + o + " does not go with --game northcott");
    }
    if (!vm["rules"].defaulted()) throw UsageError("Northcott's game is played by its own rules");
    play::NorthcottOptions no;
    no.rows = static_cast<unsigned>(number(vm, "rows", ROWS));
    const std::string layout = vm["layout"].as<std::string>();
    if (vm.count("start")) {
        if (!vm["layout"].defaulted()) throw UsageError("give --start or --layout, not both");
        no.start = play::NorthcottBoard::parse(vm["start"].as<std::string>());
        no.rows = static_cast<unsigned>(no.start->rows().size());
    } else if (layout == "aligned") {
        no.random_start = false;
    } else if (layout != "random" && !vm["layout"].defaulted()) {
        throw UsageError("with --game northcott, --layout is random or aligned");
    }
    if (level == play::Level::learning)
        throw UsageError("the learning level plays heap games only");
    no.level = level;
    no.two_people = two_people;
    no.person_first = person_first;
    no.seed = vm.count("seed") ? number(vm, "seed", SEED) : std::random_device{}();
    const std::string table = service::find_or_solve_table(
        "tables", engine::Rule::parse("nim"), engine::Convention::normal,
        engine::Heaps(no.rows, play::NorthcottBoard::WIDTH - 2), command_hooks());
    fmt::print(stderr, "nimtb: playing from {}\n", table);
    io::Prober nim(table);
    play::play_northcott(nim, no, std::cin, std::cout);
    return EXIT_OK;
}

}  // namespace

int cmd_play(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>(),
                       "play from this table (rules and convention come from it)")(
        "rules,r", po::value<std::string>()->default_value("nim"), "the rule, without a TABLE")(
        "misere", "misere play, without a TABLE")("start,s", po::value<std::string>(),
                                                  "the starting heaps, e.g. \"3 4 5\"")(
        "layout,l", po::value<std::string>()->default_value("classic"),
        "a named start (see below)")("first", po::value<std::string>()->default_value("me"),
                                     "who moves first: me or computer")(
        "opponent", po::value<std::string>()->default_value("computer"), "computer or human")(
        "watch", "computer against computer")(
        "level", po::value<std::string>()->default_value("perfect"),
        "the computer's level; with --watch LEVEL1,LEVEL2 for the two sides")(
        "seed", po::value<int64_t>(),
        ranged("seed of the random choices (default: a fresh one)", SEED).c_str())(
        "games", po::value<int64_t>()->default_value(0),
        ranged("play this many games without asking (0: ask)", GAMES).c_str())(
        "learning-file", po::value<std::string>(), "where the learning level keeps its bags")(
        "trace", "print each transition of the game's state machine")(
        "game", po::value<std::string>()->default_value("heaps"),
        "heaps, or northcott: Northcott's game on a board of 12 columns")(
        "rows", po::value<int64_t>()->default_value(3),
        ranged("with --game northcott: the rows", ROWS).c_str());
    po::positional_options_description pos;
    pos.add("table", 1);
    const auto vm = parse_arguments(
        "play", args, opts, pos,
        "[TABLE] [--rules R] [--misere] [--start \"3 4 5\" | --layout NAME] [--first me|computer] "
        "[--opponent computer|human] [--watch] [--level L] [--seed N] [--trace]",
        std::string(PLAY_EXAMPLES) + play::layout_names() + "\n");
    if (!vm) return EXIT_OK;

    play::SessionOptions so;

    // 1. Who plays (checked before any table is looked for or solved).
    const std::string levels = (*vm)["level"].as<std::string>();
    const size_t comma = levels.find(',');
    const play::Level l1 = play::parse_level(levels.substr(0, comma));
    const play::Level l2 =
        comma == std::string::npos ? l1 : play::parse_level(levels.substr(comma + 1));
    const std::string opponent = (*vm)["opponent"].as<std::string>(),
                      first = (*vm)["first"].as<std::string>();
    if (opponent != "computer" && opponent != "human")
        throw UsageError("--opponent is computer or human");
    if (first != "me" && first != "computer") throw UsageError("--first is me or computer");
    // Options that would do nothing in this game are refused, with the reason.
    const bool watch = vm->count("watch") > 0, two_people = opponent == "human";
    auto given = [&](const char* o) { return vm->count(o) && !(*vm)[o].defaulted(); };
    if (comma != std::string::npos && !watch)
        throw UsageError(
            "--level L1,L2 sets the two computers of --watch; against a person give one level");
    if (watch && given("opponent"))
        throw UsageError("--watch is computer against computer; --opponent does not go with it");
    if (watch && given("first"))
        throw UsageError("--first does not go with --watch: computer 1 moves first");
    if (two_people && given("level"))
        throw UsageError("--level sets the computer's play; a game between two people has none");
    if (two_people && given("first"))
        throw UsageError("--first does not go with --opponent human: player 1 moves first");
    if (given("learning-file") && l1 != play::Level::learning && l2 != play::Level::learning)
        throw UsageError("--learning-file goes with the learning level (--level learning)");

    so.games = static_cast<unsigned>(number(*vm, "games", GAMES));
    const std::string game = (*vm)["game"].as<std::string>();
    if (game == "northcott") return play_northcott(*vm, l1, opponent == "human", first == "me");
    if (game != "heaps") throw UsageError("--game is heaps or northcott");
    if (!(*vm)["rows"].defaulted()) throw UsageError("--rows goes with --game northcott");

    // 2. The start, and the table that holds it.
    std::mt19937_64 seeder(vm->count("seed") ? number(*vm, "seed", SEED) : std::random_device{}());
    so.seed = seeder();
    so.layout = (*vm)["layout"].as<std::string>();
    engine::Heaps need;
    if (vm->count("start")) {
        if (!(*vm)["layout"].defaulted()) throw UsageError("give --start or --layout, not both");
        so.start = engine::parse_heaps((*vm)["start"].as<std::string>());
        need = *so.start;
    } else {
        // A random start is drawn within the table found for the layout.
        need = play::layout_needs(so.layout, engine::Rule::parse((*vm)["rules"].as<std::string>()),
                                  seeder);
    }
    std::string table;
    if (vm->count("table")) {
        if (!(*vm)["rules"].defaulted() || vm->count("misere")) {
            throw UsageError(
                "the rules and convention come from the table; leave out --rules and --misere");
        }
        table = (*vm)["table"].as<std::string>();
    } else {
        const engine::Rule rule = engine::Rule::parse((*vm)["rules"].as<std::string>());
        table = service::find_or_solve_table(
            "tables", rule,
            vm->count("misere") ? engine::Convention::misere : engine::Convention::normal, need,
            command_hooks());
        fmt::print(stderr, "nimtb: playing from {}\n", table);
    }
    io::Prober prober(table);

    if (watch) {
        so.sides[0] = {false, l1, fmt::format("computer 1 ({})", play::to_string(l1))};
        so.sides[1] = {false, l2, fmt::format("computer 2 ({})", play::to_string(l2))};
    } else if (two_people) {
        so.sides[0] = {true, l1, "player 1"};
        so.sides[1] = {true, l1, "player 2"};
    } else {
        const play::Side person{true, l1, "you"};
        const play::Side computer{false, l1, fmt::format("computer ({})", play::to_string(l1))};
        so.sides = first == "me" ? std::array<play::Side, 2>{person, computer}
                                 : std::array<play::Side, 2>{computer, person};
    }
    so.brief = vm->count("watch") && so.games > 0;
    so.trace = vm->count("trace") > 0;
    if (vm->count("learning-file")) {
        so.learning_file = (*vm)["learning-file"].as<std::string>();
    } else {
        so.learning_file = "tables/learning-" +
                           service::game_stem(prober.rule(), prober.table().info().convention) +
                           ".json";
        if (l1 == play::Level::learning || l2 == play::Level::learning) {
            std::filesystem::create_directories("tables");
        }
    }

    // 3. Play. Bags and tables are flushed as they go; Ctrl-C just ends the process.
    play::Session session(prober, so, std::cin, std::cout);
    const play::SessionSummary s = session.run();
    if (s.games > 1) {
        std::string out = fmt::format("played {} games: {} won {}, {} won {}\n", s.games,
                                      so.sides[0].name, s.wins[0], so.sides[1].name, s.wins[1]);
        out += fmt::format("wins of {} per 100 games:", so.sides[0].name);
        for (size_t b = 0; b < s.winners.size(); b += 100) {
            const size_t e = std::min(s.winners.size(), b + 100);
            size_t w = 0;
            for (size_t i = b; i < e; ++i) w += s.winners[i] == 0;
            out += fmt::format(" {:.0f}%", 100.0 * double(w) / double(e - b));
        }
        std::cout << out << "\n";
    }
    return EXIT_OK;
}

}  // namespace nimtb::apps
