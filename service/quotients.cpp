#include "service/quotients.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/base/errors.h"
#include "engine/game/standard_form.h"
#include "engine/quotients/structure.h"
#include "io/codec/publish.h"
#include "io/output_path.h"
#include "io/quotient_file.h"
#include "service/request/fields.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::service {

engine::Rule quotient_file_rule(const std::string& path) {
    return io::quotient_file_rule(path);
}

StoredQuotient read_quotient(const std::string& path, const Hooks& hooks) {
    return io::read_quotient_file(path, hooks.cancel);
}

namespace {

// The fields of a quotient request under their JSON names; the heap bound
// (max_heap, or until_proven and limit) is read beside them.
constexpr auto QUOTIENT_FIELDS = [](auto& r, auto&& f) {
    f("rules", r.rule);
    f("output", r.output);
    f("overwrite", r.overwrite);
    f("time_limit", r.time_limit, TIME_LIMIT);
    f("max_order", r.max_order, Range{2, engine::MAX_QUOTIENT_ORDER});
    f("max_copies", r.max_copies, MAX_COPIES);
    f("resume", r.resume);
    f("analyze", r.analyze);
    f("compare", r.compare);
};

}  // namespace

nlohmann::json to_json(const QuotientRequest& r) {
    nlohmann::json j = write_fields(r, QUOTIENT_FIELDS);
    if (r.time_limit == 0) j.erase("time_limit");  // none
    if (r.until_proven) {
        j["until_proven"] = true;
        j["limit"] = r.max_heap;
    } else {
        j["max_heap"] = r.max_heap;
    }
    return j;
}

QuotientRequest quotient_request_from_json(const nlohmann::json& j) {
    QuotientRequest r;
    read_fields(j, r, QUOTIENT_FIELDS, "quotient", {"max_heap", "until_proven", "limit"});
    if (!j.contains("rules")) {
        if (r.resume.empty()) throw InputError("a quotient request gives rules (or resume)");
        r.rule = quotient_file_rule(r.resume);
    }
    fields::read(j, "quotient", "until_proven", r.until_proven, Unranged{});
    std::optional<uint64_t> max_heap, limit;
    fields::read(j, "quotient", "max_heap", max_heap, MAX_HEAP);
    fields::read(j, "quotient", "limit", limit, LIMIT);
    if (r.until_proven == max_heap.has_value())
        throw InputError("a quotient request gives max_heap or until_proven, not both or neither");
    if (limit && !r.until_proven)
        throw InputError("a quotient request gives limit with until_proven");
    const uint64_t heaps = max_heap ? *max_heap : limit.value_or(DEFAULT_QUOTIENT_LIMIT);
    if (heaps > engine::MAX_QUOTIENT_HEAP)
        throw ResourceError(fmt::format("misère quotients are computed up to heap {}, not {}",
                                        engine::MAX_QUOTIENT_HEAP, heaps));
    r.max_heap = static_cast<uint32_t>(heaps);
    if (r.max_copies && (r.until_proven || r.time_limit || !r.output.empty()))
        throw InputError("max_copies goes without until_proven, time_limit and output");
    return r;
}

engine::MisereQuotient compute_quotient(const QuotientRequest& r, const Hooks& hooks) {
    if (r.max_heap < 1) throw InputError("the largest heap must be 1 or more, not 0");
    if (r.max_heap > engine::MAX_QUOTIENT_HEAP) {  // too large, as the command says it
        throw ResourceError(fmt::format("misère quotients are computed up to heap {}, not {}",
                                        engine::MAX_QUOTIENT_HEAP, r.max_heap));
    }
    if (r.max_copies && !r.output.empty()) {
        throw InputError(
            "a monoid checked with a cap on the copies of the largest heap is not a quotient, and "
            "is not written to a quotient file");
    }
    std::error_code ec;
    if (!r.output.empty()) io::check_output_kind(r.output);
    if (!r.output.empty() && !r.overwrite && std::filesystem::exists(r.output, ec)) {
        throw TableError(r.output + " already exists; choose another " +
                         mention(Option::sequence_out) + " or " + mention(Option::overwrite));
    }
    if (r.until_proven && !engine::quotient_provable(r.rule)) {
        throw InputError(fmt::format(
            "no periodicity theorem for misère quotients applies to {}: {} needs an octal code "
            "or a subtraction game; give {} instead",
            r.rule.canonical(), mention(Option::until_proven), mention(Option::max_heap)));
    }
    std::optional<StoredQuotient> resumed;
    if (!r.resume.empty()) {
        resumed = read_quotient(r.resume, hooks);
        if (resumed->rule.canonical() != r.rule.canonical()) {
            throw InputError(fmt::format("{} is a quotient of {}, not {}", r.resume,
                                         resumed->rule.canonical(), r.rule.canonical()));
        }
        if (resumed->quotient.monoid.max_heap() > r.max_heap) {
            throw InputError(
                fmt::format("{} holds Q_{} already; resuming it goes to a larger heap, not {}",
                            r.resume, resumed->quotient.monoid.max_heap(), r.max_heap));
        }
    }
    engine::QuotientOptions options;
    options.resume = resumed ? &resumed->quotient : nullptr;
    options.cancel = hooks.cancel;
    options.until_proven = r.until_proven;
    options.max_order = r.max_order;
    options.max_copies = r.max_copies;
    if (r.time_limit) {
        options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(r.time_limit);
    }
    if (hooks.progress) {
        options.progress = [&](uint32_t heap, uint32_t) { hooks.progress(heap, r.max_heap); };
    }
    engine::MisereQuotient q = engine::misere_quotient(r.rule, r.max_heap, options);
    if (!r.output.empty()) io::write_file_whole(r.output, quotient_json(r.rule, q).dump() + "\n");
    return q;
}

