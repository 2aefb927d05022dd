#include <fmt/core.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "service/request/progress_bar.h"
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

// A counterexample's stored and expected quantity: "value 0, expected 1",
// "outcome P (loses), expected N (wins)".
std::string mismatch_text(const engine::Counterexample& e) {
    if (e.of != engine::Quantity::outcome)
        return fmt::format("stored {} {}, expected {}", engine::to_string(e.of), e.stored,
                           e.expected);
    auto outcome = [](uint32_t n) { return n ? "N (wins)" : "P (loses)"; };
    return fmt::format("stored outcome {}, expected {}", outcome(e.stored), outcome(e.expected));
}

// Items in lines of at most 78 columns, each line after `indent`; past
// `most` items the rest is counted, not listed (--json lists them all).
std::string wrapped(const std::vector<std::string>& items, const std::string& indent, size_t most) {
    constexpr size_t WIDTH = 78;
    std::string out = indent;
    size_t column = indent.size();
    const size_t shown = std::min(items.size(), most);
    for (size_t i = 0; i < shown; ++i) {
        if (column > indent.size() && column + 1 + items[i].size() > WIDTH) {
            out += "\n" + indent;
            column = indent.size();
        }
        if (column > indent.size()) {
            out += ' ';
            ++column;
        }
        out += items[i];
        column += items[i].size();
    }
    if (shown < items.size())
        out += fmt::format("\n{}... {} more ({} in all; --json lists every one)", indent,
                           items.size() - shown, items.size());
    return out + "\n";
}

// Prose in lines of at most 78 columns, each after `indent`.
std::string paragraph(const std::string& text, const std::string& indent) {
    std::vector<std::string> words;
    for (size_t i = 0; i < text.size();) {
        const size_t end = std::min(text.find(' ', i), text.size());
        if (end > i) words.push_back(text.substr(i, end - i));
        i = end + 1;
    }
    return wrapped(words, indent, words.size());
}

std::string histogram_text(const std::map<uint32_t, uint64_t>& histogram) {
    std::vector<std::string> items;
    for (const auto& [v, n] : histogram) items.push_back(fmt::format("{}:{}", v, n));
    return wrapped(items, "  ", 64);
}

void print_text(const engine::VerifyReport& r, const io::TableInfo& info,
                const engine::Universe& u) {
    std::string out = fmt::format("table        {}\ngame         {} {}, {}\n", info.path,
                                  info.rules, engine::to_string(info.convention), u.describe());
    out += fmt::format("positions    {}\nP-positions  {}\n\n", r.positions, r.p_positions);
    for (const auto& c : r.checks) {
        if (!c.applies && !c.skipped.empty()) {
            out += fmt::format("{:<22} skipped\n", c.name);
            out += paragraph(fmt::format("{}: {}", c.description, c.skipped), "  ");
        }
        if (!c.applies) continue;
        const char* verdict = c.passed()      ? "holds"
                              : c.must_hold() ? "FAILS: holds"
                                              : "does not always hold: holds";
        out += fmt::format("{:<22} {} on {} of {} positions ({:.2f}%)\n", c.name, verdict, c.held,
                           c.tested, c.tested ? 100.0 * double(c.held) / double(c.tested) : 100.0);
        out += paragraph(fmt::format("{} ({})", c.description, basis_text(c.basis)), "  ");
        if (!c.counterexamples.empty()) {
            out += "  smallest counterexamples:\n";
            for (const auto& e : c.counterexamples) {
                out +=
                    fmt::format("    {:<20} {}\n", engine::format_heaps(e.heaps), mismatch_text(e));
            }
        }
    }
    const auto& s = r.single_heaps;
    out += "\nsingle heaps, value of a heap of 0, 1, 2, ... tokens:\n";
    std::vector<std::string> values;
    for (uint32_t v : s.values) values.push_back(std::to_string(v));
    out += wrapped(values, "  ", 100);
    out +=
        paragraph(fmt::format("{} ({})", s.period.explanation, basis_text(s.period.basis)), "  ");
    out += "\npositions by value, value:count\n" + histogram_text(r.value_histogram);
    if (!r.remoteness_histogram.empty())
        out +=
            "positions by remoteness, remoteness:count\n" + histogram_text(r.remoteness_histogram);
    out += fmt::format("\nverdict: {}\n", r.ok() ? "OK, every theorem that applies holds"
                                                 : "MISMATCH, see the counterexamples above");
    std::cout << out;
}

}  // namespace

int cmd_verify(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>(), "the table file")(
        "json", "print the report as JSON")(
        "progress", "draw a progress bar even when stderr is not a terminal");
    add_request_options(opts);
    po::positional_options_description pos;
    pos.add("table", 1);
    const auto vm = parse_arguments(
        "verify", args, opts, pos, "TABLE [--json] | --request JSON [--events json]",
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
    service::VerifyRequest request;
    if (const auto j = request_option(*vm, {"json", "progress"})) {
        request = service::verify_request_from_json(*j);
    } else {
        if (!vm->count("table")) throw UsageError("missing TABLE: nimtb verify TABLE [--json]");
        request.table = (*vm)["table"].as<std::string>();
    }
    io::TableReader table(request.table);
    Report report(*vm, "verifying", service::stderr_is_terminal() || vm->count("progress"));
    const engine::VerifyReport r = service::verify_table(table, report.hooks());
    if (report.events() || vm->count("json")) {
        const nlohmann::json j = service::verify_json(r, table.info());
        report.result(j, [&] { return j.dump(2) + "\n"; });
    } else {
        report.finish();
        print_text(r, table.info(), table.universe());
    }
    return r.ok() ? EXIT_OK : EXIT_FAILED;
}

}  // namespace nimtb::apps
