#pragma once
// What a table holds, read whole: its positions as rows (`nimtb dump`, the
// page's CSV download: one definition of the rows, so the two are byte for
// byte the same), and its P-position census (`dump --count`).

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engine/checks/census.h"
#include "io/probe.h"
#include "io/table_reader.h"

namespace nimtb::service {

struct DumpOptions {
    bool p_only = false;                // only P-positions
    std::optional<uint64_t> max_total;  // only positions of at most this many tokens
    bool csv = false;                   // comma-separated values, else aligned columns
};

// `nimtb dump` as a request: the table, and its rows or its census.
struct DumpRequest {
    std::string table;
    DumpOptions rows;
    bool count = false;  // the census instead of the rows
};
// The request as JSON (`--request`): table, p_only, max_total, csv, count;
// an unknown key, a wrong type, or a row option with count is an InputError.
nlohmann::json to_json(const DumpRequest& request);
DumpRequest dump_request_from_json(const nlohmann::json& j);

// The header line, then a line per position in rank order, each with its
// fastest winning move when it has one, handed to `write` in pieces of about
// 64 KiB.
void dump_rows(io::Prober& prober, const DumpOptions& options,
               const std::function<void(std::string_view)>& write);

// The P-position census: counts as multisets and as ordered tuples, by total
// and by largest heap. Reads the whole table chunk by chunk.
engine::Census count_table(io::TableReader& table);

}  // namespace nimtb::service
