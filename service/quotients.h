#pragma once
// Misère quotients as the front ends ask for them: Q_N of a one-heap rule,
// heap by heap with progress, written to a JSON file when asked
// (docs/FORMAT.md), and the JSON every front end shows.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/game/rules.h"
#include "engine/quotients/quotient.h"
#include "service/request/hooks.h"

namespace nimtb::service {

struct QuotientRequest {
    engine::Rule rule = engine::Rule::nim();
    uint32_t max_heap = 0;
    std::string output;  // a JSON file to write, or empty
    bool overwrite = false;
};

// Refuses what no computation can run (InputError), an existing output
// without overwrite (TableError); computes; writes the file whole or not
// at all. Progress is (heaps done, heaps asked).
engine::MisereQuotient compute_quotient(const QuotientRequest& request, const Hooks& hooks);

// `nimtb quotient --json` and the file: the rule, Q_h's order for every h,
// the presentation, each element (its word, its smallest position, in P or
// not), phi of every heap and the multiplication table.
nlohmann::json quotient_json(const engine::Rule& rule, const engine::MisereQuotient& q);

}  // namespace nimtb::service