namespace {

nlohmann::json generators_json(const engine::MisereQuotient& q) {
    nlohmann::json gens = nlohmann::json::array();
    for (size_t g = 0; g < q.generators.size(); ++g) {
        gens.push_back({{"name", engine::generator_name(g)}, {"heap", q.generators[g]}});
    }
    return gens;
}

nlohmann::json proof_json(const engine::MisereQuotient& q) {
    if (!q.proof) return nullptr;
    return {{"preperiod", q.proof->preperiod},
            {"period", q.proof->period},
            {"explanation", q.proof->explanation}};
}

// A word as LaTeX: "a b^3" is "ab^{3}", generator g27 is g_{27}.
std::string latex_word(const std::string& word) {
    std::string out, token;
    std::istringstream in(word);
    while (in >> token) {
        const size_t caret = token.find('^');
        std::string name = token.substr(0, caret);
        if (name.size() > 1) name = fmt::format("{}_{{{}}}", name.substr(0, 1), name.substr(1));
        out += name;
        if (caret != std::string::npos) out += fmt::format("^{{{}}}", token.substr(caret + 1));
    }
    return out;
}

}  // namespace

std::string presentation_text(const engine::MisereQuotient& q, size_t p_shown) {
    const engine::BipartiteMonoid& m = q.monoid;
    std::string out = "generators  ";
    for (size_t g = 0; g < q.generators.size(); ++g) {
        out += fmt::format(" {} = heap {}{}", engine::generator_name(g), q.generators[g],
                           g + 1 < q.generators.size() ? "," : "");
    }
    out += "\nrelations   ";
    for (size_t i = 0; i < q.relations.size(); ++i) {
        out += fmt::format(" {} = {}{}", engine::word_text(q, q.relations[i].left),
                           engine::word_text(q, q.relations[i].right),
                           i + 1 < q.relations.size() ? "," : "");
    }
    size_t in_p = 0;
    std::string p_list;
    for (uint32_t x = 0; x < m.order; ++x) {
        if (!m.p[x]) continue;
        ++in_p;
        if (in_p <= p_shown)
            p_list += fmt::format("{}{}", in_p > 1 ? ", " : "", engine::word_text(q, q.words[x]));
    }
    out += fmt::format("\nP-portion    {} element{}: {}{}\n", in_p, in_p == 1 ? "" : "s", p_list,
                       in_p > p_shown ? ", ... (" + mention(Option::json) + " lists all)" : "");
    out += "phi          heap: element\n";
    for (uint32_t h = 1; h <= m.max_heap(); h += 6) {
        out += " ";
        for (uint32_t k = h; k <= std::min(m.max_heap(), h + 5); ++k) {
            out += fmt::format(" {:>5}: {:<8}", k, engine::word_text(q, q.words[m.phi[k]]));
        }
        out += "\n";
    }
    return out;
}

