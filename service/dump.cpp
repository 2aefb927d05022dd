#include "service/dump.h"

#include <fmt/core.h>

#include "engine/base/errors.h"
#include "service/request/fields.h"

namespace nimtb::service {

namespace {

constexpr auto DUMP_FIELDS = [](auto& r, auto&& f) {
    f("table", r.table);
    f("p_only", r.rows.p_only);
    f("max_total", r.rows.max_total, MAX_TOTAL);
    f("csv", r.rows.csv);
    f("count", r.count);
};

}  // namespace

nlohmann::json to_json(const DumpRequest& r) {
    return write_fields(r, DUMP_FIELDS);
}

DumpRequest dump_request_from_json(const nlohmann::json& j) {
    DumpRequest r;
    read_fields(j, r, DUMP_FIELDS, "dump");
    if (r.table.empty()) throw InputError("a dump request gives the table");
    if (r.count && (r.rows.p_only || r.rows.max_total || r.rows.csv))
        throw InputError("a dump request with count takes no p_only, max_total or csv");
    return r;
}

namespace {

// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break, its quotes doubled.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

void dump_rows(io::Prober& prober, const DumpOptions& options,
               const std::function<void(std::string_view)>& write) {
    const engine::Universe& u = prober.universe();
    const bool rem = prober.table().has_remoteness();
    std::string out = options.csv ? std::string("position,value,remoteness,winning_move\n")
                                  : fmt::format("{:<24} {:>5} {:>10}  {}\n", "position", "value",
                                                "remoteness", "winning move");
    // The header at once: a front end that streams the rows shows they have
    // begun before the first block is full.
    write(out);
    out.clear();
    engine::Heaps heaps(u.max_heaps(), 0);
    for (uint64_t rank = 0; rank < u.size(); ++rank, u.next(heaps)) {
        if (options.max_total) {
            uint64_t total = 0;
            for (uint32_t a : heaps) total += a;
            if (total > *options.max_total) continue;
        }
        const uint32_t v = prober.table().value(rank);
        if (options.p_only && v != 0) continue;
        std::string move;
        if (v != 0) {
            // The fastest win: the first of the probe's ordered moves.
            engine::Heaps shown;
            for (uint32_t a : heaps)
                if (a) shown.push_back(a);
            const std::optional<io::ProbedMove> m = prober.best_move(shown);
            if (m && m->winning())
                move = fmt::format("{} -> {}", m->phrase, engine::format_heaps(m->result));
        }
        const std::string rem_text = rem ? std::to_string(prober.table().remoteness(rank)) : "";
        if (options.csv) {
            out += fmt::format("{},{},{},{}\n", csv_field(engine::format_heaps(heaps)), v, rem_text,
                               csv_field(move));
        } else {
            out += fmt::format("{:<24} {:>5} {:>10}  {}\n", engine::format_heaps(heaps), v,
                               rem ? rem_text : "-", move);
        }
        if (out.size() > (1 << 16)) {
            write(out);
            out.clear();
        }
    }
    write(out);
}

engine::Census count_table(io::TableReader& table) {
    engine::CensusCounter counter(table.universe());
    table.for_each_chunk(
        [&](uint64_t first, std::span<const uint16_t> values,
            std::span<const uint16_t> remoteness) { counter.add(first, values, remoteness); });
    return counter.census();
}

}  // namespace nimtb::service
