#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"

namespace nimtb::apps {
namespace {

nlohmann::json report_json(const engine::VerifyReport& r, const io::TableInfo& info) {
    nlohmann::json j = {{"table", info.path},
                        {"rules", info.rules},
                        {"convention", engine::to_string(info.convention)},
                        {"positions", r.positions},
                        {"p_positions", r.p_positions},
                        {"ok", r.ok()}};
    j["checks"] = nlohmann::json::array();
    for (const auto& c : r.checks) {
        nlohmann::json cj = {{"name", c.name},       {"description", c.description},
                             {"applies", c.applies}, {"theorem", c.is_theorem},
                             {"tested", c.tested},   {"held", c.held},
                             {"passed", c.passed()}};
        cj["counterexamples"] = nlohmann::json::array();
        for (const auto& e : c.counterexamples) {
            cj["counterexamples"].push_back(
                {{"position", e.heaps}, {"stored", e.stored}, {"expected", e.expected}});
        }
        j["checks"].push_back(cj);
    }
    j["single_heaps"] = {{"values", r.single_heaps.values}, {"periodic", r.single_heaps.periodic}};
    if (r.single_heaps.periodic) {
        j["single_heaps"]["preperiod"] = r.single_heaps.preperiod;
        j["single_heaps"]["period"] = r.single_heaps.period;
    }
    auto histogram = [](const std::map<uint32_t, uint64_t>& m) {
        nlohmann::json h = nlohmann::json::object();
        for (const auto& [k, v] : m) h[std::to_string(k)] = v;
        return h;
    };
    j["value_histogram"] = histogram(r.value_histogram);
    j["remoteness_histogram"] = histogram(r.remoteness_histogram);
    return j;
}

void print_text(const engine::VerifyReport& r, const io::TableInfo& info) {
    std::string out =
        fmt::format("table        {}\ngame         {} {}, K = {}, H = {}\n", info.path, info.rules,
                    engine::to_string(info.convention), info.max_heaps, info.max_heap_size);
    out += fmt::format("positions    {}\nP-positions  {}\n\n", r.positions, r.p_positions);
    for (const auto& c : r.checks) {
        if (!c.applies) continue;
        const char* verdict = c.passed()     ? "holds"
                              : c.is_theorem ? "FAILS"
                                             : "does not always hold";
        out += fmt::format(
            "{:<22} {} on {} of {} positions ({:.2f}%)\n  {}\n", c.name, verdict, c.held, c.tested,
            c.tested ? 100.0 * double(c.held) / double(c.tested) : 100.0, c.description);
        if (!c.counterexamples.empty()) {
            out += "  smallest counterexamples:\n";
            for (const auto& e : c.counterexamples) {
                out += fmt::format("    {:<20} stored {} expected {}\n",
                                   engine::format_heaps(e.heaps), e.stored, e.expected);
            }
        }
    }
    const auto& s = r.single_heaps;
    out += "\nsingle heaps, value of a heap of 0, 1, 2, ... tokens:\n  ";
    for (size_t i = 0; i < s.values.size(); ++i)
        out += fmt::format("{}{}", i ? " " : "", s.values[i]);
    out += s.periodic ? fmt::format("\n  periodic within H: preperiod {}, period {}\n", s.preperiod,
                                    s.period)
                      : std::string("\n  no period seen twice within H\n");
    out += "  (a table shows only what lies within H; a period may change beyond it)\n";
    out += "\nvalues:     ";
    for (const auto& [v, n] : r.value_histogram) out += fmt::format(" {}:{}", v, n);
    if (!r.remoteness_histogram.empty()) {
        out += "\nremoteness: ";
        for (const auto& [v, n] : r.remoteness_histogram) out += fmt::format(" {}:{}", v, n);
    }
    out += fmt::format("\n\nverdict: {}\n", r.ok() ? "OK, every theorem that applies holds"
                                                   : "MISMATCH, see the counterexamples above");
    std::cout << out;
}

}  // namespace

int cmd_verify(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>()->required(), "the table file")(
        "json", "print the report as JSON")(
        "progress", "draw a progress bar even when stderr is not a terminal");
    po::positional_options_description pos;
    pos.add("table", 1);
    const auto vm = parse_arguments(
        "verify", args, opts, pos, "TABLE [--json]",
        "examples:\n  nimtb verify tables/nim-normal-k3-h15.h5\n  nimtb verify t.h5 --json\n\n"
        "Checks every position: consistency with the definitions, Sprague-Grundy and\n"
        "Bouton in normal play, Bouton's misere rule for misere Nim, and for other\n"
        "misere games how often the misere-Nim rule on normal-play values predicts\n"
        "the outcome (a finding). Exit 1 when a theorem or the consistency fails.\n");
    if (!vm) return EXIT_OK;
    io::TableReader table((*vm)["table"].as<std::string>());
    const io::TableInfo& info = table.info();
    ProgressBar bar("verifying", stderr_is_terminal() || vm->count("progress"));
    auto progress = [&](uint64_t done, uint64_t total) { bar.update(done, total); };
    engine::VerifyReport r;
    const uint64_t bytes = info.positions * ((info.value_bits + info.remoteness_bits) / 8);
    const uint64_t available = engine::available_memory();
    if (available == 0 || bytes <= available / 2) {
        // The table fits in memory: read it once, verify on every core.
        engine::QuantityArray values, remoteness;
        table.read_all(values, remoteness);
        engine::ArraySource source(values, remoteness);
        r = engine::verify(table.rule(), info.convention, table.universe(), source, progress);
    } else {
        // Larger than memory: stream in rank order, keeping as many decoded
        // chunks as a quarter of the free memory holds for the children.
        table.set_cache_bytes(std::max(available / 4, io::TableReader::DEFAULT_CACHE_BYTES));
        ReaderSource source(table);
        r = engine::verify(table.rule(), info.convention, table.universe(), source, progress);
    }
    bar.finish();
    if (vm->count("json")) {
        std::cout << report_json(r, table.info()).dump(2) << "\n";
    } else {
        print_text(r, table.info());
    }
    return r.ok() ? EXIT_OK : EXIT_FAILURE_;
}

}  // namespace nimtb::apps
