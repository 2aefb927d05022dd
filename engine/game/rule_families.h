#pragma once
// The rule families described for people, in one place: the help of the
// command (`nimtb --help`, `nimtb solve --help`), play's "help" and the
// page's list of rules all read these. A new family adds its row here.

#include <span>
#include <string>

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

// The families as the help lists them, one per line, each line starting
// with `indent`: "subtract:LIST  a move takes an amount in LIST (1,3,4 or 1-3,7) from one heap".
std::string rules_help(const std::string& indent);

// What a move of `rule` does, as a sentence with the rule's own numbers:
// "A move takes an amount in 1,3,4 from one heap."
std::string move_sentence(const Rule& rule);

}  // namespace nimtb::engine