std::string presentation_latex(const engine::Rule& rule, const engine::MisereQuotient& q) {
    const engine::BipartiteMonoid& m = q.monoid;
    const auto word = [&](const engine::Heaps& w) { return latex_word(engine::word_text(q, w)); };
    std::string out = fmt::format("% The misère quotient Q_{} of {}: order {} (nimtb quotient)\n",
                                  m.max_heap(), rule.canonical(), m.order);
    if (q.proof) out += fmt::format("% {}\n", q.proof->explanation);
    out += "\\[\n  \\mathcal{Q} = \\left\\langle\\, ";
    for (size_t g = 0; g < q.generators.size(); ++g)
        out += (g ? ", " : "") + latex_word(engine::generator_name(g));
    if (q.generators.empty()) out += "\\ ";
    out += " \\;\\middle|\\; ";
    for (size_t i = 0; i < q.relations.size(); ++i) {
        out += fmt::format("{}{} = {}", i ? ",\\; " : "", word(q.relations[i].left),
                           word(q.relations[i].right));
    }
    out += " \\,\\right\\rangle\n\\]\n\\[\n  ";
    for (size_t g = 0; g < q.generators.size(); ++g) {
        out += fmt::format("{}{} = \\Phi({})", g ? ",\\; " : "",
                           latex_word(engine::generator_name(g)), q.generators[g]);
    }
    out += q.generators.empty() ? "\\mathcal{P} = \\{\\, " : ", \\qquad \\mathcal{P} = \\{\\, ";
    bool first = true;
    for (uint32_t x = 0; x < m.order; ++x) {
        if (!m.p[x]) continue;
        out += (first ? "" : ",\\; ") + word(q.words[x]);
        first = false;
    }
    out += " \\,\\}\n\\]\n";
    // Phi as Winning Ways tabulates a sequence: ten heaps a row.
    out +=
        "\\[\n  \\begin{array}{r|*{10}{c}}\n    \\Phi(n) & +0 & +1 & +2 & +3 & +4 & +5 & +6 & +7 & "
        "+8 & +9 \\\\ \\hline\n";
    for (uint32_t row = 0; row <= m.max_heap(); row += 10) {
        out += fmt::format("    {}", row);
        for (uint32_t h = row; h < row + 10; ++h)
            out += h <= m.max_heap() ? " & " + word(q.words[m.phi[h]]) : " &";
        out += " \\\\\n";
    }
    out += "  \\end{array}\n\\]\n";
    return out;
}

namespace {

constexpr auto GENUS_FIELDS = [](auto& r, auto&& f) {
    f("rules", r.rule);
    f("max_heap", r.max_heap, Range{0, engine::MAX_GENUS_HEAP});
};

}  // namespace

nlohmann::json to_json(const GenusRequest& r) {
    return write_fields(r, GENUS_FIELDS);
}

GenusRequest genus_request_from_json(const nlohmann::json& j) {
    GenusRequest r;
    read_fields(j, r, GENUS_FIELDS, "genus");
    for (const char* key : {"rules", "max_heap"})
        if (!j.contains(key)) throw InputError(fmt::format("a genus request gives {}", key));
    return r;
}

engine::GenusTable compute_genus(const GenusRequest& r, const Hooks& hooks) {
    engine::GenusOptions options;
    options.progress = hooks.progress;
    options.cancel = hooks.cancel;
    return engine::genus_of_heaps(r.rule, r.max_heap, options);
}

std::optional<uint32_t> first_wild_genus(const engine::GenusTable& t) {
    for (uint32_t h = 0; h < t.heaps.size(); ++h)
        if (!t.heaps[h].tame()) return h;
    return std::nullopt;
}

nlohmann::json genus_json(const engine::Rule& rule, const engine::GenusTable& t) {
    nlohmann::json heaps = nlohmann::json::array();
    for (uint32_t h = 0; h < t.heaps.size(); ++h) {
        const engine::Genus& g = t.heaps[h];
        heaps.push_back({{"heap", h},
                         {"normal", g.normal},
                         {"superscript", g.superscript},
                         {"genus", g.text()},
                         {"tame", g.tame()}});
    }
    const std::optional<uint32_t> wild = first_wild_genus(t);
    return {{"rules", rule.canonical()},
            {"max_heap", t.heaps.size() - 1},
            {"positions", t.positions},
            {"sums", t.splits},
            {"copies", t.copies},
            {"alternates_from", t.alternates_from},
            {"first_wild", wild ? nlohmann::json(*wild) : nlohmann::json(nullptr)},
            {"heaps", heaps}};
}

nlohmann::json standard_form_json(const engine::Rule& rule) {
    const engine::StandardForm form = engine::standard_form(rule);
    nlohmann::json steps = nlohmann::json::array();
    for (const engine::Rule& step : form.steps) steps.push_back(step.canonical());
    return {{"rules", form.rule.canonical()}, {"shift", form.shift}, {"steps", steps}};
}

