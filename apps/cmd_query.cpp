#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "engine/sequences/big_heaps.h"
#include "io/sequence_file.h"
#include "service/quotients.h"
#include "service/request/words.h"
#include "service/sequences.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::apps {
namespace {

constexpr const char* QUERY_EXAMPLES = R"(examples:
  nimtb query tables/nim-normal-k3-h15.h5 "3 4 5"
  nimtb query tables/nim-normal-k3-h15.h5 3,4,5 --json
  nimtb query tables/nim-normal-k3-h15.h5 "3 4 5" --line
  printf '1 2 3\n3 4 5\n' | nimtb query tables/nim-normal-k3-h15.h5 -
  nimtb query --tables tables --rules kayles "7 9 12"       # the smallest table of the folder holding it
  nimtb query --rules octal:0.16 "1000000000000 7 12"       # from a proven period
  nimtb query --rules nim "1000000000000 7 12"              # from a formula
  nimtb query --rules grundy "5000 7 12"                    # from values computed now
  nimtb query --sequence s.h5 "1000000000000 7 12"          # from nimtb sequence --output s.h5
  nimtb query --misere --rules octal:0.75 "1000000000 7 13"  # from a proven misère quotient
  nimtb query --misere --quotient q.json "1000000000 7 13"   # from nimtb quotient --output q.json

The position is heap sizes separated by spaces or commas; '-' reads one
position per line from stdin and answers each in order. With --rules (a
rule whose moves touch one heap, normal play) or --sequence instead of a
TABLE, a position is worth the XOR of its heaps' values and a winning move
is named. Heaps of any size (up to 2^63) are answered where the values are a
formula (nim, lasker) or have a proven period (subtraction games and octal
codes: --rules computes the sequence until one is proven, up to --limit
heaps); otherwise heaps within the values computed (up to the position's
largest heap, or --limit with '-') or stored in the sequence file.

--misere --rules answers misère play from the rule's misère quotient (see
`nimtb quotient`): a position loses exactly when the product of its heaps'
elements is in the P-portion. Heaps of any size are answered where the
quotient is proven for every heap size (octal codes and subtraction games,
computed until proven, up to --limit heaps, 1000); otherwise heaps up to
the quotient computed (the position's largest heap, or --limit with '-').
A position the quotient does not answer (within 2 s when a table of at
most 5,000,000 positions holds it) is answered from such a table of
tables/, solved there now if need be; stderr says so. --quotient FILE
answers from a quotient file instead, checked exactly before it is
believed.
)";

constexpr uint64_t DEFAULT_LIMIT = uint64_t{1} << 22;

std::string remoteness_text(const std::optional<uint32_t>& r) {
    return r ? std::to_string(*r) : "-";
}

void answer(io::Prober& prober, const engine::Heaps& heaps, bool json, bool line) {
    if (json) {
        std::cout << service::query_json(prober, heaps, line).dump() << "\n";
        return;
    }
    const io::ProbeResult r = prober.probe(heaps);
    std::vector<io::ProbedMove> pv;
    if (line) pv = prober.principal_line(heaps);
    std::string out = fmt::format("position    {}\n", engine::format_heaps(r.heaps));
    out += fmt::format("to move     {}\n",
                       r.moves.empty()
                           ? (r.to_move_wins() ? "wins: no move is left" : "loses: no move is left")
                       : r.to_move_wins() ? "wins (N-position)"
                                          : "loses (P-position)");
    out += fmt::format("value       {}\n", r.value);
    if (r.remoteness)
        out += fmt::format("remoteness  {} (moves to the end with best play)\n", *r.remoteness);
    if (!r.moves.empty()) {
        size_t width = 22;  // the move column fits the longest phrase
        for (const auto& m : r.moves) width = std::max(width, m.phrase.size());
        out += fmt::format("moves, best first:\n  {:<{}} {:<20} {:>5}  {:>10}\n", "move", width,
                           "leaves", "value", "remoteness");
        for (const auto& m : r.moves) {
            out += fmt::format("  {:<{}} {:<20} {:>5}  {:>10}  {}\n", m.phrase, width,
                               engine::format_heaps(m.result), m.value,
                               remoteness_text(m.remoteness), m.winning() ? "wins" : "loses");
        }
    }
    if (line) {
        out += "perfect play from here:\n";
        for (size_t i = 0; i < pv.size(); ++i) {
            out += fmt::format("  {:>3}. {}  {} -> {}\n", i + 1, i % 2 ? "second" : "first ",
                               pv[i].phrase, engine::format_heaps(pv[i].result));
        }
        const bool first_moves_last = pv.size() % 2 == 1;
        const bool normal = prober.table().info().convention == engine::Convention::normal;
        out += fmt::format("  the {} player wins\n",
                           (first_moves_last == normal) ? "first" : "second");
    }
    std::cout << out;
}

