#pragma once
// The rule families described for people, in one place: the help of the
// command (`nimtb --help`, `nimtb solve --help`), play's "help" and the
// page's list of rules all read these. A new family adds its row here.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/game/rules.h"

namespace nimtb::engine {

struct RuleFamily {
    RuleKind kind;
    const char* syntax;  // how it is written: "subtract:LIST"
    const char* moves;   // what a move does: "takes an amount in LIST from one heap"
};

// Every family, in the order the help lists them.
std::span<const RuleFamily> rule_families();

// A rule worth naming, as the page offers it: "octal:0.77", "Kayles".
struct NamedRule {
    const char* text;
    const char* name;
};
std::span<const NamedRule> named_rules();

// A game known by name, parsed as its rule ("kayles" is octal:0.77), with
// where its code is given.
struct GameName {
    const char* name;    // as written: lower case, words joined by '-'
    const char* rule;    // its canonical text
    const char* title;   // as people write it: "Dawson's Kayles"
    const char* source;  // where the code comes from
};
std::span<const GameName> game_names();
// The rule text of a game's name, written in any case, with spaces or '_'
// for '-' and without apostrophes ("Dawson's Kayles", "dawsons_kayles");
// nullopt when no game has it.
std::optional<std::string_view> rule_of_name(std::string_view text);

// The families as the help lists them, one per line, each line starting
// with `indent`: "subtract:LIST  a move takes an amount in LIST (1,3,4 or 1-3,7) from one heap".
std::string rules_help(const std::string& indent);

// What a move of `rule` does, as a sentence with the rule's own numbers:
// "A move takes an amount in 1,3,4 from one heap."
std::string move_sentence(const Rule& rule);

}  // namespace nimtb::engine
