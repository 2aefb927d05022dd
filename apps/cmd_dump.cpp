#include <fmt/core.h>

#include <iostream>

#include "apps/cli.h"

namespace nimtb::apps {

int cmd_dump(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>()->required(), "the table file")(
        "p-only", "only P-positions (the player to move loses)")(
        "max-total", po::value<int64_t>(), "only positions with at most N tokens in all")(
        "csv", "comma-separated values with a header line");
    po::positional_options_description pos;
    pos.add("table", 1);
    const auto vm = parse_arguments(
        "dump", args, opts, pos, "TABLE [--p-only] [--max-total N] [--csv]",
        "examples:\n  nimtb dump tables/nim-normal-k3-h15.h5 --p-only --max-total 12\n"
        "  nimtb dump t.h5 --csv > t.csv\n\n"
        "Positions come in rank order, each with a winning move when it has one.\n");
    if (!vm) return EXIT_OK;
    io::Prober prober((*vm)["table"].as<std::string>());
    const engine::Universe& u = prober.universe();
    const bool p_only = vm->count("p-only") > 0, csv = vm->count("csv") > 0;
    const bool has_max = vm->count("max-total") > 0;
    const uint64_t max_total = has_max ? whole_number(*vm, "max-total", UINT32_MAX) : 0;
    const bool rem = prober.table().has_remoteness();

    if (csv) {
        std::cout << "position,value,remoteness,winning_move\n";
    } else {
        std::cout << fmt::format("{:<24} {:>5} {:>10}  {}\n", "position", "value", "remoteness",
                                 "winning move");
    }
    engine::Heaps heaps(u.max_heaps(), 0);
    std::string out;
    for (uint64_t rank = 0; rank < u.size(); ++rank, u.next(heaps)) {
        if (has_max) {
            uint64_t total = 0;
            for (uint32_t a : heaps) total += a;
            if (total > max_total) continue;
        }
        const uint32_t v = prober.table().value(rank);
        if (p_only && v != 0) continue;
        std::string move;
        if (v != 0) {
            // The fastest win: the first of the probe's ordered moves.
            engine::Heaps shown;
            for (uint32_t a : heaps)
                if (a) shown.push_back(a);
            const io::ProbeResult r = prober.probe(shown);
            if (!r.moves.empty() && r.moves.front().winning()) {
                const auto& m = r.moves.front();
                move = fmt::format("{} -> {}", m.phrase, engine::format_heaps(m.result));
            }
        }
        const std::string rem_text = rem ? std::to_string(prober.table().remoteness(rank)) : "";
        if (csv) {
            out += fmt::format("{},{},{},{}\n", engine::format_heaps(heaps), v, rem_text, move);
        } else {
            out += fmt::format("{:<24} {:>5} {:>10}  {}\n", engine::format_heaps(heaps), v,
                               rem ? rem_text : "-", move);
        }
        if (out.size() > (1 << 16)) {
            std::cout << out;
            out.clear();
        }
    }
    std::cout << out;
    return EXIT_OK;
}

}  // namespace nimtb::apps