// The game of a one-heap rule: read from a sequence file, or known now (a
// formula, a period computed until proven, or the values up to `needed`).
service::ProvenGame proven_game(const po::variables_map& vm, uint64_t needed) {
    if (vm.count("sequence")) {
        std::optional<engine::Rule> rule;
        if (vm.count("rules")) rule = engine::Rule::parse(vm["rules"].as<std::string>());
        return service::proven_game(vm["sequence"].as<std::string>(), rule);
    }
    const uint64_t limit = vm.count("limit") ? number(vm, "limit", LIMIT) : DEFAULT_LIMIT;
    // Values up to a big heap take seconds (Grundy's game to 3,000,000: 24 s):
    // a person at a terminal sees them come, as sequence shows them.
    service::ProgressBar bar("values of one heap",
                             service::stderr_is_terminal() && std::max(needed, limit) >= 100'000);
    service::ProvenGame game = service::proven_game(
        engine::Rule::parse(vm["rules"].as<std::string>()), limit, command_hooks(&bar), needed);
    bar.finish();
    return game;
}

void answer_from_period(const service::ProvenGame& proven, const std::string& text, bool json) {
    const std::vector<uint64_t> heaps = engine::parse_big_heaps(text);
    const nlohmann::json j = service::proven_answer_json(proven, heaps);
    if (json) {
        std::cout << j.dump() << "\n";
        return;
    }
    std::string shown;
    for (uint64_t h : heaps) {
        if (!shown.empty()) shown += ' ';
        shown += std::to_string(h);
    }
    const uint64_t value = j["value"];
    std::string out = fmt::format("position    {}\n", shown.empty() ? "(empty)" : shown);
    out += fmt::format("to move     {}\n", value ? "wins (N-position)" : "loses (P-position)");
    out += fmt::format("value       {} (the XOR of the heaps' values)\n", value);
    if (j.contains("winning_move"))
        out += fmt::format("winning     {}\n", j["winning_move"]["move"].get<std::string>());
    const engine::Periodicity& p = proven.period;
    const std::string basis =
        p.basis == engine::Basis::theorem ? p.explanation
        : p.basis == engine::Basis::proof
            ? fmt::format("period {} from heap {} (proven)", p.period, p.preperiod)
            : fmt::format("the values of heaps up to {}", proven.game.known_up_to());
    out += fmt::format("from        {} normal play: {}\n", proven.game.rule().canonical(), basis);
    std::cout << out;
}

void answer_misere(const engine::Rule& rule, const engine::MisereQuotient& q,
                   const std::string& text, bool json) {
    const std::vector<uint64_t> heaps = engine::parse_big_heaps(text);
    for (uint64_t h : heaps) (void)engine::heap_element(q, h);  // refuses a heap beyond it
    const nlohmann::json j = service::misere_answer_json(rule, q, heaps);
    if (json) {
        std::cout << j.dump() << "\n";
        return;
    }
    std::string shown;
    for (uint64_t h : heaps) shown += fmt::format("{}{}", shown.empty() ? "" : " ", h);
    const bool wins = j["to_move_wins"];
    std::string out = fmt::format("position    {}\n", shown.empty() ? "(empty)" : shown);
    out += fmt::format("to move     {}\n",
                       wins ? "wins (N-position, misère play)" : "loses (P-position, misère play)");
    out += fmt::format("element     {} ({} the P-portion)\n", j["element"].get<std::string>(),
                       wins ? "not in" : "in");
    if (j.contains("winning_move"))
        out += fmt::format("winning     {}\n", j["winning_move"]["move"].get<std::string>());
    out += fmt::format(
        "from        the misère quotient of {}, order {}: {}\n", rule.canonical(), q.monoid.order,
        q.proof ? fmt::format("proven for every heap size (phi has period {} from heap {})",
                              q.proof->period, q.proof->preperiod)
                : fmt::format("exact for heaps up to {}", q.monoid.max_heap()));
    std::cout << out;
}

// The position the words make (query t.h5 3 4 5 is query t.h5 "3 4 5"),
// or "-" alone to read positions from stdin.
std::string position_of(const std::vector<std::string>& words) {
    if (words.empty()) throw UsageError("missing POSITION");
    if (words.size() > 1 && std::find(words.begin(), words.end(), "-") != words.end())
        throw UsageError("'-' reads the positions from stdin: give it alone");
    return fmt::format("{}", fmt::join(words, " "));
}

// The table to answer from; a sequence or quotient file given in its place
// is refused with the option that reads it.
io::Prober open_table(const std::string& path) {
    try {
        return io::Prober(path);
    } catch (const TableError& e) {
        std::string hint;
        try {
            (void)io::read_sequence(path);
            hint = fmt::format("it is a sequence file: nimtb query --sequence {} POSITION", path);
        } catch (const std::exception&) {
        }
        if (hint.empty()) {
            try {
                (void)service::read_quotient(path, {});
                hint = fmt::format(
                    "it is a misère quotient file: nimtb query --misere --quotient {} POSITION",
                    path);
            } catch (const std::exception&) {
            }
        }
        if (hint.empty()) throw;
        throw TableError(fmt::format("{}; {}", e.what(), hint));
    }
}

// One misère position of a rule, as service::misere_answer finds it: from
// its quotient, or from a table (stderr says why and which).
int answer_misere_position(const engine::Rule& rule, const std::string& position, uint64_t needed,
                           uint32_t limit, bool json) {
    const std::vector<uint64_t> heaps = engine::parse_big_heaps(position);
    const service::MisereAnswer a =
        service::misere_answer(rule, heaps, needed, limit, "tables", command_hooks());
    if (a.quotient) {
        answer_misere(rule, *a.quotient, position, json);
        return EXIT_OK;
    }
    fmt::print(stderr, "nimtb: {}; answering from {}\n", service::command_line_words(a.why),
               a.table);
    io::Prober prober(a.table);
    answer(prober, *service::table_heaps(heaps), json, false);
    return EXIT_OK;
}

// `position`, or with "-" every line of stdin in order: a bad line is
// reported on stderr and skipped, and the exit code says so; with --json its
// place in the output is an object {"line", "error"}, so that the answers line
// up with the lines read. A blank position is refused: the board with no
// tokens is "0".
int answer_each(const std::string& position, bool json,
                const std::function<void(const std::string&)>& answer) {
    auto answer_one = [&](const std::string& text) {
        service::refuse_blank_position(text);
        answer(text);
    };
    if (position != "-") {
        answer_one(position);
        return EXIT_OK;
    }
    int status = EXIT_OK;
    std::string text;
    for (unsigned n = 1; std::getline(std::cin, text); ++n) {
        try {
            answer_one(text);
        } catch (const nimtb::InputError& e) {
            const std::string why = service::command_line_words(e.what());
            if (json) std::cout << nlohmann::json{{"line", n}, {"error", why}}.dump() << "\n";
            std::cout.flush();
            fmt::print(stderr, "nimtb: error: line {}: {}\n", n, why);
            status = EXIT_USAGE;
        }
    }
    return status;
}

// query --tables DIR --rules R [--misere] POSITION|-: each position from the
// smallest table of the game in DIR that holds it (service::Tablebase).
int answer_from_folder(const po::variables_map& vm, bool json, bool line) {
    if (!vm.count("rules"))
        throw UsageError("--tables needs --rules: the game whose tables to answer from");
    if (vm.count("sequence") || vm.count("quotient") || vm.count("limit"))
        throw UsageError(
            "--tables answers from tables: give it without --sequence, --quotient "
            "and --limit");
    const engine::Rule rule = engine::Rule::parse(vm["rules"].as<std::string>());
    const engine::Convention c =
        vm.count("misere") ? engine::Convention::misere : engine::Convention::normal;
    const service::Tablebase folder(vm["tables"].as<std::string>());
    const std::string position =
        position_of(vm.count("words") ? vm["words"].as<std::vector<std::string>>()
                                      : std::vector<std::string>{});
    std::map<std::string, io::Prober> open;
    return answer_each(position, json, [&](const std::string& text) {
        const engine::Heaps heaps = engine::parse_heaps(text);
        const service::FolderTable& t = folder.table_for(rule, c, heaps);
        auto it = open.find(t.path);
        if (it == open.end()) it = open.emplace(t.path, io::Prober(t.path)).first;
        if (json) {
            nlohmann::json j = service::query_json(it->second, heaps, line);
            j["table"] = t.path;
            std::cout << j.dump() << "\n";
            return;
        }
        answer(it->second, heaps, false, line);
        fmt::print("from        {}\n", t.path);
    });
}

}  // namespace

