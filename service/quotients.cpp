#include "service/quotients.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/base/errors.h"
#include "service/views.h"

namespace nimtb::service {

namespace {

void write_whole(const std::string& path, const std::string& text) {
    const std::string tmp = fmt::format("{}.tmp-{}", path, static_cast<long>(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            throw TableError("cannot write " + path +
                             " (is the disk full, or the folder missing?)");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw TableError("cannot write " + path + ": " + ec.message());
    }
}

}  // namespace

engine::MisereQuotient compute_quotient(const QuotientRequest& r, const Hooks& hooks) {
    if (r.max_heap < 1 || r.max_heap > engine::MAX_QUOTIENT_HEAP) {
        throw InputError(fmt::format("the largest heap must be 1 to {}, not {}",
                                     engine::MAX_QUOTIENT_HEAP, r.max_heap));
    }
    std::error_code ec;
    if (!r.output.empty() && !r.overwrite && std::filesystem::exists(r.output, ec)) {
        throw TableError(r.output + " already exists; choose another " +
                         mention(Option::sequence_out) + " or " + mention(Option::overwrite));
    }
    if (r.until_proven && !engine::quotient_provable(r.rule)) {
        throw InputError(fmt::format(
            "no periodicity theorem for misère quotients applies to {}: --until-proven needs an "
            "octal code or a subtraction game; give --max-heap instead",
            r.rule.canonical()));
    }
    engine::QuotientOptions options;
    options.cancel = hooks.cancel;
    options.until_proven = r.until_proven;
    if (hooks.progress) {
        options.progress = [&](uint32_t heap, uint32_t) { hooks.progress(heap, r.max_heap); };
    }
    engine::MisereQuotient q = engine::misere_quotient(r.rule, r.max_heap, options);
    if (!r.output.empty()) write_whole(r.output, quotient_json(r.rule, q).dump() + "\n");
    return q;
}

nlohmann::json quotient_json(const engine::Rule& rule, const engine::MisereQuotient& q) {
    const engine::BipartiteMonoid& m = q.monoid;
    nlohmann::json j;
    j["rules"] = rule.canonical();
    j["convention"] = "misere";
    j["max_heap"] = m.max_heap();
    j["order"] = m.order;
    j["orders"] = q.orders;
    nlohmann::json gens = nlohmann::json::array();
    for (size_t g = 0; g < q.generators.size(); ++g) {
        gens.push_back({{"name", engine::generator_name(g)}, {"heap", q.generators[g]}});
    }
    j["generators"] = gens;
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
    j["proof"] = nullptr;
    if (q.proof) {
        j["proof"] = {{"preperiod", q.proof->preperiod},
                      {"period", q.proof->period},
                      {"explanation", q.proof->explanation}};
    }
    return j;
}

engine::MisereQuotient answering_quotient(const engine::Rule& rule, uint64_t needed, uint32_t limit,
                                          const Hooks& hooks) {
    QuotientRequest r;
    r.rule = rule;
    r.until_proven = engine::quotient_provable(rule);
    r.max_heap = needed == 0 || needed > limit ? limit : static_cast<uint32_t>(needed);
    if (needed > limit && !r.until_proven) {
        throw InputError(fmt::format(
            "a heap of {} is beyond what a misère quotient of {} can answer: quotients of such a "
            "rule are never proven for every heap size, and --limit is {}",
            needed, rule.canonical(), limit));
    }
    engine::MisereQuotient q = compute_quotient(r, hooks);
    if (needed > q.monoid.max_heap() && !q.proof) {
        throw InputError(
            fmt::format("a heap of {} is beyond what the misère quotient of {} answers: it is not "
                        "proven for every heap size up to heap {} (--limit)",
                        needed, rule.canonical(), q.monoid.max_heap()));
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
    if (move) {
        j["winning_move"] = {{"heap", move->index + 1},
                             {"heap_size", move->heap},
                             {"amount", move->taken},
                             {"leaves", move->leaves},
                             {"phrase", move->phrase}};
    }
    return j;
}

}  // namespace nimtb::service
