#pragma once
// Rules and conventions of the heap games nimtb solves.
//
// A rule says which moves a position has. The first rules all take tokens from
// one heap: `nim` (any positive amount), `subtract:LIST` (an amount in LIST) and
// `allbut:LIST` (any positive amount not in LIST). LIST holds numbers and
// inclusive ranges separated by commas: `1,3,4`, `1-3`, `1-3,7`.
//
// Canonical text: the kind, then for subtract/allbut a colon and the amounts in
// ascending order without repeats, where every maximal run of three or more
// consecutive amounts is written as a range `a-b` and shorter runs as single
// numbers (`subtract:4,1,3` -> `subtract:1,3,4`; `subtract:3,1-2` -> `subtract:1-3`).
// `allbut:` with an empty list is Nim and canonicalises to `nim`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/errors.h"

namespace nimtb::engine {

enum class RuleKind { nim, subtract, allbut };

enum class Convention { normal, misere };

// Parses `normal` or `misere` (also `misère`).
Convention parse_convention(std::string_view text);
const char* to_string(Convention convention);

// An inclusive range of amounts.
struct AmountRange {
    uint32_t first;
    uint32_t last;
    bool operator==(const AmountRange&) const = default;
};

class Rule {
  public:
    // The largest amount a list may name; larger ones are refused so that a
    // typo cannot ask for an absurd rule.
    static constexpr uint32_t MAX_AMOUNT = 1'000'000'000;

    // Parses a rule text; throws InputError naming the problem.
    static Rule parse(std::string_view text);
    static Rule nim() { return Rule(RuleKind::nim, {}); }

    RuleKind kind() const { return kind_; }
    // The canonical amount list: sorted, disjoint, non-adjacent ranges.
    const std::vector<AmountRange>& ranges() const { return ranges_; }
    std::string canonical() const;

    // True when taking `amount` (>= 1) tokens from one heap is a move.
    bool allows(uint32_t amount) const;
    // Every allowed amount in [1, max_amount], ascending.
    std::vector<uint32_t> amounts_up_to(uint32_t max_amount) const;
    // True when every amount in [1, max_amount] is allowed (Nim within it).
    bool allows_all_up_to(uint32_t max_amount) const;

    bool operator==(const Rule&) const = default;

  private:
    Rule(RuleKind kind, std::vector<AmountRange> ranges)
        : kind_(kind), ranges_(std::move(ranges)) {}
    bool listed(uint32_t amount) const;

    RuleKind kind_;
    std::vector<AmountRange> ranges_;
};

}  // namespace nimtb::engine
