#include <fmt/core.h>

#include <iostream>

#include "apps/cli.h"
#include "engine/quotients/genus.h"
#include "service/quotients.h"
#include "service/request/progress_bar.h"

namespace nimtb::apps {

namespace {

constexpr const char* GENUS_EXAMPLES = R"(examples:
  nimtb genus --rules kayles --max-heap 40            # Kayles: heap 5, 4^{146}, is the first wild one
  nimtb genus --rules subtract:1,3,4 --max-heap 100
  nimtb genus --rules dawsons-kayles --max-heap 100   # a few seconds; Kayles to 100, a minute
  nimtb genus --rules octal:0.312 --max-heap 20 --json

Conway's genus (On Numbers and Games ch. 12, Winning Ways ch. 13) of every
heap: g^{γ0γ1γ2...}, g the normal-play value and γn the misère value of the
heap plus n nim-heaps of size 2. Each superscript ends alternating between
two values and is written up to the first two of them: a heap equal to *0 is
0^{120}, to *1 is 1^{031}, to *2 is 2^{20}. Nim positions have the tame
genera 0^{120}, 1^{031}, 0^{02}, 1^{13} and g^{g,g xor 2}; a heap with any
other genus is wild (misère play of sums with it is not misère Nim's).

Computed from the definition over every position the heaps reach: single
heaps for rules that leave at most one heap (subtraction games), every
position of at most N tokens in all for rules that split heaps (Kayles),
less the heaps that are *0, *1 or *2 (a lemma accounts for them), which
bounds N: Kayles reaches heap 108 (to 100 in a minute). The alternation is
proven: once γN = γ(N-2) at every one of those positions, it holds for
every n after.
docs/QUOTIENTS.md has the definitions.
)";

// The request of the options, or of --request.
service::GenusRequest genus_request(const po::variables_map& vm) {
    if (const auto j = request_option(vm, {"json", "progress"}))
        return service::genus_request_from_json(*j);
    if (!vm.count("rules")) throw UsageError("missing --rules");
    if (!vm.count("max-heap")) throw UsageError("missing --max-heap");
    return {engine::Rule::parse(vm["rules"].as<std::string>()),
            static_cast<uint32_t>(number(vm, "max-heap", Range{0, engine::MAX_GENUS_HEAP}))};
}

}  // namespace

int cmd_genus(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("rules,r", po::value<std::string>(), "the rule (moves on one heap)")(
        "max-heap,H", po::value<int64_t>(),
        ranged("the largest heap", Range{0, engine::MAX_GENUS_HEAP}).c_str())("json", "print JSON")(
        "progress", "draw the progress bar even when stderr is not a terminal");
    add_request_options(opts);
    const auto vm = parse_arguments("genus", args, opts, {},
                                    "--rules RULE --max-heap N [--json] | --request JSON "
                                    "[--events json]",
                                    GENUS_EXAMPLES);
    if (!vm) return EXIT_OK;
    const service::GenusRequest request = genus_request(*vm);
    Report report(*vm, "genus", service::stderr_is_terminal() || vm->count("progress"));
    const engine::GenusTable t = service::compute_genus(request, report.hooks());
    const engine::Rule& rule = request.rule;
    const uint32_t max_heap = request.max_heap;
    if (report.events() || vm->count("json")) {
        const nlohmann::json j = service::genus_json(rule, t);
        report.result(j, [&] { return j.dump() + "\n"; });
        return EXIT_OK;
    }
    report.finish();
    std::string out = fmt::format("rules        {} (misère play)\nheaps        0 to {}\n",
                                  rule.canonical(), max_heap);
    out +=
        "genus        heap: g^{γ0γ1...}, each superscript up to the first two values of its "
        "alternating tail\n";
    size_t width = 0;
    for (const engine::Genus& g : t.heaps) width = std::max(width, g.text().size());
    const size_t per_row = std::max<size_t>(1, 90 / (width + 8));
    for (uint32_t h = 0; h <= max_heap; h += static_cast<uint32_t>(per_row)) {
        out += " ";
        for (uint32_t k = h; k <= std::min<uint64_t>(max_heap, h + per_row - 1); ++k)
            out += fmt::format(" {:>5}: {:<{}}", k, t.heaps[k].text(), width);
        out += "\n";
    }
    const std::optional<uint32_t> wild = service::first_wild_genus(t);
    if (wild) {
        out += fmt::format(
            "tame genus   heaps below {} have the genera of nim positions; heap {} ({}) has "
            "none's, so it is wild\n",
            *wild, *wild, t.heaps[*wild].text());
    } else {
        out += fmt::format(
            "tame genus   every heap up to {} has the genus of a nim position "
            "(whether the game is tame: quotient --analyze)\n",
            max_heap);
    }
    out += fmt::format(
        "settled      γ(n+2) = γn for every n >= {} at each of the {} position{} the heaps "
        "reach ({}), proven from γ0 to γ{}\n",
        t.alternates_from, t.positions, t.positions == 1 ? "" : "s",
        t.splits ? "sums of heaps other than *0, *1 and *2" : "single heaps", t.copies);
    std::cout << out;
    return EXIT_OK;
}

}  // namespace nimtb::apps
