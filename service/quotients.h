#pragma once
// Misère quotients as the front ends ask for them: Q_N of a one-heap rule,
// heap by heap with progress, written to a JSON file when asked
// (docs/FORMAT.md), and the JSON every front end shows.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/game/rules.h"
#include "engine/quotients/genus.h"
#include "engine/quotients/misere_play.h"
#include "engine/quotients/quotient.h"
#include "io/quotient_file.h"
#include "service/request/hooks.h"

namespace nimtb::service {

struct QuotientRequest {
    engine::Rule rule = engine::Rule::nim();
    uint32_t max_heap = 0;      // with until_proven: the largest heap tried
    bool until_proven = false;  // stop at the first heap that proves the quotient whole
    std::string output;         // a JSON file to write, or empty
    bool overwrite = false;
    // When not 0: stop after this many seconds, or where a candidate grows
    // past the limits, and return the largest quotient computed (its
    // `stopped` says why) instead of an error.
    uint32_t time_limit = 0;
    // The largest order a candidate may have (engine::QuotientOptions).
    uint32_t max_order = engine::DEFAULT_QUOTIENT_ORDER;
    // engine::QuotientOptions::max_copies: the last heap checked only
    // against positions with at most this many copies of it (no output).
    std::optional<uint32_t> max_copies;
    // A quotient file (--output) to go on from: its Q_h, read and checked
    // by read_quotient, for the same rule. The result is the one a run from
    // heap 1 gives, bit for bit.
    std::string resume;

