#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "engine/periodicity.h"
#include "engine/sequence.h"

namespace nimtb::apps {

namespace {

constexpr const char* EXAMPLES = R"(examples:
  nimtb sequence --rules octal:0.77 --max-heap 100     # Kayles
  nimtb sequence --rules grundy --max-heap 200 --json
  nimtb sequence --rules subtract:2,5,7 --max-heap 80

The normal-play values g(0), g(1), ... of single heaps, for rules whose moves
touch one heap, by the Sprague-Grundy method: a split's value is the XOR of
its parts' values. No table is needed. The period is reported as proven where
a theorem makes the values computed a proof (subtraction games; octal games,
by the octal periodicity theorem of Guy and Smith), else as observed, or not
claimed.
)";

constexpr uint64_t MAX_LENGTH = 100'000;

}  // namespace

int cmd_sequence(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("rules,r", po::value<std::string>(), "the rule")(
        "max-heap,H", po::value<int64_t>(), "the largest heap, up to 100000")("json", "print JSON");
    const auto vm =
        parse_arguments("sequence", args, opts, {}, "--rules RULE --max-heap N [--json]", EXAMPLES);
    if (!vm) return EXIT_OK;
    if (!vm->count("rules")) throw UsageError("missing --rules");
    if (!vm->count("max-heap")) throw UsageError("missing --max-heap N");
    const engine::Rule rule = engine::Rule::parse((*vm)["rules"].as<std::string>());
    const auto n = static_cast<uint32_t>(whole_number(*vm, "max-heap", MAX_LENGTH));
    const std::vector<uint32_t> g = engine::grundy_sequence(rule, n);
    const engine::Periodicity p = engine::find_period(rule, engine::Convention::normal, g);
    if (vm->count("json")) {
        nlohmann::json j = {{"rules", rule.canonical()},
                            {"convention", "normal"},
                            {"method", "sprague-grundy"},
                            {"values", g}};
        j["period"] = period_json(p);
        std::cout << j.dump() << "\n";
        return EXIT_OK;
    }
    std::string out = fmt::format(
        "rules        {}\nmethod       sprague-grundy (normal play; a split's value is the XOR "
        "of its parts')\nvalues of a heap of 0, 1, 2, ..., {} tokens:\n",
        rule.canonical(), n);
    for (size_t i = 0; i < g.size(); i += 20) {
        out += fmt::format("  {:>6}:", i);
        for (size_t k = i; k < std::min(g.size(), i + 20); ++k) out += fmt::format(" {}", g[k]);
        out += "\n";
    }
    out += fmt::format("period       {}\n", p.explanation);
    std::cout << out;
    return EXIT_OK;
}

}  // namespace nimtb::apps
