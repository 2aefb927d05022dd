#pragma once
// Verifying a table: read in memory when it fits (and checked on every
// core), else streamed in rank order through a chunk cache of a quarter of
// the free memory. What `nimtb verify` and `import nimtb`'s verify() run.

#include <nlohmann/json.hpp>
#include <string>

#include "engine/checks/verify.h"
#include "io/table_reader.h"
#include "service/request/hooks.h"

namespace nimtb::service {

// `nimtb verify` as a request: the table to check. Its JSON (`--request`)
// is {"table": PATH}.
struct VerifyRequest {
    std::string table;
};
nlohmann::json to_json(const VerifyRequest& request);
VerifyRequest verify_request_from_json(const nlohmann::json& j);

// Every check of engine::verify over the table. Reports progress through
// `hooks`; throws Cancelled when hooks' cancel is set.
engine::VerifyReport verify_table(io::TableReader& table, const Hooks& hooks);

// `nimtb verify --json`: the table, the counts, every check with its
// counterexamples, the single heaps and their period, the histograms.
nlohmann::json verify_json(const engine::VerifyReport& report, const io::TableInfo& info);

}  // namespace nimtb::service