    // What the answer shows beside the quotient (quotient_json's `analyze`),
    // or another rule's quotient to compare it with (compare_quotients).
    bool analyze = false;
    std::optional<engine::Rule> compare;
};

// The request as JSON (the keys of Python's keywords; `--request`), and
// back: rules (or resume alone: the file's rule), max_heap or until_proven
// (and limit, the largest heap tried), output, overwrite, time_limit,
// max_order, max_copies, resume, analyze, compare. Reading, a key left out
// keeps its default; an unknown key, a value of the wrong type or out of
// range is an InputError naming the key; a heap past MAX_QUOTIENT_HEAP a
// ResourceError.
nlohmann::json to_json(const QuotientRequest& request);
QuotientRequest quotient_request_from_json(const nlohmann::json& j);

// The largest heap `quotient --until-proven` tries unless told.
inline constexpr uint32_t DEFAULT_QUOTIENT_LIMIT = 1000;

// Refuses what no computation can run (InputError), an existing output
// without overwrite (TableError); computes; writes the file whole or not
// at all. Progress is (heaps done, heaps asked).
engine::MisereQuotient compute_quotient(const QuotientRequest& request, const Hooks& hooks);

// `nimtb quotient --json` and the file: the rule, Q_h's order for every h,
// the presentation, each element (its word, its smallest position, in P or
// not), phi of every heap, the multiplication table, the proof that it is
// the whole game's quotient (or null), and the cap on copies of the
// largest heap (null: none; set, the monoid is a predictor, not Q_N),
// and "presentation": {"text", "latex"} (below). With `analyze`, also "structure": structure_json
// of its monoid.
nlohmann::json quotient_json(const engine::Rule& rule, const engine::MisereQuotient& q,
                             bool analyze = false);

// The presentation as the command prints it: generators (each a heap),
// relations, the P-portion (its first p_shown elements named) and phi of
// every heap, in the generators' words. quotient_json carries it whole,
// with presentation_latex: the same as LaTeX (Q = <gens | relations>, the
// generators as Phi of their heaps, P, and Phi ten heaps a row), ready for
// a paper.
std::string presentation_text(const engine::MisereQuotient& q, size_t p_shown = SIZE_MAX);
std::string presentation_latex(const engine::Rule& rule, const engine::MisereQuotient& q);

// `nimtb genus`: the genus of heaps 0..max_heap (engine/quotients/genus.h),
// progress and Ctrl-C through `hooks`; and its JSON: the rule, how far the
// computation went (positions, copies of *2, where every superscript
// alternates), each heap's genus (normal value, superscript, the symbol,
// tame or not), and the first heap whose genus is not a nim position's.
struct GenusRequest {
    engine::Rule rule = engine::Rule::nim();
    uint32_t max_heap = 0;
};
// The request as JSON (`--request`): rules and max_heap (0 to
// engine::MAX_GENUS_HEAP), both needed.
nlohmann::json to_json(const GenusRequest& request);
GenusRequest genus_request_from_json(const nlohmann::json& j);
engine::GenusTable compute_genus(const GenusRequest& request, const Hooks& hooks);
nlohmann::json genus_json(const engine::Rule& rule, const engine::GenusTable& t);
// The first heap whose genus is no nim position's (a wild heap), if any.
std::optional<uint32_t> first_wild_genus(const engine::GenusTable& t);

// `quotient --analyze`: what the monoid is made of (engine/quotients/
// structure.h), elements by their index: each idempotent with its maximal
// subgroup, Archimedean component, lower covers and the subgroup's
// elements in P; the kernel and its identity; the number of classes of
// mutual divisibility; and tame (n of T_n, or null).
nlohmann::json structure_json(const engine::BipartiteMonoid& m);

// The standard form of a rule (engine/game/standard_form.h): {"rules",
// "shift", "steps"}; heap n of the rule is heap n + shift of "rules".
nlohmann::json standard_form_json(const engine::Rule& rule);

// `quotient --compare OTHER`: the rule's Q_N beside OTHER's. When the two
// have one standard form they are one game, heap n of one being heap
// n + shift of the other, and the quotients are compared with that shift
// (Q_N of the first beside Q_{N+shift} of the second); else heap for heap.
// {"rules": [A, B], "standard_forms", "same_game", "shift" (heaps of B
// past A's, negative when A's are past B's), "max_heap", "orders" (of
// each), "agree"}: agree when the map of engine::same_quotient is an
// isomorphism. request.max_heap is N; until_proven, output, max_copies
// and resume are refused.
nlohmann::json compare_quotients(const QuotientRequest& request, const engine::Rule& other,
                                 const Hooks& hooks);

// A quotient file (`nimtb quotient --output`), read and checked whole
// (io/quotient_file.h says what is checked); Ctrl-C through `hooks`.
using StoredQuotient = io::QuotientFile;
StoredQuotient read_quotient(const std::string& path, const Hooks& hooks);

// The rule a quotient file names, read without the checks (they run when
// the file is resumed): what `quotient --resume FILE` computes for.
engine::Rule quotient_file_rule(const std::string& path);

// `nimtb info` of a quotient file read by read_quotient: the rule, the
// heap bound, the order, the generators, the size of the P-portion and the
// proof (or null).
nlohmann::json quotient_info_json(const std::string& path, const StoredQuotient& stored);

// The quotient that answers misère positions of `rule` whose largest heap
// is `needed` (0: unknown, as for positions read from stdin): for an octal
// code or a subtraction game, computed until proven (up to heap `needed` or
// `limit`, whichever is smaller, `limit` when needed is 0 or larger); for
// other rules, Q_needed (Q_limit when needed is 0). Throws InputError when
// heap `needed` is beyond what the quotient can answer, within `time_limit`
// seconds when that is set (ResourceError past a candidate's limits without).
engine::MisereQuotient answering_quotient(const engine::Rule& rule, uint64_t needed, uint32_t limit,
                                          const Hooks& hooks, uint32_t time_limit = 0);

// How misère play of a position of `rule` is answered (`query --misere
// --rules`): from the rule's misère quotient (answering_quotient, given
// QUICK_QUOTIENT_SECONDS when a table small enough to solve now holds the
// position); where the quotient cannot answer it, from a table of `folder`
// that holds it, solved there now if need be (find_or_solve_table); else
// an InputError naming both what stopped the quotient and the solve that
// would answer.
inline constexpr uint32_t QUICK_QUOTIENT_SECONDS = 2;
struct MisereAnswer {
    std::optional<engine::MisereQuotient> quotient;  // the quotient that answers it, or
    std::string table;                               // the table that does,
    std::string why;                                 // and why the quotient did not
};
MisereAnswer misere_answer(const engine::Rule& rule, const std::vector<uint64_t>& heaps,
                           uint64_t needed, uint32_t limit, const std::string& folder,
                           const Hooks& hooks);

// The heaps of a position as a table's, when each has at most 2^32 - 1 tokens.
std::optional<engine::Heaps> table_heaps(const std::vector<uint64_t>& heaps);

// `nimtb query --misere --json`: the outcome, the position's element, a
// winning move, and what the answer rests on.
nlohmann::json misere_answer_json(const engine::Rule& rule, const engine::MisereQuotient& q,
                                  const std::vector<uint64_t>& heaps);

}  // namespace nimtb::service
