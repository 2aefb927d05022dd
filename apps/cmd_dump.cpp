#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "engine/checks/census.h"
#include "service/dump.h"
#include "service/views.h"

namespace nimtb::apps {

namespace {

std::string row_text(const std::string& label, const engine::CensusRow& r, bool tuples) {
    std::string out = fmt::format("{:<14} {:>14} {:>14}", label, r.positions, r.p_positions);
    if (tuples) out += fmt::format(" {:>20} {:>20}", r.tuples.value_or(0), r.p_tuples.value_or(0));
    return out + "\n";
}

// `dump --count`: the census of the table's P-positions, read chunk by chunk.
int print_census(io::TableReader& table, bool json, Report& report) {
    const engine::Universe& u = table.universe();
    const engine::Census c = service::count_table(table);
    if (json || report.events()) {
        const nlohmann::json j = service::census_json(table, c);
        report.result(j, [&] { return j.dump(2) + "\n"; });
        return EXIT_OK;
    }
    const bool t = c.has_tuples;
    std::string out = fmt::format("P-positions of {} {}, {}\n", table.rule().canonical(),
                                  engine::to_string(table.info().convention), u.describe());
    out += t ? fmt::format(
                   "tuples: the ordered rows of a board of {} rows, empty rows included "
                   "(3 4 5 is six tuples)\n",
                   u.max_heaps())
             : std::string("tuples: not counted, their number exceeds 64 bits\n");
    std::string head = fmt::format("\n{:<14} {:>14} {:>14}", "", "positions", "P-positions");
    if (t) head += fmt::format(" {:>20} {:>20}", "tuples", "P-tuples");
    out += head + "\n" + row_text("all", c.all, t) + "\nby total\n";
    for (size_t i = 0; i < c.by_total.size(); ++i) {
        out += row_text("  " + std::to_string(i), c.by_total[i], t);
    }
    out += "\nby largest heap\n";
    for (size_t i = 0; i < c.by_largest.size(); ++i) {
        out += row_text("  " + std::to_string(i), c.by_largest[i], t);
    }
    if (table.has_remoteness()) {
        out += "\nby remoteness (moves to the end under perfect play)\n";
        for (size_t i = 0; i < c.by_remoteness.size(); ++i) {
            out += row_text("  " + std::to_string(i), c.by_remoteness[i], t);
        }
    }
    std::cout << out;
    return EXIT_OK;
}

// The request of the options, or of --request.
service::DumpRequest dump_request(const po::variables_map& vm) {
    if (const auto j = request_option(vm, {"json"})) return service::dump_request_from_json(*j);
    if (!vm.count("table")) throw UsageError("missing TABLE: nimtb dump TABLE [options]");
    service::DumpRequest request;
    request.table = vm["table"].as<std::string>();
    request.count = vm.count("count") > 0;
    if (request.count) {
        for (const char* other : {"p-only", "max-total", "csv"}) {
            if (vm.count(other)) throw UsageError(std::string("--count does not take --") + other);
        }
        return request;
    }
    if (vm.count("json")) throw UsageError("--json goes with --count");
    request.rows.p_only = vm.count("p-only") > 0;
    request.rows.csv = vm.count("csv") > 0;
    if (vm.count("max-total")) request.rows.max_total = number(vm, "max-total", MAX_TOTAL);
    return request;
}

}  // namespace

int cmd_dump(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>(), "the table file")(
        "p-only", "only P-positions (the player to move loses)")(
        "max-total,N", po::value<int64_t>(),
        ranged("only positions of at most N tokens in all", MAX_TOTAL).c_str())(
        "csv", "comma-separated values with a header line")(
        "count",
        "count the P-positions instead: as positions and as ordered tuples, by total, "
        "by largest heap and by remoteness")("json", "with --count: print JSON");
    add_request_options(opts);
    po::positional_options_description pos;
    pos.add("table", 1);
    const auto vm = parse_arguments(
        "dump", args, opts, pos,
        "TABLE [--p-only] [--max-total N] [--csv] | TABLE --count [--json] | --request JSON "
        "[--events json]",
        "examples:\n  nimtb dump tables/nim-normal-k3-h15.h5 --p-only --max-total 12\n"
        "  nimtb dump t.h5 --csv > t.csv\n"
        "  nimtb dump t.h5 --count --json\n\n"
        "Positions come in rank order, each with a winning move when it has one. With\n"
        "--count: how many positions and P-positions there are, by total, by largest\n"
        "heap and by remoteness, also as ordered tuples: the rows of a board of K rows,\n"
        "empty rows included.\n");
    if (!vm) return EXIT_OK;
    const service::DumpRequest request = dump_request(*vm);
    Report report(*vm, "dump", false);
    if (request.count) {
        io::TableReader table(request.table);
        return print_census(table, vm->count("json") > 0, report);
    }
    io::Prober prober(request.table);
    service::dump_rows(prober, request.rows, [&](std::string_view text) { report.data(text); });
    report.result(nlohmann::json::object(), [] { return ""; });
    return EXIT_OK;
}

}  // namespace nimtb::apps
