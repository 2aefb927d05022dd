#include "engine/game/rules.h"

#include <algorithm>
#include <charconv>

#include "engine/base/names.h"
#include "engine/game/rule_families.h"

namespace nimtb::engine {
namespace {

constexpr const char* RULE_FORMS =
    "expected nim, subtract:LIST, allbut:LIST (LIST is numbers and ranges such as 1,3,4 or "
    "1-3,7), octal:CODE (such as octal:0.77), hex:CODE (such as hex:0.F), grundy, lasker, "
    "wythoff, moore:K, or a game's name such as kayles";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// Parses one positive amount of a list item; `item` is quoted in errors.
uint32_t parse_amount(std::string_view number, std::string_view item) {
    number = trim(number);
    auto fail = [&](const std::string& why) {
        throw InputError("bad amount " + quoted(item) + " in rule: " + why +
                         "; amounts are whole numbers from 1 to " +
                         std::to_string(Rule::MAX_AMOUNT) + ", as in subtract:1,3,4");
    };
    if (number.empty()) fail("a number is missing");
    if (number.front() == '-') fail("amounts cannot be negative");
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec == std::errc::result_out_of_range) fail("too large");
    if (ec != std::errc() || end != number.data() + number.size()) fail("not a number");
    if (value == 0) fail("0 is not a move");
    if (value > Rule::MAX_AMOUNT) fail("too large");
    return static_cast<uint32_t>(value);
}

// Sorts and merges ranges so that they are disjoint and non-adjacent.
std::vector<AmountRange> normalise(std::vector<AmountRange> ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const AmountRange& a, const AmountRange& b) { return a.first < b.first; });
    std::vector<AmountRange> merged;
    for (const AmountRange& r : ranges) {
        if (!merged.empty() && uint64_t{r.first} <= uint64_t{merged.back().last} + 1) {
            merged.back().last = std::max(merged.back().last, r.last);
        } else {
            merged.push_back(r);
        }
    }
    return merged;
}

std::vector<AmountRange> parse_list(std::string_view list, std::string_view kind) {
    std::vector<AmountRange> ranges;
    if (trim(list).empty()) return ranges;
    size_t start = 0;
    while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view item = trim(list.substr(start, comma - start));
        if (item.empty()) {
            throw InputError("empty item in the " + std::string(kind) +
                             " list: write numbers or ranges separated by single commas, "
                             "as in " +
                             std::string(kind) + ":1,3,4");
        }
        size_t dash = item.find('-', 1);  // a leading '-' is a negative number
        if (dash == std::string_view::npos) {
            uint32_t a = parse_amount(item, item);
            ranges.push_back({a, a});
        } else {
            uint32_t a = parse_amount(item.substr(0, dash), item);
            uint32_t b = parse_amount(item.substr(dash + 1), item);
            if (b < a) {
                throw InputError("reversed range " + quoted(item) +
                                 " in rule: write the smaller end first, as in " +
                                 std::to_string(b) + "-" + std::to_string(a));
            }
            ranges.push_back({a, b});
        }
        start = comma + 1;
    }
    return normalise(std::move(ranges));
}

}  // namespace

namespace {
constexpr Named<Convention> CONVENTIONS[] = {
    {Convention::normal, "normal"}, {Convention::misere, "misere"}, {Convention::misere, "misère"}};
}  // namespace

Convention parse_convention(std::string_view text) {
    return parse_name(CONVENTIONS, text, "convention");
}

const char* to_string(Convention convention) {
    return name_of(CONVENTIONS, convention);
}

