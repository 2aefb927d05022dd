#include <fmt/core.h>

#include <bit>
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "engine/sequences/sequence.h"
#include "service/request/progress_bar.h"
#include "service/request/solve_report.h"
#include "service/sequences.h"
#include "service/views.h"

namespace nimtb::apps {

namespace {

constexpr const char* SEQUENCE_EXAMPLES = R"(examples:
  nimtb sequence --rules octal:0.77 --max-heap 100      # Kayles
  nimtb sequence --rules grundy --max-heap 1048576 --json
  nimtb sequence --rules octal:0.16 --until-proven      # Gangolli and Plambeck's period
  nimtb sequence --rules subtract:2,5,7 --max-heap 80

The normal-play values g(0), g(1), ... of single heaps, for rules whose moves
touch one heap, by the Sprague-Grundy method: a split's value is the XOR of
its parts' values. No table is needed. Take-and-break games use the
sparse-space method once a few thousand values show its mask (--method).
The period is reported as proven where a theorem makes the values computed a
proof (subtraction games; octal codes, by the octal periodicity theorem of
Guy and Smith), else as observed within the values (up to 100000 heaps), or
not claimed. --until-proven computes until a period is proven, up to
--limit heaps.
)";

// A sequence longer than this prints its first values only (--json and
// --output give them all).
constexpr uint64_t PRINTED = 2000;
// A sequence longer than this prints its record (engine::SequenceRecord).
constexpr uint64_t RECORD_FROM = uint64_t{1} << 16;

// The request of the options, or of --request.
service::SequenceRequest sequence_request(const po::variables_map& vm) {
    if (const auto j = request_option(vm, {"json", "progress"}))
        return service::sequence_request_from_json(*j);
    if (!vm.count("rules")) throw UsageError("missing --rules");
    const bool until = vm.count("until-proven") > 0;
    if (until == (vm.count("max-heap") > 0))
        throw UsageError("give --max-heap N or --until-proven, not both or neither");
    if (vm.count("limit") && !until) throw UsageError("--limit goes with --until-proven");
    service::SequenceRequest request;
    request.rule = engine::Rule::parse(vm["rules"].as<std::string>());
    if (until) {
        if (vm.count("limit")) request.limit = number(vm, "limit", LIMIT);
    } else {
        request.max_heap = number(vm, "max-heap", SEQUENCE_MAX_HEAP);
    }
    request.method = engine::parse_sequence_method(vm["method"].as<std::string>());
    request.threads = static_cast<unsigned>(number(vm, "threads", THREADS));
    if (vm.count("output")) request.output = vm["output"].as<std::string>();
    request.overwrite = vm.count("force") > 0;
    if (vm.count("checkpoint")) request.checkpoint = vm["checkpoint"].as<std::string>();
    return request;
}

}  // namespace

int cmd_sequence(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("rules,r", po::value<std::string>(), "the rule")(
        "max-heap,H", po::value<int64_t>(), ranged("the largest heap", SEQUENCE_MAX_HEAP).c_str())(
        "until-proven", "compute until a period is proven (octal codes, subtraction games)")(
        "limit", po::value<int64_t>(),
        ranged("with --until-proven: the largest heap (default 16777216)", LIMIT).c_str())(
        "method,m", po::value<std::string>()->default_value("auto"),
        "auto, plain (every move of every heap) or sparse (the sparse-space method)")(
        "threads,t", po::value<int64_t>()->default_value(0),
        ranged("worker threads (the sparse method uses at most 2); 0: every core once a heap "
               "costs more than handing it over",
               THREADS)
            .c_str())("output,o", po::value<std::string>(),
                      "also write the values and the period to this HDF5 file (docs/FORMAT.md)")(
        "force,f", "overwrite --output if it exists")(
        "checkpoint", po::value<std::string>(),
        fmt::format("save the values in this folder as they go (every {} heaps, and at Ctrl-C); "
                    "the same command run again resumes from it (removed once done)",
                    engine::SAVE_EVERY)
            .c_str())("json", "print JSON")(
        "progress", "draw the progress bar even when stderr is not a terminal");
    add_request_options(opts);
    const auto vm =
        parse_arguments("sequence", args, opts, {},
                        "--rules RULE (--max-heap N | --until-proven [--limit N]) "
                        "[-o FILE] [--checkpoint DIR] [--json] | --request JSON [--events json]",
                        SEQUENCE_EXAMPLES);
    if (!vm) return EXIT_OK;
    const service::SequenceRequest request = sequence_request(*vm);
    const uint64_t bytes = service::check_sequence(request);  // the memory, before any work
    Report report(
        *vm, fmt::format("sequence ({}B)", service::human_count(double(bytes))),
        (service::stderr_is_terminal() || vm->count("progress")) && request.heaps() >= 100'000);
    const engine::LongSequence seq = service::compute_sequence(request, report.hooks());
    if (report.events() || vm->count("json")) {
        const nlohmann::json j = service::sequence_json(request.rule, seq);
        report.result(j, [&] { return j.dump() + "\n"; });
        return EXIT_OK;
    }
    report.finish();
    const engine::Rule& rule = request.rule;
    const std::vector<uint16_t>& g = seq.values;
    const std::string method =
        seq.method == engine::SequenceMethod::sparse
            ? fmt::format("sparse-space (mask {}, {} rare heaps)", seq.mask, seq.rare_heaps)
            : std::string("plain");
    const size_t shown = std::min<size_t>(g.size(), PRINTED);
    std::string out = fmt::format(
        "rules        {}\nmethod       sprague-grundy (normal play; a split's value is the XOR "
        "of its parts'), {}\nvalues of a heap of 0, 1, 2, ..., {} tokens{}:\n",
        rule.canonical(), method, g.size() - 1,
        shown < g.size() ? fmt::format(" (the first {}; --json prints all)", shown) : "");
    for (size_t i = 0; i < shown; i += 20) {
        out += fmt::format("  {:>6}:", i);
        for (size_t k = i; k < std::min(shown, i + 20); ++k) out += fmt::format(" {}", g[k]);
        out += "\n";
    }
    // The finding as a sentence of its own: "Period 12 from heap 71, proven: ...".
    std::string finding = service::reported_period(rule, seq).explanation;
    if (!finding.empty()) finding[0] = static_cast<char>(std::toupper(finding[0]));
    out += finding + "\n";
    // At research length, where the values stand at each power of two.
    const engine::SequenceRecord& record = seq.record;
    if (g.size() > RECORD_FROM && !record.milestones.empty()) {
        out += fmt::format("where the values stand{}:\n",
                           record.mask ? fmt::format(" (rare: under mask {})", record.mask) : "");
        for (const engine::Milestone& m : record.milestones) {
            const std::string heaps = std::has_single_bit(m.heaps)
                                          ? fmt::format("2^{}", std::countr_zero(m.heaps))
                                          : std::to_string(m.heaps);
            out += fmt::format("  {:>10} heaps: largest value {}, first at heap {}", heaps,
                               m.largest, m.largest_heap);
            out += record.mask ? fmt::format("; {} rare heaps\n", m.rare_heaps) : "\n";
        }
    }
    std::cout << out;
    return EXIT_OK;
}

}  // namespace nimtb::apps