int cmd_query(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("words", po::value<std::vector<std::string>>(),
                       "TABLE, then the position: heap sizes such as 3 4 5, \"3 4 5\" or 3,4,5; "
                       "'-' reads one position a line from stdin")(
        "json", "print JSON (one object per position)")(
        "line", "also print the whole game from here under perfect play")(
        "rules,r", po::value<std::string>(),
        "instead of a TABLE: answer from the rule's single-heap values")(
        "sequence", po::value<std::string>(),
        "instead of a TABLE: answer from a sequence file's values")(
        "misere", "misère play, from a misère quotient: the rule's (--rules) or a file's")(
        "quotient", po::value<std::string>(),
        "with --misere: answer from a quotient file (nimtb quotient --output)")(
        "tables", po::value<std::string>(),
        "with --rules (and --misere): answer each position from the smallest table of that "
        "game in this folder that holds it")(
        "limit", po::value<int64_t>(),
        ranged("with --rules: compute heaps up to this one at most (default 4194304; with "
               "--misere 1000, and quotients go to 100000)",
               LIMIT)
            .c_str());
    po::positional_options_description pos;
    pos.add("words", -1);
    // A position with a negative heap ("-1 2") is a position, not an option:
    // refused as the position parser refuses it, not as an unknown option.
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool value_of_option =
            i > 0 &&
            (args[i - 1] == "--rules" || args[i - 1] == "-r" || args[i - 1] == "--sequence" ||
             args[i - 1] == "--quotient" || args[i - 1] == "--limit" || args[i - 1] == "--tables");
        if (a.size() > 1 && a[0] == '-' && std::isdigit(static_cast<unsigned char>(a[1])) &&
            !value_of_option)
            (void)engine::parse_big_heaps(a);  // throws: a heap is negative
    }
    const auto vm =
        parse_arguments("query", args, opts, pos,
                        "(TABLE | --rules RULE [--tables DIR] | --sequence FILE | --misere "
                        "(--rules RULE [--tables DIR] | --quotient FILE)) POSITION|- [--json] "
                        "[--line]",
                        QUERY_EXAMPLES);
    if (!vm) return EXIT_OK;
    const bool json = vm->count("json") > 0, line = vm->count("line") > 0;
    if (vm->count("tables")) return answer_from_folder(*vm, json, line);
    const bool periodic = vm->count("rules") || vm->count("sequence") || vm->count("quotient");
    if (vm->count("quotient") && !vm->count("misere"))
        throw UsageError("--quotient goes with --misere");
    // The words: TABLE first unless the answers come from elsewhere, then the
    // position, whole or a heap a word (query t.h5 3 4 5).
    std::vector<std::string> words = vm->count("words")
                                         ? (*vm)["words"].as<std::vector<std::string>>()
                                         : std::vector<std::string>{};
    std::string table;
    if (!periodic && !words.empty()) {
        table = words.front();
        words.erase(words.begin());
    }
    if (!periodic && table.empty()) throw UsageError("missing TABLE");
    std::error_code missing;
    if (!periodic && !std::filesystem::exists(table, missing)) {
        // query "3 4 5" or query 3 4 5: the table forgotten, not a file missing.
        std::vector<std::string> both{table};
        both.insert(both.end(), words.begin(), words.end());
        const std::string all = fmt::format("{}", fmt::join(both, " "));
        bool position_like = true;
        try {
            (void)engine::parse_big_heaps(all);
        } catch (const InputError&) {
            position_like = false;
        }
        if (position_like)
            throw UsageError(fmt::format(
                "missing TABLE: '{}' is a position; give a table first (nimtb query TABLE "
                "\"{}\"), or --rules RULE to answer from the rule's values",
                all, all));
    }
    std::error_code ec;  // a word too long for a file name is not one
    if (periodic && !words.empty() && std::filesystem::is_regular_file(words.front(), ec))
        throw UsageError("give a TABLE or --rules/--sequence/--quotient, not both");
    const std::string position = position_of(words);
    if (periodic) {
        if (line) throw UsageError("--line needs a TABLE");
        // One position: the values it needs where no theorem gives them all.
        uint64_t needed = 0;
        if (position != "-")
            for (uint64_t h : engine::parse_big_heaps(position)) needed = std::max(needed, h);
        if (vm->count("misere")) {
            if (vm->count("sequence"))
                throw UsageError(
                    "--misere goes with --rules or --quotient (a sequence file is "
                    "normal play)");
            if (vm->count("quotient")) {
                if (vm->count("limit")) throw UsageError("--limit goes with --rules");
                const service::StoredQuotient stored =
                    service::read_quotient((*vm)["quotient"].as<std::string>(), command_hooks());
                if (vm->count("rules") &&
                    engine::Rule::parse((*vm)["rules"].as<std::string>()) != stored.rule) {
                    throw UsageError(fmt::format("the quotient file is of {}, not of --rules {}",
                                                 stored.rule.canonical(),
                                                 (*vm)["rules"].as<std::string>()));
                }
                return answer_each(position, json, [&](const std::string& text) {
                    answer_misere(stored.rule, stored.quotient, text, json);
                });
            }
            if (!vm->count("rules")) throw UsageError("--misere needs --rules or --quotient");
            const engine::Rule rule = engine::Rule::parse((*vm)["rules"].as<std::string>());
            const uint32_t limit = vm->count("limit") ? quotient_heaps(number(*vm, "limit", LIMIT))
                                                      : service::DEFAULT_QUOTIENT_LIMIT;
            if (position == "-") {
                const engine::MisereQuotient q =
                    service::answering_quotient(rule, needed, limit, command_hooks());
                return answer_each(position, json, [&](const std::string& text) {
                    answer_misere(rule, q, text, json);
                });
            }
            return answer_misere_position(rule, position, needed, limit, json);
        }
        const service::ProvenGame proven = proven_game(*vm, needed);
        return answer_each(position, json, [&](const std::string& text) {
            answer_from_period(proven, text, json);
        });
    }
    if (vm->count("misere"))
        throw UsageError("--misere goes with --rules; a TABLE knows its own convention");
    if (vm->count("limit")) throw UsageError("--limit goes with --rules");
    io::Prober prober = open_table(table);
    return answer_each(position, json, [&](const std::string& text) {
        answer(prober, engine::parse_heaps(text), json, line);
    });
}

}  // namespace nimtb::apps