Rule Rule::parse(std::string_view text) {
    std::string_view t = trim(text);
    size_t colon = t.find(':');
    std::string kind(trim(t.substr(0, colon)));
    std::transform(kind.begin(), kind.end(), kind.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string_view list =
        colon == std::string_view::npos ? std::string_view() : t.substr(colon + 1);

    if (kind == "nim" || kind == "grundy" || kind == "lasker" || kind == "wythoff") {
        if (colon != std::string_view::npos) {
            throw InputError("rule '" + kind + "' takes no list, but got " + quoted(t) +
                             "; write " + kind +
                             (kind == "nim" ? ", or subtract:LIST for a subtraction game" : ""));
        }
        const RuleKind k = kind == "nim"      ? RuleKind::nim
                           : kind == "grundy" ? RuleKind::grundy
                           : kind == "lasker" ? RuleKind::lasker
                                              : RuleKind::wythoff;
        return Rule(k, {});
    }
    if (kind == "octal") {
        if (colon == std::string_view::npos) {
            throw InputError("rule 'octal' needs a code after a colon, as in octal:0.77 (Kayles)");
        }
        return parse_code(trim(list), false);
    }
    if (kind == "hex" || kind == "hexadecimal") {
        if (colon == std::string_view::npos) {
            throw InputError("rule '" + kind + "' needs a code after a colon, as in hex:0.F");
        }
        return parse_code(trim(list), true);
    }
    if (colon == std::string_view::npos) {
        if (const std::optional<std::string_view> code = rule_of_name(t)) return parse(*code);
    }
    if (kind == "moore") {
        if (colon == std::string_view::npos) {
            throw InputError(
                "rule 'moore' needs k after a colon, as in moore:2 (take from 1 to 2 heaps)");
        }
        const std::string_view number = trim(list);
        unsigned k = 0;
        auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), k);
        if (number.empty() || ec != std::errc() || end != number.data() + number.size() || k < 1 ||
            k > MAX_MOORE_K) {
            throw InputError("bad k " + quoted(number) +
                             " in rule moore:k: k is a whole number from 1 to " +
                             std::to_string(MAX_MOORE_K) + ", as in moore:2");
        }
        if (k == 1) return Rule::nim();
        Rule r(RuleKind::moore, {});
        r.moore_k_ = k;
        return r;
    }
    if (kind == "subtract" || kind == "allbut") {
        if (colon == std::string_view::npos) {
            throw InputError("rule '" + kind + "' needs a list after a colon, as in " + kind +
                             ":1,3,4");
        }
        std::vector<AmountRange> ranges = parse_list(list, kind);
        if (kind == "subtract") {
            if (ranges.empty()) {
                throw InputError(
                    "empty subtract list: a subtraction game needs at least one amount, as in "
                    "subtract:1-3");
            }
            return Rule(RuleKind::subtract, std::move(ranges));
        }
        if (ranges.empty()) return Rule::nim();
        return Rule(RuleKind::allbut, std::move(ranges));
    }
    if (kind.empty()) throw InputError(std::string("empty rule: ") + RULE_FORMS);
    throw InputError("unknown rule " + quoted(t) + ": " + RULE_FORMS);
}

Rule Rule::parse_code(std::string_view code, bool hexadecimal) {
    auto fail = [&](const std::string& why) {
        throw InputError(hexadecimal
                             ? "bad hexadecimal code " + quoted(code) + ": " + why +
                                   "; write d0.d1d2... with digits 0 to F, d0 being 0, 4, 8 or "
                                   "C, as in hex:0.F or hex:8.1"
                             : "bad octal code " + quoted(code) + ": " + why +
                                   "; write d0.d1d2... with octal digits, d0 being 0 or 4, as in "
                                   "octal:0.77 (Kayles) or octal:4.7");
    };
    auto digit = [&](char ch) -> uint8_t {
        if (ch >= '0' && ch <= '7') return static_cast<uint8_t>(ch - '0');
        if (hexadecimal && ch >= '8' && ch <= '9') return static_cast<uint8_t>(ch - '0');
        if (hexadecimal && ch >= 'a' && ch <= 'f') return static_cast<uint8_t>(ch - 'a' + 10);
        if (hexadecimal && ch >= 'A' && ch <= 'F') return static_cast<uint8_t>(ch - 'A' + 10);
        fail(std::string("'") + ch + "' is not " + (hexadecimal ? "a hexadecimal" : "an octal") +
             " digit");
        return 0;
    };
    const size_t point = code.find('.');
    if (point == std::string_view::npos) fail("the point is missing");
    const std::string_view whole = code.substr(0, point), fraction = code.substr(point + 1);
    if (whole.size() > 1) fail("only one digit may stand before the point");
    std::vector<uint8_t> digits{0};
    if (!whole.empty()) {
        digits[0] = digit(whole[0]);
        if (digits[0] & 3)
            fail(hexadecimal ? "the digit before the point must be 0, 4, 8 or C"
                             : "the digit before the point must be 0 or 4");
    }
    for (char ch : fraction) digits.push_back(digit(ch));
    while (digits.size() > 1 && digits.back() == 0) digits.pop_back();
    if (digits.size() > MAX_OCTAL_DIGITS + 1)
        fail("more than " + std::to_string(MAX_OCTAL_DIGITS) + " digits");
    if (digits.size() == 1 && digits[0] == 0) fail("it allows no move");
    if (std::any_of(digits.begin(), digits.end(), [](uint8_t d) { return d & 8; })) {
        Rule r(RuleKind::hexadecimal, {});
        r.digits_ = std::move(digits);
        return r;
    }
    // A plain subtraction game: no split, every removal allowed from any heap
    // of at least k (bits 1 and 2 together) or not at all.
    const bool subtraction =
        digits[0] == 0 &&
        std::all_of(digits.begin() + 1, digits.end(), [](uint8_t d) { return d == 0 || d == 3; });
    if (subtraction) {
        std::vector<AmountRange> ranges;
        for (uint32_t k = 1; k < digits.size(); ++k) {
            if (digits[k] == 3) ranges.push_back({k, k});
        }
        return Rule(RuleKind::subtract, normalise(std::move(ranges)));
    }
    Rule r(RuleKind::octal, {});
    r.digits_ = std::move(digits);
    return r;
}