nlohmann::json compare_quotients(const QuotientRequest& r, const engine::Rule& other,
                                 const Hooks& hooks) {
    if (r.until_proven || !r.output.empty() || r.max_copies || !r.resume.empty()) {
        throw InputError(
            "comparing two rules' quotients goes with a heap bound alone: no proof, output file, "
            "cap or resumed file");
    }
    const engine::StandardForm a = engine::standard_form(r.rule), b = engine::standard_form(other);
    const bool same_game = a.rule == b.rule;
    // Heap n of the first is heap n + shift of the second.
    const int64_t shift = same_game ? int64_t{a.shift} - int64_t{b.shift} : 0;
    QuotientRequest first = r, second = r;
    second.rule = other;
    (shift >= 0 ? second : first).max_heap = r.max_heap + static_cast<uint32_t>(std::abs(shift));
    const engine::MisereQuotient qa = compute_quotient(first, hooks);
    const engine::MisereQuotient qb = compute_quotient(second, hooks);
    const bool agree =
        shift >= 0 ? engine::same_quotient(qa.monoid, qb.monoid, static_cast<uint32_t>(shift))
                   : engine::same_quotient(qb.monoid, qa.monoid, static_cast<uint32_t>(-shift));
    return {{"rules", {r.rule.canonical(), other.canonical()}},
            {"standard_forms", {standard_form_json(r.rule), standard_form_json(other)}},
            {"same_game", same_game},
            {"shift", shift},
            {"max_heap", r.max_heap},
            {"orders", {qa.orders, qb.orders}},
            {"agree", agree}};
}

nlohmann::json structure_json(const engine::BipartiteMonoid& m) {
    const engine::QuotientStructure s = engine::quotient_structure(m);
    nlohmann::json idempotents = nlohmann::json::array();
    for (const engine::IdempotentPart& part : s.idempotents) {
        idempotents.push_back({{"element", part.idempotent},
                               {"subgroup", part.subgroup},
                               {"component", part.component},
                               {"lower_covers", part.lower_covers},
                               {"p_in_subgroup", part.p_in_subgroup}});
    }
    return {{"idempotents", idempotents},
            {"kernel_identity", s.kernel_identity},
            {"kernel", s.kernel},
            {"divisibility_classes", s.divisibility_classes},
            {"tame", s.tame ? nlohmann::json(*s.tame) : nlohmann::json(nullptr)}};
}

nlohmann::json quotient_json(const engine::Rule& rule, const engine::MisereQuotient& q,
                             bool analyze) {
    const engine::BipartiteMonoid& m = q.monoid;
    nlohmann::json j;
    j["rules"] = rule.canonical();
    j["convention"] = "misere";
    j["max_heap"] = m.max_heap();
    j["order"] = m.order;
    j["orders"] = q.orders;
    j["generators"] = generators_json(q);
    nlohmann::json rels = nlohmann::json::array();
    for (const engine::QuotientRelation& r : q.relations) {
        rels.push_back(
            {{"left", engine::word_text(q, r.left)}, {"right", engine::word_text(q, r.right)}});
    }
    j["relations"] = rels;
    nlohmann::json elements = nlohmann::json::array();
    nlohmann::json p_portion = nlohmann::json::array();
    for (uint32_t x = 0; x < m.order; ++x) {
        elements.push_back({{"word", engine::word_text(q, q.words[x])},
                            {"position", heaps_json(m.name[x])},
                            {"p", bool(m.p[x])}});
        if (m.p[x]) p_portion.push_back(x);
    }
    j["elements"] = elements;
    j["p_portion"] = p_portion;
    j["phi"] = m.phi;
    nlohmann::json table = nlohmann::json::array();
    for (uint32_t x = 0; x < m.order; ++x) {
        table.push_back(std::vector<uint32_t>(m.table.begin() + ptrdiff_t{x} * m.order,
                                              m.table.begin() + ptrdiff_t{x + 1} * m.order));
    }
    j["table"] = table;
    j["candidates_refuted"] = q.candidates;
    j["stopped"] = q.stopped.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.stopped);
    j["frontier"] = nullptr;
    if (q.frontier) {
        const engine::QuotientFrontier& f = *q.frontier;
        j["frontier"] = {{"heap", f.heap},
                         {"candidates_refuted", f.candidates},
                         {"order", f.order},
                         {"least_failure", heaps_json(f.failure.position)},
                         {"predicted", f.failure.predicted_p ? "P" : "N"},
                         {"tokens", f.tokens()},
                         {"at_least", f.at_least}};
    }
    j["proof"] = proof_json(q);
    j["max_copies"] = q.max_copies ? nlohmann::json(*q.max_copies) : nlohmann::json(nullptr);
    j["presentation"] = {{"text", presentation_text(q)}, {"latex", presentation_latex(rule, q)}};
    if (analyze) {
        j["structure"] = structure_json(m);
        j["standard_form"] = standard_form_json(rule);
    }
    return j;
}

