#include "service/views.h"

#include <algorithm>

namespace nimtb::service {

namespace {

nlohmann::json row_json(const engine::CensusRow& r, bool tuples) {
    nlohmann::json j = {{"positions", r.positions}, {"p_positions", r.p_positions}};
    if (tuples) {
        j["tuples"] = r.tuples.value_or(0);
        j["p_tuples"] = r.p_tuples.value_or(0);
    }
    return j;
}

}  // namespace

nlohmann::json heaps_json(const engine::Heaps& h) {
    nlohmann::json j = nlohmann::json::array();
    for (uint32_t a : h) j.push_back(a);
    return j;
}

nlohmann::json move_json(const io::ProbedMove& m) {
    // One shape for a move everywhere (heap_move_json too; docs/MOVES.md):
    // "heap" is the 1-based place in the position as given (the "position"
    // array, empty heaps included), "leaves" what is left of it, ascending;
    // both null, with "heap_size" and "take", for a move of several heaps.
    // The phrase names the heap by its size.
    const nlohmann::json none = nullptr;
    nlohmann::json j = {{"move", m.phrase},
                        {"heap", m.heap ? nlohmann::json(m.heap) : none},
                        {"heap_size", m.heap ? nlohmann::json(m.heap_size) : none},
                        {"take", m.heap ? nlohmann::json(m.amount) : none},
                        {"leaves", m.heap ? nlohmann::json(m.touches.front().leaves) : none},
                        {"result", heaps_json(m.result)},
                        {"value", m.value},
                        {"wins", m.winning()}};
    j["remoteness"] = m.remoteness ? nlohmann::json(*m.remoteness) : nlohmann::json(nullptr);
    nlohmann::json touches = nlohmann::json::array();
    for (const io::Touch& t : m.touches)
        touches.push_back({{"heap", t.heap}, {"size", t.size}, {"leaves", t.leaves}});
    j["touches"] = touches;
    return j;
}

void refuse_blank_position(std::string_view text) {
    if (text.find_first_not_of(" ,\t\r\n") == std::string_view::npos)
        throw InputError(
            "the position is blank: give heap sizes such as '3 4 5' ('0' is the board with no "
            "tokens)");
}

engine::Heaps typed_position(std::string_view text) {
    refuse_blank_position(text);
    return engine::parse_heaps(text);
}

nlohmann::json query_json(io::Prober& prober, const engine::Heaps& heaps, bool line) {
    const io::ProbeResult r = prober.probe(heaps);
    nlohmann::json j = {{"position", heaps_json(r.heaps)},
                        {"rank", r.rank},
                        {"to_move_wins", r.to_move_wins()},
                        {"value", r.value}};
    j["remoteness"] = r.remoteness ? nlohmann::json(*r.remoteness) : nlohmann::json(nullptr);
    j["moves"] = nlohmann::json::array();
    for (const auto& m : r.moves) j["moves"].push_back(move_json(m));
    if (line) {
        j["line"] = nlohmann::json::array();
        for (const auto& m : prober.principal_line(heaps)) j["line"].push_back(move_json(m));
    }
    return j;
}

nlohmann::json info_json(const io::TableReader& table) {
    const io::TableInfo& i = table.info();
    const io::TableStorage storage = table.storage();
    nlohmann::json j = {
        {"path", i.path},
        {"rules", i.rules},
        {"convention", engine::to_string(i.convention)},
        {"max_heaps", i.max_heaps},
        {"max_heap_size", i.max_heap_size},
        {"positions", i.positions},
        {"index", i.index},
        // N of a universe of at most N tokens in all; null for a box.
        {"max_total", i.max_total ? nlohmann::json(i.max_total) : nlohmann::json(nullptr)},
        {"format_version", i.format_version},
        {"quantities", {{"value", i.value_bits}}},
        {"compression", io::to_string(i.compression)},
        {"chunk_elements", i.chunk_elements},
        {"file_bytes", i.file_bytes},
        {"data_bytes", i.data_bytes},
        {"stored_bytes", storage.stored_bytes},
        {"compression_ratio", storage.compression_ratio},
        {"generator", i.generator},
        {"method", i.method},
    };
    // What a move can do, for a front end that draws the board: touch one
    // heap or several, leave up to max_parts heaps of the one it touches,
    // and whether every move removes tokens (not so where a heap is split
    // whole, as in Grundy's game). Where all three hold for two parts, a
    // move knocks down a run of a row of pins, as in Kayles.
    const engine::Rule& rule = table.rule();
    j["move_shape"] = {{"one_heap", rule.one_heap()},
                       {"max_parts", rule.max_parts()},
                       {"removes_tokens", !rule.keeps_total()}};
    j["transforms"] = {{"value", io::to_string(i.value_transform)}};
    if (i.remoteness_bits) {
        j["quantities"]["remoteness"] = i.remoteness_bits;
        j["transforms"]["remoteness"] = io::to_string(i.remoteness_transform);
    }
    return j;
}

nlohmann::json census_json(const io::TableReader& table, const engine::Census& c) {
    const engine::Universe& u = table.universe();
    const bool t = c.has_tuples;
    nlohmann::json j = {{"rules", table.rule().canonical()},
                        {"convention", engine::to_string(table.info().convention)},
                        {"universe", u.describe()},
                        {"tuple_length", u.max_heaps()},
                        {"all", row_json(c.all, t)}};
    j["by_total"] = nlohmann::json::array();
    for (size_t i = 0; i < c.by_total.size(); ++i) {
        nlohmann::json r = row_json(c.by_total[i], t);
        r["total"] = i;
        j["by_total"].push_back(r);
    }
    j["by_largest"] = nlohmann::json::array();
    for (size_t i = 0; i < c.by_largest.size(); ++i) {
        nlohmann::json r = row_json(c.by_largest[i], t);
        r["largest"] = i;
        j["by_largest"].push_back(r);
    }
    if (table.has_remoteness()) {
        j["by_remoteness"] = nlohmann::json::array();
        for (size_t i = 0; i < c.by_remoteness.size(); ++i) {
            nlohmann::json r = row_json(c.by_remoteness[i], t);
            r["remoteness"] = i;
            j["by_remoteness"].push_back(r);
        }
    }
    return j;
}

nlohmann::json period_json(const engine::Periodicity& p) {
    nlohmann::json j = {{"basis", engine::to_string(p.basis)}, {"explanation", p.explanation}};
    if (p.period) {
        j["preperiod"] = p.preperiod;
        j["period"] = p.period;
        j["saltus"] = p.saltus;
    }
    if (p.needed_max_heap) j["needed_max_heap"] = *p.needed_max_heap;
    return j;
}

namespace {

// Beyond this many heaps the table-style search for observed periods is too
// slow (quadratic); proofs are found while computing.
constexpr uint64_t OBSERVE_UP_TO = 100'000;

}  // namespace

engine::Periodicity reported_period(const engine::Rule& rule, const engine::LongSequence& seq) {
    const std::vector<uint16_t>& g = seq.values;
    if (seq.period.basis == engine::Basis::proof || g.size() > OBSERVE_UP_TO + 1) return seq.period;
    return engine::find_period(rule, engine::Convention::normal,
                               std::vector<uint32_t>(g.begin(), g.end()));
}

nlohmann::json sequence_json(const engine::Rule& rule, const engine::LongSequence& seq) {
    nlohmann::json j = {
        {"rules", rule.canonical()},         {"convention", "normal"},
        {"method", "sprague-grundy"},        {"algorithm", engine::to_string(seq.method)},
        {"max_heap", seq.values.size() - 1}, {"values", seq.values}};
    if (seq.method == engine::SequenceMethod::sparse) {
        j["mask"] = seq.mask;
        j["rare_heaps"] = seq.rare_heaps;
    }
    j["period"] = period_json(reported_period(rule, seq));
    j["record"] = record_json(seq.record);
    return j;
}

nlohmann::json record_json(const engine::SequenceRecord& r) {
    nlohmann::json milestones = nlohmann::json::array(), rare = nlohmann::json::array();
    for (const engine::Milestone& m : r.milestones) {
        milestones.push_back({{"heaps", m.heaps},
                              {"largest_value", m.largest},
                              {"largest_value_heap", m.largest_heap},
                              {"rare_heaps", m.rare_heaps}});
    }
    for (const engine::RareHeap& h : r.rare) rare.push_back({h.heap, h.value});
    return {{"mask", r.mask}, {"milestones", milestones}, {"rare", rare}};
}

nlohmann::json sequence_info_json(const std::string& path, const io::SequenceFile& s) {
    const auto largest = std::max_element(s.values.begin(), s.values.end());
    nlohmann::json j = {{"path", path},
                        {"format", io::SEQUENCE_FORMAT_NAME},
                        {"format_version", io::SEQUENCE_FORMAT_VERSION},
                        {"rules", s.rule.canonical()},
                        {"convention", "normal"},
                        {"algorithm", s.algorithm},
                        {"max_heap", s.values.size() - 1},
                        {"largest_value", *largest},
                        {"largest_value_heap", largest - s.values.begin()},
                        {"period", period_json(s.period)}};
    if (s.record) j["record"] = record_json(*s.record);
    return j;
}

nlohmann::json proven_answer_json(const ProvenGame& proven, const std::vector<uint64_t>& heaps) {
    const engine::OneHeapGame& game = proven.game;
    const uint64_t value = game.value(heaps);
    const auto move = game.winning_move(heaps);
    if (value && !move)
        throw std::logic_error("no winning move found from a position of value > 0");
    nlohmann::json j = {{"rules", game.rule().canonical()},
                        {"convention", "normal"},
                        {"heaps", heaps},
                        {"value", value},
                        {"to_move_wins", value != 0},
                        // What the values rest on: a formula (a theorem), a
                        // proven period, or the values computed (heaps within them).
                        {"basis", proven.period.basis == engine::Basis::theorem ? "formula"
                                  : proven.period.basis == engine::Basis::proof ? "period"
                                                                                : "values"},
                        {"period", period_json(proven.period)}};
    if (move) j["winning_move"] = heap_move_json(*move);
    return j;
}

}  // namespace nimtb::service