bool Rule::take_family() const {
    return kind_ == RuleKind::nim || kind_ == RuleKind::subtract || kind_ == RuleKind::allbut;
}

bool Rule::one_heap() const {
    return kind_ != RuleKind::wythoff && kind_ != RuleKind::moore;
}

bool Rule::adds_heaps() const {
    switch (kind_) {
        case RuleKind::grundy:
        case RuleKind::lasker:
            return true;
        case RuleKind::octal:
            return std::any_of(digits_.begin(), digits_.end(), [](uint8_t d) { return d & 4; });
        case RuleKind::hexadecimal:
            return true;  // a digit of 8 or more leaves three heaps
        default:
            return false;
    }
}

unsigned Rule::max_parts() const {
    if (kind_ == RuleKind::hexadecimal) return 3;
    return adds_heaps() ? 2 : 1;
}

bool Rule::keeps_total() const {
    return kind_ == RuleKind::grundy || kind_ == RuleKind::lasker ||
           ((kind_ == RuleKind::octal || kind_ == RuleKind::hexadecimal) && (digits_[0] & 12));
}

std::string Rule::canonical() const {
    switch (kind_) {
        case RuleKind::nim:
            return "nim";
        case RuleKind::grundy:
            return "grundy";
        case RuleKind::lasker:
            return "lasker";
        case RuleKind::wythoff:
            return "wythoff";
        case RuleKind::moore:
            return "moore:" + std::to_string(moore_k_);
        case RuleKind::octal:
        case RuleKind::hexadecimal: {
            constexpr char DIGITS[] = "0123456789ABCDEF";
            std::string out = kind_ == RuleKind::octal ? "octal:" : "hex:";
            out += DIGITS[digits_[0]];
            out += '.';
            for (size_t k = 1; k < digits_.size(); ++k) out += DIGITS[digits_[k]];
            return out;
        }
        case RuleKind::subtract:
        case RuleKind::allbut:
            break;
    }
    std::string out = kind_ == RuleKind::subtract ? "subtract:" : "allbut:";
    bool first = true;
    auto add = [&](uint32_t n) {
        if (!first) out += ',';
        first = false;
        out += std::to_string(n);
    };
    for (const AmountRange& r : ranges_) {
        if (r.last - r.first >= 2) {
            add(r.first);
            out += '-';
            out += std::to_string(r.last);
        } else {
            for (uint32_t a = r.first; a <= r.last; ++a) add(a);
        }
    }
    return out;
}

bool Rule::listed(uint32_t amount) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), amount,
                               [](uint32_t a, const AmountRange& r) { return a < r.first; });
    return it != ranges_.begin() && amount <= std::prev(it)->last;
}

bool Rule::allows(uint32_t amount) const {
    if (amount == 0) return false;
    switch (kind_) {
        case RuleKind::nim:
            return true;
        case RuleKind::subtract:
            return listed(amount);
        case RuleKind::allbut:
            return !listed(amount);
        default:
            return false;
    }
}

std::vector<uint32_t> Rule::amounts_up_to(uint32_t max_amount) const {
    std::vector<uint32_t> out;
    if (kind_ == RuleKind::subtract) {
        for (const AmountRange& r : ranges_) {
            for (uint64_t a = r.first; a <= r.last && a <= max_amount; ++a) {
                out.push_back(static_cast<uint32_t>(a));
            }
        }
        return out;
    }
    for (uint32_t a = 1; a <= max_amount; ++a) {
        if (allows(a)) out.push_back(a);
    }
    return out;
}

bool Rule::allows_all_up_to(uint32_t max_amount) const {
    switch (kind_) {
        case RuleKind::nim:
            return true;
        case RuleKind::subtract:
            return max_amount == 0 ||
                   (ranges_.front().first == 1 && ranges_.front().last >= max_amount);
        case RuleKind::allbut:
            return ranges_.front().first > max_amount;
        default:
            return false;
    }
}

}  // namespace nimtb::engine
