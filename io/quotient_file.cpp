#include "io/quotient_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/base/errors.h"
#include "engine/quotients/monoid.h"

namespace nimtb::io {

namespace {

// The number at j[key], an unsigned integer at most `max`.
uint32_t number(const std::string& path, const nlohmann::json& j, const char* key, uint64_t max) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number_unsigned() ||
        j[key].get<uint64_t>() > max) {
        throw TableError(
            fmt::format("{} is not a quotient file: '{}' is missing or not a number "
                        "from 0 to {}",
                        path, key, max));
    }
    return static_cast<uint32_t>(j[key].get<uint64_t>());
}

// An array of `size` numbers below `below`.
std::vector<uint32_t> numbers(const std::string& path, const nlohmann::json& a, const char* what,
                              size_t size, uint64_t below) {
    if (!a.is_array() || a.size() != size) {
        throw TableError(
            fmt::format("{} is not a quotient file: {} is not a list of {}", path, what, size));
    }
    std::vector<uint32_t> out;
    out.reserve(size);
    for (const nlohmann::json& v : a) {
        if (!v.is_number_unsigned() || v.get<uint64_t>() >= below) {
            throw TableError(
                fmt::format("{} is not a quotient file: {} holds a value that is not 0 to {}", path,
                            what, below - 1));
        }
        out.push_back(static_cast<uint32_t>(v.get<uint64_t>()));
    }
    return out;
}

}  // namespace

namespace {

// A quotient file's JSON and the rule it names: a misère quotient of a
// one-heap rule, or TableError.
std::pair<nlohmann::json, engine::Rule> open_quotient_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw NoSuchFile(path + ": no such file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TableError("cannot read " + path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
        throw TableError(path + " is not a quotient file: it is not JSON");
    }
    // Every type is asked before a value is taken: nlohmann throws on a
    // mismatch (fuzzing found a "convention" that was a list).
    if (!j.is_object() || !j.contains("rules") || !j["rules"].is_string() ||
        !j.contains("convention") || !j["convention"].is_string() ||
        j["convention"].get<std::string>() != "misere") {
        throw TableError(path + " is not a quotient file: no misère 'rules'");
    }
    engine::Rule rule = engine::Rule::nim();
    try {
        rule = engine::Rule::parse(j["rules"].get<std::string>());
    } catch (const InputError& e) {
        throw TableError(fmt::format("{} is not a quotient file: {}", path, e.what()));
    }
    if (!rule.one_heap())
        throw TableError(path + " is not a quotient file: its rule moves on several heaps");
    return {std::move(j), std::move(rule)};
}

}  // namespace

engine::Rule quotient_file_rule(const std::string& path) {
    return open_quotient_file(path).second;
}

