#include "engine/game/rule_families.h"

#include <fmt/core.h>

#include <cctype>

namespace nimtb::engine {

namespace {

constexpr RuleFamily FAMILIES[] = {
    {RuleKind::nim, "nim", "takes any number of tokens from one heap"},
    {RuleKind::subtract, "subtract:LIST", "takes an amount in LIST (1,3,4 or 1-3,7) from one heap"},
    {RuleKind::allbut, "allbut:LIST", "takes any amount except those in LIST from one heap"},
    {RuleKind::octal, "octal:CODE",
     "follows a Guy-Smith octal code d0.d1d2... (0.77 Kayles, 0.07 Dawson's Kayles, 0.137 "
     "Dawson's Chess): digit k allows taking k tokens leaving no heap (1), one heap (2) or two "
     "heaps (4); a leading 4 splits a heap without taking"},
    {RuleKind::hexadecimal, "hex:CODE",
     "follows one of Conway's hexadecimal codes d0.d1d2... (digits 0 to F): as an octal code, "
     "and bit 8 allows leaving three heaps; a leading 8 splits a heap in three"},
    {RuleKind::grundy, "grundy", "splits one heap into two heaps of different sizes"},
    {RuleKind::lasker, "lasker",
     "takes any number of tokens from one heap, or splits a heap in two"},
    {RuleKind::wythoff, "wythoff",
     "takes any number from one heap, or the same number from two heaps"},
    {RuleKind::moore, "moore:K", "takes tokens from 1 to K heaps at once"},
};

constexpr NamedRule NAMED[] = {
    {"nim", "Nim"},
    {"subtract:1-3", "take 1 to 3 (the matches game)"},
    {"subtract:1,3,4", "take 1, 3 or 4"},
    {"allbut:1,2", "take any amount but 1 or 2"},
    {"octal:0.77", "Kayles"},
    {"octal:0.07", "Dawson's Kayles"},
    {"octal:0.137", "Dawson's Chess"},
    {"grundy", "Grundy's game"},
    {"lasker", "Lasker's Nim"},
    {"wythoff", "Wythoff"},
    {"moore:2", "Moore's Nim, 2 heaps at a time"},
};

// Winning Ways (Berlekamp, Conway and Guy), chapter 4, tabulates the codes
// of the named take-and-break games.
constexpr GameName GAME_NAMES[] = {
    {"kayles", "octal:0.77", "Kayles", "Dudeney (1908); Winning Ways ch. 4"},
    {"dawsons-kayles", "octal:0.07", "Dawson's Kayles", "Winning Ways ch. 4"},
    {"dawsons-chess", "octal:0.137", "Dawson's Chess",
     "Dawson (1934); Guy and Smith (1956); Winning Ways ch. 4"},
    {"treblecross", "octal:0.007", "Treblecross", "Winning Ways ch. 4"},
    {"guiles", "octal:0.15", "Guiles", "Winning Ways ch. 4"},
    {"officers", "octal:0.6", "Officers", "Winning Ways ch. 4"},
    {"double-kayles", "octal:0.7777", "Double Kayles", "Winning Ways ch. 4"},
    {"daisies", "octal:4.7", "Daisies",
     "Plambeck, Theoretical Computer Science 96 (1992): She Loves Me, She Loves Me Not"},
    {"grundys-game", "grundy", "Grundy's game", "Grundy (1939); Winning Ways ch. 4"},
    {"laskers-nim", "lasker", "Lasker's Nim", "Lasker (1931)"},
    {"wythoffs-game", "wythoff", "Wythoff's game", "Wythoff (1907)"},
};

}  // namespace

std::span<const GameName> game_names() {
    return GAME_NAMES;
}

std::optional<std::string_view> rule_of_name(std::string_view text) {
    std::string key;
    for (char c : text) {
        if (c == '\'') continue;
        if (c == ' ' || c == '_') c = '-';
        key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    for (const GameName& g : GAME_NAMES) {
        if (key == g.name) return std::string_view(g.rule);
    }
    return std::nullopt;
}

std::span<const RuleFamily> rule_families() {
    return FAMILIES;
}

std::span<const NamedRule> named_rules() {
    return NAMED;
}

std::string rules_help(const std::string& indent) {
    constexpr size_t WIDTH = 80;
    std::string out;
    for (const RuleFamily& f : FAMILIES) {
        // The description wrapped at WIDTH columns, under its first word.
        std::string line = fmt::format("{}{:<14} a move", indent, f.syntax);
        const size_t hang = indent.size() + 15;
        std::string_view rest = f.moves;
        while (!rest.empty()) {
            const size_t space = rest.find(' ');
            const std::string_view word = rest.substr(0, space);
            if (line.size() + 1 + word.size() > WIDTH) {
                out += line + "\n";
                line = std::string(hang - 1, ' ');
            }
            line += " ";
            line += word;
            rest = space == rest.npos ? std::string_view() : rest.substr(space + 1);
        }
        out += line + "\n";
    }
    return out;
}

std::string move_sentence(const Rule& rule) {
    const std::string text = rule.canonical();
    const std::string list = text.substr(text.find(':') + 1);
    switch (rule.kind()) {
        case RuleKind::subtract:
            return "A move takes an amount in " + list + " from one heap.";
        case RuleKind::allbut:
            return "A move takes any amount except " + list + " from one heap.";
        case RuleKind::octal:
            return "A move follows the octal code " + list +
                   ": digit k says whether k tokens may be taken from a heap leaving nothing (1), "
                   "one heap (2) or two heaps (4).";
        case RuleKind::hexadecimal:
            return "A move follows the hexadecimal code " + list +
                   ": digit k says whether k tokens may be taken from a heap leaving nothing (1), "
                   "one heap (2), two heaps (4) or three heaps (8).";
        case RuleKind::moore:
            return "A move takes tokens from 1 to " + std::to_string(rule.moore_k()) + " heaps.";
        default:
            break;
    }
    for (const RuleFamily& f : FAMILIES)
        if (f.kind == rule.kind()) return std::string("A move ") + f.moves + ".";
    return "";
}

}  // namespace nimtb::engine
