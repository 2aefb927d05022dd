#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/json_views.h"

namespace nimtb::apps {
namespace {

constexpr const char* EXAMPLES = R"(examples:
  nimtb query tables/nim-normal-k3-h15.h5 "3 4 5"
  nimtb query tables/nim-normal-k3-h15.h5 3,4,5 --json
  nimtb query tables/nim-normal-k3-h15.h5 "3 4 5" --line
  printf '1 2 3\n3 4 5\n' | nimtb query tables/nim-normal-k3-h15.h5 -

The position is heap sizes separated by spaces or commas; '-' reads one
position per line from stdin and answers each in order.
)";

std::string remoteness_text(const std::optional<uint32_t>& r) {
    return r ? std::to_string(*r) : "-";
}

void answer(io::Prober& prober, const engine::Heaps& heaps, bool json, bool line) {
    if (json) {
        std::cout << query_json(prober, heaps, line).dump() << "\n";
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

}  // namespace

int cmd_query(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>()->required(), "the table file")(
        "position", po::value<std::string>()->required(),
        "heap sizes, e.g. \"3 4 5\" or 3,4,5; '-' for stdin")(
        "json", "print JSON (one object per position)")(
        "line", "also print the whole game from here under perfect play");
    po::positional_options_description pos;
    pos.add("table", 1).add("position", 1);
    const auto vm =
        parse_arguments("query", args, opts, pos, "TABLE POSITION|- [--json] [--line]", EXAMPLES);
    if (!vm) return EXIT_OK;
    io::Prober prober((*vm)["table"].as<std::string>());
    const bool json = vm->count("json") > 0, line = vm->count("line") > 0;
    const std::string position = (*vm)["position"].as<std::string>();
    if (position != "-") {
        answer(prober, engine::parse_heaps(position), json, line);
        return EXIT_OK;
    }
    // A batch: each line answered in order; a bad line is reported and skipped.
    int status = EXIT_OK;
    std::string text;
    for (unsigned n = 1; std::getline(std::cin, text); ++n) {
        try {
            answer(prober, engine::parse_heaps(text), json, line);
        } catch (const nimtb::InputError& e) {
            std::cout.flush();
            fmt::print(stderr, "nimtb: error: line {}: {}\n", n, e.what());
            status = EXIT_USAGE;
        }
    }
    return status;
}

}  // namespace nimtb::apps
