#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "service/verify.h"

namespace nimtb::apps {
namespace {

// What a finding rests on, in words.
const char* basis_text(engine::Basis b) {
    switch (b) {
        case engine::Basis::definition:
            return "the definitions, checked at every position";
        case engine::Basis::theorem:
            return "a theorem, checked at every position";
        case engine::Basis::proof:
            return "a proof from the table";
        case engine::Basis::observation:
            return "an observation within the table, not a theorem";
        case engine::Basis::none:
            return "nothing is claimed";
    }
    return "?";
}

void print_text(const engine::VerifyReport& r, const io::TableInfo& info,
                const engine::Universe& u) {
    std::string out = fmt::format("table        {}\ngame         {} {}, {}\n", info.path,
                                  info.rules, engine::to_string(info.convention), u.describe());
    out += fmt::format("positions    {}\nP-positions  {}\n\n", r.positions, r.p_positions);
    for (const auto& c : r.checks) {
        if (!c.applies) continue;
        const char* verdict = c.passed()      ? "holds"
                              : c.must_hold() ? "FAILS: holds"
                                              : "does not always hold: holds";
        out += fmt::format("{:<22} {} on {} of {} positions ({:.2f}%)\n  {} ({})\n", c.name,
                           verdict, c.held, c.tested,
                           c.tested ? 100.0 * double(c.held) / double(c.tested) : 100.0,
                           c.description, basis_text(c.basis));
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
    out += fmt::format("\n  {} ({})\n", s.period.explanation, basis_text(s.period.basis));
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
        "the outcome (an observation). Reports the single-heap period: proven where a\n"
        "theorem makes a finite window of the table a proof (subtraction games),\n"
        "observed otherwise, or not claimed where the table is too short.\n"
        "Each finding says what it rests on: the definitions, a theorem checked,\n"
        "a proof, or an observation. Exit 1 when a theorem or the consistency fails.\n");
    if (!vm) return EXIT_OK;
    io::TableReader table((*vm)["table"].as<std::string>());
    ProgressBar bar("verifying", stderr_is_terminal() || vm->count("progress"));
    const engine::VerifyReport r = service::verify_table(table, command_hooks(&bar));
    bar.finish();
    if (vm->count("json")) {
        std::cout << service::verify_json(r, table.info()).dump(2) << "\n";
    } else {
        print_text(r, table.info(), table.universe());
    }
    return r.ok() ? EXIT_OK : EXIT_FAILURE_;
}

}  // namespace nimtb::apps