nlohmann::json quotient_info_json(const std::string& path, const StoredQuotient& stored) {
    const engine::MisereQuotient& q = stored.quotient;
    const engine::BipartiteMonoid& m = q.monoid;
    return {{"path", path},
            {"format", "nimtb-quotient"},
            {"rules", stored.rule.canonical()},
            {"convention", "misere"},
            {"max_heap", m.max_heap()},
            {"order", m.order},
            {"generators", generators_json(q)},
            {"p_portion_size", std::count(m.p.begin(), m.p.end(), 1)},
            {"proof", proof_json(q)}};
}

engine::MisereQuotient answering_quotient(const engine::Rule& rule, uint64_t needed, uint32_t limit,
                                          const Hooks& hooks, uint32_t time_limit) {
    QuotientRequest r;
    r.rule = rule;
    r.time_limit = time_limit;
    r.until_proven = engine::quotient_provable(rule);
    r.max_heap = needed == 0 || needed > limit ? limit : static_cast<uint32_t>(needed);
    if (needed > limit && !r.until_proven) {
        throw InputError(fmt::format(
            "a heap of {} is beyond what a misère quotient of {} can answer: quotients of such a "
            "rule are never proven for every heap size, and {} is {}",
            needed, rule.canonical(), mention(Option::limit), limit));
    }
    engine::MisereQuotient q = compute_quotient(r, hooks);
    if (needed > q.monoid.max_heap() && !q.proof && !q.stopped.empty()) {
        throw InputError(fmt::format(
            "the misère quotient of {} did not reach heap {} within {} s ({}; Q_{} is the "
            "largest computed)",
            rule.canonical(), needed, time_limit, q.stopped, q.monoid.max_heap()));
    }
    if (needed > q.monoid.max_heap() && !q.proof) {
        throw InputError(
            fmt::format("a heap of {} is beyond what the misère quotient of {} answers: it is not "
                        "proven for every heap size up to heap {} ({})",
                        needed, rule.canonical(), q.monoid.max_heap(), mention(Option::limit)));
    }
    return q;
}

nlohmann::json misere_answer_json(const engine::Rule& rule, const engine::MisereQuotient& q,
                                  const std::vector<uint64_t>& heaps) {
    const uint32_t x = engine::position_element(q, heaps);
    const bool p = q.monoid.p[x];
    const auto move = engine::misere_winning_move(rule, q, heaps);
    if (!p && !move) throw std::logic_error("no winning move found from a misère N-position");
    nlohmann::json j = {{"rules", rule.canonical()},
                        {"convention", "misere"},
                        {"heaps", heaps},
                        {"to_move_wins", !p},
                        {"element", engine::word_text(q, q.words[x])},
                        {"quotient_order", q.monoid.order},
                        {"quotient_max_heap", q.monoid.max_heap()},
                        {"proven", q.proof.has_value()}};
    if (move) j["winning_move"] = heap_move_json(*move);
    return j;
}

std::optional<engine::Heaps> table_heaps(const std::vector<uint64_t>& heaps) {
    engine::Heaps out;
    for (uint64_t h : heaps) {
        if (h > UINT32_MAX) return std::nullopt;
        out.push_back(static_cast<uint32_t>(h));
    }
    return out;
}

MisereAnswer misere_answer(const engine::Rule& rule, const std::vector<uint64_t>& heaps,
                           uint64_t needed, uint32_t limit, const std::string& folder,
                           const Hooks& hooks) {
    const std::optional<engine::Heaps> small = table_heaps(heaps);
    bool quick = false;
    if (small) {
        try {
            quick = smallest_universe(rule, *small).size() <= SOLVE_ON_THE_SPOT;
        } catch (const ResourceError&) {  // past what a table holds
        }
    }
    MisereAnswer answer;
    try {
        answer.quotient =
            answering_quotient(rule, needed, limit, hooks, quick ? QUICK_QUOTIENT_SECONDS : 0);
        return answer;
    } catch (const InputError& e) {
        if (!small) throw;
        answer.why = e.what();
    } catch (const ResourceError& e) {
        if (!small) throw;
        answer.why = e.what();
    }
    try {
        answer.table = find_or_solve_table(folder, rule, engine::Convention::misere, *small, hooks);
    } catch (const TableError& e) {
        throw InputError(fmt::format("{}; {}", answer.why, e.what()));
    } catch (const ResourceError&) {  // past what a table holds
        throw InputError(answer.why);
    }
    return answer;
}

}  // namespace nimtb::service
