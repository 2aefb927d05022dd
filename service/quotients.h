#pragma once
// Misère quotients as the front ends ask for them: Q_N of a one-heap rule,
// heap by heap with progress, written to a JSON file when asked
// (docs/FORMAT.md), and the JSON every front end shows.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/game/rules.h"
#include "engine/quotients/misere_play.h"
#include "engine/quotients/quotient.h"
#include "service/request/hooks.h"

namespace nimtb::service {

struct QuotientRequest {
    engine::Rule rule = engine::Rule::nim();
    uint32_t max_heap = 0;      // with until_proven: the largest heap tried
    bool until_proven = false;  // stop at the first heap that proves the quotient whole
    std::string output;         // a JSON file to write, or empty
    bool overwrite = false;
};

// The largest heap `quotient --until-proven` tries unless told.
inline constexpr uint32_t DEFAULT_QUOTIENT_LIMIT = 1000;

// Refuses what no computation can run (InputError), an existing output
// without overwrite (TableError); computes; writes the file whole or not
// at all. Progress is (heaps done, heaps asked).
engine::MisereQuotient compute_quotient(const QuotientRequest& request, const Hooks& hooks);

// `nimtb quotient --json` and the file: the rule, Q_h's order for every h,
// the presentation, each element (its word, its smallest position, in P or
// not), phi of every heap, the multiplication table, and the proof that it
// is the whole game's quotient (or null).
nlohmann::json quotient_json(const engine::Rule& rule, const engine::MisereQuotient& q);

// The quotient that answers misère positions of `rule` whose largest heap
// is `needed` (0: unknown, as for positions read from stdin): for an octal
// code or a subtraction game, computed until proven (up to heap `needed` or
// `limit`, whichever is smaller, `limit` when needed is 0 or larger); for
// other rules, Q_needed (Q_limit when needed is 0). Throws InputError when
// heap `needed` is beyond what the quotient can answer.
engine::MisereQuotient answering_quotient(const engine::Rule& rule, uint64_t needed, uint32_t limit,
                                          const Hooks& hooks);

// `nimtb query --misere --json`: the outcome, the position's element, a
// winning move, and what the answer rests on.
nlohmann::json misere_answer_json(const engine::Rule& rule, const engine::MisereQuotient& q,
                                  const std::vector<uint64_t>& heaps);

}  // namespace nimtb::service