QuotientFile read_quotient_file(const std::string& path, const std::atomic<bool>* cancel) {
    auto [j, rule] = open_quotient_file(path);
    QuotientFile out;
    out.rule = rule;
    engine::BipartiteMonoid& m = out.quotient.monoid;
    const uint32_t max_heap = number(path, j, "max_heap", engine::MAX_QUOTIENT_HEAP);
    m.order = number(path, j, "order", engine::MAX_QUOTIENT_ORDER);
    if (m.order == 0) throw TableError(path + " is not a quotient file: its order is 0");
    m.phi = numbers(path, j["phi"], "phi", size_t{max_heap} + 1, m.order);
    if (!j.contains("table") || !j["table"].is_array() || j["table"].size() != m.order) {
        throw TableError(
            fmt::format("{} is not a quotient file: its table is not {} rows", path, m.order));
    }
    m.table.clear();
    for (const nlohmann::json& row : j["table"]) {
        const std::vector<uint32_t> r = numbers(path, row, "a table row", m.order, m.order);
        m.table.insert(m.table.end(), r.begin(), r.end());
    }
    if (!j.contains("elements") || !j["elements"].is_array() || j["elements"].size() != m.order)
        throw TableError(
            fmt::format("{} is not a quotient file: it lists no {} elements", path, m.order));
    m.p.clear();
    m.name.clear();
    for (const nlohmann::json& e : j["elements"]) {
        if (!e.is_object() || !e.contains("p") || !e["p"].is_boolean())
            throw TableError(path + " is not a quotient file: an element has no 'p'");
        m.p.push_back(e["p"].get<bool>());
        const std::vector<uint32_t> name =
            numbers(path, e.value("position", nlohmann::json()), "an element's position",
                    e.contains("position") && e["position"].is_array() ? e["position"].size() : 0,
                    uint64_t{max_heap} + 1);
        m.name.push_back(name);
    }
    // A commutative monoid with identity 0, generated by phi.
    const std::string bad = path + " is damaged: its table is not the monoid it must be";
    if (m.phi[0] != 0) throw TableError(bad);
    for (uint32_t x = 0; x < m.order; ++x) {
        if (m.mul(0, x) != x) throw TableError(bad);
        for (uint32_t y = 0; y < x; ++y) {
            if (m.mul(x, y) != m.mul(y, x)) throw TableError(bad);
        }
    }
    std::vector<uint32_t> gens(m.phi.begin() + 1, m.phi.end());
    std::sort(gens.begin(), gens.end());
    gens.erase(std::unique(gens.begin(), gens.end()), gens.end());
    std::vector<uint8_t> reached(m.order, 0);
    std::vector<uint32_t> todo{0};
    reached[0] = 1;
    while (!todo.empty()) {
        const uint32_t x = todo.back();
        todo.pop_back();
        for (uint32_t g : gens) {
            const uint32_t y = m.mul(x, g);
            if (!reached[y]) reached[y] = 1, todo.push_back(y);
        }
    }
    if (std::find(reached.begin(), reached.end(), 0) != reached.end()) throw TableError(bad);
    for (uint32_t x = 0; x < m.order; ++x) {  // each element's position must be that element
        if (m.image(m.name[x]) != x) {
            throw TableError(
                fmt::format("{} is damaged: element {}'s position is not that element", path, x));
        }
    }
    for (uint32_t g : gens) {  // Light's test: (x g) y = x (g y) for every generator g
        if (cancel && cancel->load()) throw Cancelled();
        for (uint32_t x = 0; x < m.order; ++x) {
            for (uint32_t y = 0; y < m.order; ++y) {
                if (m.mul(m.mul(x, g), y) != m.mul(x, m.mul(g, y))) throw TableError(bad);
            }
        }
    }
    if (const auto failure = engine::check_quotient(out.rule, m, cancel)) {
        throw TableError(fmt::format(
            "{} is damaged: it says the position {} is a misère {}-position, and it is not", path,
            engine::format_heaps(failure->position), failure->predicted_p ? "P" : "N"));
    }
    // Its record of Q_h's orders, h = 0 .. max_heap, found again from its
    // table (each the submonoid of heaps up to h, reduced), and the count of
    // candidates refuted on the way, carried on by a run that resumes it.
    out.quotient.orders = numbers(path, j.value("orders", nlohmann::json()), "orders",
                                  size_t{max_heap} + 1, uint64_t{engine::MAX_QUOTIENT_ORDER} + 1);
    if (out.quotient.orders != engine::quotient_orders(m)) {
        throw TableError(path + " is damaged: its orders are not those of its quotients");
    }
    out.quotient.candidates = number(path, j, "candidates_refuted", UINT32_MAX);
    out.quotient.proof = engine::prove_quotient(out.rule, m);
    const bool claims = j.contains("proof") && !j["proof"].is_null();
    if (claims && !out.quotient.proof) {
        throw TableError(path +
                         " is damaged: it claims a proof for every heap size that its phi "
                         "does not give");
    }
    engine::present_quotient(out.quotient);
    return out;
}

}  // namespace nimtb::io
