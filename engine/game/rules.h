#pragma once
// Rules and conventions of the heap games nimtb solves.
//
// A rule says which moves a position has. Families:
//   take from one heap: `nim` (any positive amount), `subtract:LIST` (an
//     amount in LIST), `allbut:LIST` (any positive amount not in LIST). LIST
//     holds numbers and inclusive ranges separated by commas: `1,3,4`, `1-3`.
//   take and break: `octal:CODE` (Guy-Smith octal code: digit d_k of
//     `d0.d1d2...` allows removing k tokens from one heap when bit 1: the heap
//     is exactly k; bit 2: one non-empty heap is left; bit 4: two non-empty
//     heaps are left; a leading 4 splits a heap in two without removing);
//     `hex:CODE` (Conway's hexadecimal codes: digits 0 to F, bit 8 leaving
//     three non-empty heaps; a leading 8 splits a heap in three);
//     `grundy` (split a heap into two unequal non-empty heaps); `lasker` (take
//     any positive amount from one heap, or split a heap into two non-empty
//     heaps).
//   several heaps at once: `wythoff` (take from one heap, or the same amount
//     from two); `moore:k` (take positive amounts from 1 to k heaps).
//
// Canonical text: subtract/allbut list their amounts in ascending order
// without repeats, every maximal run of three or more consecutive amounts as
// a range `a-b` (`subtract:4,1,3` -> `subtract:1,3,4`; `subtract:3,1-2` ->
// `subtract:1-3`). `allbut:` with an empty list is `nim`, `moore:1` is `nim`,
// and an octal code that is a plain subtraction game (no leading 4, every
// digit 0 or 3) is its `subtract:` text (`octal:0.33` -> `subtract:1,2`).
// Octal codes drop trailing zeros (`octal:0.770` -> `octal:0.77`), and a
// hexadecimal code without a digit of 8 or more is its octal code
// (`hex:0.77` -> `octal:0.77`).
//
// Games by name: `kayles`, `dawsons-kayles`, ... (rule_families.h, written
// with any case, spaces or apostrophes) parse as their codes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/errors.h"

namespace nimtb::engine {

enum class RuleKind { nim, subtract, allbut, octal, hexadecimal, grundy, lasker, wythoff, moore };

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

    static constexpr unsigned MAX_OCTAL_DIGITS = 64;
    static constexpr unsigned MAX_MOORE_K = 64;

    // The family's properties, which the layers above ask instead of
    // knowing families by name.
    //   take_family: nim, subtract or allbut (the amount-list methods below apply)
    //   one_heap:    every move touches one heap (Sprague-Grundy holds)
    //   adds_heaps:  some move leaves more non-empty heaps than before (a split)
    //   keeps_total: some move leaves the total number of tokens unchanged
    //   max_parts:   the most heaps a move of one heap leaves in its place
    //                (1 for take rules, 2 for splits, 3 for hexadecimal codes)
    bool take_family() const;
    bool one_heap() const;
    bool adds_heaps() const;
    bool keeps_total() const;
    unsigned max_parts() const;

    // octal and hexadecimal: digits d0, d1, ..., dt (dt is not 0). d0 is 0
    // or 4 (octal), 0, 4, 8 or 12 (hexadecimal, which has a digit of 8 or more).
    const std::vector<uint8_t>& code_digits() const { return digits_; }
    // moore: k >= 2.
    unsigned moore_k() const { return moore_k_; }

    // Take families only. True when taking `amount` (>= 1) tokens from one heap is a move.
    bool allows(uint32_t amount) const;
    // Every allowed amount in [1, max_amount], ascending.
    std::vector<uint32_t> amounts_up_to(uint32_t max_amount) const;
    // True when every amount in [1, max_amount] is allowed (Nim within it).
    bool allows_all_up_to(uint32_t max_amount) const;

    bool operator==(const Rule&) const = default;

  private:
    Rule(RuleKind kind, std::vector<AmountRange> ranges)
        : kind_(kind), ranges_(std::move(ranges)) {}
    static Rule parse_code(std::string_view code, bool hexadecimal);
    bool listed(uint32_t amount) const;

    RuleKind kind_;
    std::vector<AmountRange> ranges_;
    std::vector<uint8_t> digits_;
    unsigned moore_k_ = 0;
};

}  // namespace nimtb::engine
