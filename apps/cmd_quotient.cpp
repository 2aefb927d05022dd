#include <fmt/core.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "engine/game/standard_form.h"
#include "engine/quotients/quotient.h"
#include "engine/quotients/structure.h"
#include "service/quotients.h"
#include "service/request/progress_bar.h"

namespace nimtb::apps {

namespace {

constexpr const char* QUOTIENT_EXAMPLES = R"(examples:
  nimtb quotient --rules octal:0.07 --max-heap 30     # Dawson's Kayles: 360 elements
  nimtb quotient --rules octal:0.77 --max-heap 80     # Kayles
  nimtb quotient --rules nim --max-heap 7 --json      # Bouton's misère Nim: 10 elements
  nimtb quotient --rules octal:0.77 --until-proven    # Kayles, every heap size
  nimtb quotient --rules kayles --until-proven --latex > kayles.tex   # for a paper
  nimtb quotient --rules octal:0.07 --max-heap 100 --time-limit 1800
  nimtb quotient --rules octal:0.07 --max-heap 100 --time-limit 1800 --max-order 32768
  nimtb quotient --rules octal:0.07 --max-heap 34 --max-copies 2 --max-order 32768 --json
  nimtb quotient --rules octal:0.54 --max-heap 60 -o q60.json
  nimtb quotient --resume q60.json --max-heap 100 -o q100.json   # the same as one run to 100
  nimtb quotient --rules octal:0.137 --compare octal:0.07 --max-heap 30   # Dawson's Chess and Kayles

The misère quotient Q_N of a rule whose moves touch one heap: positions whose
heaps have at most N tokens are indistinguishable when adding any such
position to both leaves their misère outcomes equal; the classes form a
finite commutative monoid. A position is a misère P-position exactly when the
product of its heaps' classes (phi) lies in the P-portion. Computed heap by
heap (Plambeck and Siegel's construction), and every quotient printed has
passed an exact check that it predicts the outcome of every position
(docs/QUOTIENTS.md says why the check is exact).

--until-proven (octal codes, subtraction games) goes on heap by heap, up to
--limit heaps (1000), until phi repeats over a window long enough to prove
that Q_N is the quotient of the whole game, heaps of every size; such a
quotient answers `nimtb query --misere` for heaps of any size.

--time-limit S goes as far as S seconds allow: it reports (and writes) the
largest quotient computed, every order heap by heap, why it stopped, and how
far the heap it stopped in got (its last candidate predicts every position
of fewer tokens than its least failure). --max-order lets candidates grow
past 8192 elements, to 32768 (a 4 GiB table), where memory allows.

--resume FILE goes on from a file that --output wrote (checked whole as it
is read): Q_{h+1} depends on Q_h alone, so the quotient, its orders and the
candidates counted are the ones a single run gives. A --time-limit run's
file holds the largest quotient it computed: resume it for the next heaps.

--analyze says what the quotient is made of (idempotents, maximal
subgroups, Archimedean components, the kernel, whether it is tame) and the
rule's standard form: the shortest code that is the same game, heaps
shifted (docs/QUOTIENTS.md). --compare RULE puts another rule's quotient
beside it: one game or two by their standard forms, and whether the
quotients agree up to the bound.

--max-copies J checks the last heap, N, only against positions with at most J
copies of heap N (no move makes a heap of N tokens, so they are closed under
moves and the check stays exact among them). What it prints for heap N is a
monoid that predicts each of those positions, with any number of smaller
heaps: a predictor, not the quotient Q_N, for where Q_N is too large to
compute (or infinite). It goes without --until-proven, --time-limit and -o.
)";

// Words of elements, the first `most` of them, then how many in all.
std::string words_text(const engine::MisereQuotient& q, const std::vector<uint32_t>& elements,
                       size_t most = 6) {
    std::string text;
    for (size_t i = 0; i < std::min(most, elements.size()); ++i) {
        text += fmt::format("{}{}", i ? ", " : "", engine::word_text(q, q.words[elements[i]]));
    }
    if (elements.size() > most) text += fmt::format(" ... ({} in all)", elements.size());
    return text.empty() ? "-" : text;
}

// --analyze: the lines structure_json's figures make, with elements by their words.
std::string structure_text(const engine::MisereQuotient& q) {
    const engine::QuotientStructure s = engine::quotient_structure(q.monoid);
    std::string out = fmt::format(
        "structure    {} idempotent{}, {} classes of mutual divisibility; the kernel, {} "
        "element{}, is the subgroup of {}\n",
        s.idempotents.size(), s.idempotents.size() == 1 ? "" : "s", s.divisibility_classes,
        s.kernel.size(), s.kernel.size() == 1 ? "" : "s",
        engine::word_text(q, q.words[s.kernel_identity]));
    out += fmt::format("  {:<14} {:>8} {:>9}  {:<20} {}\n", "idempotent", "subgroup", "component",
                       "lower covers", "P in subgroup");
    for (const engine::IdempotentPart& part : s.idempotents) {
        out += fmt::format("  {:<14} {:>8} {:>9}  {:<20} {}\n",
                           engine::word_text(q, q.words[part.idempotent]), part.subgroup.size(),
                           part.component.size(), words_text(q, part.lower_covers),
                           words_text(q, part.p_in_subgroup));
    }
    if (s.tame) {
        out +=
            fmt::format("tame         yes: T_{}, the quotient of misère Nim with heaps below {}\n",
                        *s.tame, uint64_t{1} << *s.tame);
    } else {
        out += "tame         no (isomorphic to no T_n, misère Nim's quotients)\n";
    }
    return out;
}

// "heap n of octal:0.137 is heap n + 2 of octal:0.4 (through octal:0.07)".
std::string standard_form_text(const engine::Rule& rule) {
    const engine::StandardForm f = engine::standard_form(rule);
    if (f.steps.empty()) {
        return fmt::format("standard form {}: no shorter code is the same game", rule.canonical());
    }
    std::string through;
    for (size_t i = 0; i + 1 < f.steps.size(); ++i)
        through += fmt::format("{}{}", i ? ", " : " (through ", f.steps[i].canonical());
    if (!through.empty()) through += ")";
    return fmt::format("standard form {}: heap n of {} is heap n + {} of {}{}", f.rule.canonical(),
                       rule.canonical(), f.shift, f.rule.canonical(), through);
}

// compare_quotients' JSON as two lines.
std::string comparison_text(const nlohmann::json& c) {
    const std::string a = c["rules"][0], b = c["rules"][1];
    const int64_t shift = c["shift"];
    const auto n = c["max_heap"].get<uint32_t>();
    std::string out;
    if (c["same_game"]) {
        out = fmt::format(
            "one game      both have the standard form {}; heap n of {} is heap n + {} of {}\n",
            c["standard_forms"][0]["rules"].get<std::string>(), shift >= 0 ? a : b, std::abs(shift),
            shift >= 0 ? b : a);
    } else {
        out = fmt::format("two games     standard forms {} and {}; compared heap for heap\n",
                          c["standard_forms"][0]["rules"].get<std::string>(),
                          c["standard_forms"][1]["rules"].get<std::string>());
    }
    const uint32_t na = shift >= 0 ? n : n + static_cast<uint32_t>(-shift);
    const uint32_t nb = shift >= 0 ? n + static_cast<uint32_t>(shift) : n;
    out += fmt::format(
        "quotients     Q_{} of {} ({} elements) and Q_{} of {} ({} elements) {}", na, a,
        c["orders"][0].back().get<uint32_t>(), nb, b, c["orders"][1].back().get<uint32_t>(),
        c["agree"] ? "are one quotient: phi for phi, product for product, P for P" : "differ");
    return out;
}

// The request of the options, or of --request.
service::QuotientRequest quotient_request(const po::variables_map& vm) {
    if (const auto j = request_option(vm, {"json", "latex", "progress"}))
        return service::quotient_request_from_json(*j);
    if (!vm.count("rules") && !vm.count("resume")) throw UsageError("missing --rules");
    service::QuotientRequest request;
    request.until_proven = vm.count("until-proven") > 0;
    if (request.until_proven == (vm.count("max-heap") > 0))
        throw UsageError("give --max-heap N or --until-proven, not both or neither");
    if (vm.count("limit") && !request.until_proven)
        throw UsageError("--limit goes with --until-proven");
    if (vm.count("resume")) {
        request.resume = vm["resume"].as<std::string>();
        request.rule = vm.count("rules") ? engine::Rule::parse(vm["rules"].as<std::string>())
                                         : service::quotient_file_rule(request.resume);
    } else {
        request.rule = engine::Rule::parse(vm["rules"].as<std::string>());
    }
    const char* bound = request.until_proven ? "limit" : "max-heap";
    request.max_heap =
        vm.count(bound) ? quotient_heaps(number(vm, bound, request.until_proven ? LIMIT : MAX_HEAP))
                        : service::DEFAULT_QUOTIENT_LIMIT;
    if (vm.count("output")) request.output = vm["output"].as<std::string>();
    request.overwrite = vm.count("force") > 0;
    if (vm.count("time-limit"))
        request.time_limit = static_cast<uint32_t>(number(vm, "time-limit", TIME_LIMIT));
    if (vm.count("max-order"))
        request.max_order = static_cast<uint32_t>(number(vm, "max-order", MAX_ORDER));
    if (vm.count("max-copies")) {
        if (request.until_proven || vm.count("time-limit") || vm.count("output"))
            throw UsageError("--max-copies goes without --until-proven, --time-limit and -o");
        request.max_copies = static_cast<uint32_t>(number(vm, "max-copies", MAX_COPIES));
    }
    request.analyze = vm.count("analyze") > 0;
    if (vm.count("compare")) request.compare = engine::Rule::parse(vm["compare"].as<std::string>());
    return request;
}

}  // namespace

int cmd_quotient(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("rules,r", po::value<std::string>(), "the rule (moves on one heap)")(
        "max-heap,H", po::value<int64_t>(),
        ranged("the largest heap; quotients go to 100000", MAX_HEAP).c_str())(
        "until-proven", "go on until the quotient is proven for every heap size")(
        "limit", po::value<int64_t>(),
        ranged("with --until-proven: the largest heap tried (default 1000)", LIMIT).c_str())(
        "output,o", po::value<std::string>(),
        "also write the quotient to this JSON file (docs/FORMAT.md)")(
        "force,f", "overwrite --output if it exists")(
        "compare", po::value<std::string>(),
        "compare with another rule's quotient: whether the two are one game by their standard "
        "forms (and with which shift of heaps), and whether their quotients agree up to the "
        "heap bound")(
        "resume", po::value<std::string>(),
        "go on from a quotient file written by --output (the same rule; --rules may be left "
        "out): the result is the one a run from heap 1 gives")(
        "time-limit", po::value<int64_t>(),
        ranged("stop after this many seconds (or where a candidate grows past the limits) and "
               "report the largest quotient computed",
               TIME_LIMIT)
            .c_str())("max-order", po::value<int64_t>(),
                      ranged("the largest order a candidate may have (default 8192; its table "
                             "takes 4 order^2 bytes, and a step up to twice that)",
                             MAX_ORDER)
                          .c_str())(
        "max-copies", po::value<int64_t>(),
        ranged("check the largest heap only against positions with at most this many copies of "
               "it (a predictor for those positions, not a quotient)",
               MAX_COPIES)
            .c_str())("analyze",
                      "also say what the quotient is made of: its idempotents, maximal subgroups, "
                      "Archimedean components and kernel, and whether it is tame")(
        "latex",
        "print the presentation as LaTeX (the quotient, its generators, the P-portion "
        "and phi), ready for a paper")("json", "print JSON")(
        "progress", "draw the progress bar even when stderr is not a terminal");
    add_request_options(opts);
    const auto vm = parse_arguments("quotient", args, opts, {},
                                    "(--rules RULE | --resume FILE) (--max-heap N | --until-proven "
                                    "[--limit N]) [--time-limit S | --max-copies J] "
                                    "[--max-order N] [-o FILE] [--analyze] [--json | --latex] | "
                                    "--request JSON [--events json]",
                                    QUOTIENT_EXAMPLES);
    if (!vm) return EXIT_OK;
    const service::QuotientRequest request = quotient_request(*vm);
    const bool latex = vm->count("latex") > 0;
    if (latex && (vm->count("json") || request.analyze || request.compare || vm->count("events")))
        throw UsageError("--latex goes without --json, --analyze, --compare and --events");
    Report report(*vm, "quotient", service::stderr_is_terminal() || vm->count("progress"));
    if (request.compare) {
        const nlohmann::json c =
            service::compare_quotients(request, *request.compare, report.hooks());
        report.result(c,
                      [&] { return (vm->count("json") ? c.dump() : comparison_text(c)) + "\n"; });
        return EXIT_OK;
    }
    const engine::MisereQuotient q = service::compute_quotient(request, report.hooks());
    const bool analyze = request.analyze;
    if (latex) {
        report.finish();
        std::cout << service::presentation_latex(request.rule, q);
        return EXIT_OK;
    }
    if (report.events() || vm->count("json")) {
        const nlohmann::json j = service::quotient_json(request.rule, q, analyze);
        report.result(j, [&] { return j.dump() + "\n"; });
        return EXIT_OK;
    }
    report.finish();
    const engine::BipartiteMonoid& m = q.monoid;
    std::string out = fmt::format("rules        {} (misère play)\nheaps        at most {} tokens",
                                  request.rule.canonical(), m.max_heap());
    if (q.max_copies) {
        out += fmt::format(
            ", at most {} heap{} of {}\nelements     {} (a predictor for these "
            "positions, not the quotient Q_{})\n",
            *q.max_copies, *q.max_copies == 1 ? "" : "s", m.max_heap(), m.order, m.max_heap());
        out += "orders       |Q_h| for h = 1, 2, ... (the last: the predictor's elements):";
    } else {
        out += fmt::format("\norder        {}\n", m.order);
        out += "orders       |Q_h| for h = 1, 2, ...:";
    }
    for (size_t h = 1; h < q.orders.size(); ++h) out += fmt::format(" {}", q.orders[h]);
    out += '\n';
    out += service::presentation_text(q, 40);
    out += fmt::format(
        "checked      predicts the misère outcome of every position with heaps of at most {}",
        m.max_heap());
    if (q.max_copies) {
        out += fmt::format(" and at most {} cop{} of heap {}", *q.max_copies,
                           *q.max_copies == 1 ? "y" : "ies", m.max_heap());
    }
    out += "\n";
    if (!q.stopped.empty()) {
        out += fmt::format("stopped      before heap {}: {}\n", m.max_heap() + 1, q.stopped);
    }
    if (q.frontier) {
        const engine::QuotientFrontier& f = *q.frontier;
        out += fmt::format(
            "frontier     heap {}: {} candidate{} refuted; the last, of {} elements, predicts "
            "every position of fewer than {} tokens right, and {} wrong (it says {}, the position "
            "is {}); so Q_{} has at least {} elements\n",
            f.heap, f.candidates, f.candidates == 1 ? "" : "s", f.order, f.tokens(),
            engine::format_heaps(f.failure.position), f.failure.predicted_p ? "P" : "N",
            f.failure.predicted_p ? "N" : "P", f.heap, f.at_least);
    }
    if (q.proof) {
        out += fmt::format("proven       every heap size: {}\n", q.proof->explanation);
    } else if (request.until_proven && q.stopped.empty()) {
        out += fmt::format("proven       not proven up to heap {}\n", m.max_heap());
    }
    if (analyze) out += structure_text(q) + standard_form_text(request.rule) + "\n";
    std::cout << out;
    return EXIT_OK;
}

}  // namespace nimtb::apps
