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
    engine::QuotientOptions options;
    options.cancel = hooks.cancel;
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
    return j;
}

}  // namespace nimtb::service
