#pragma once
// Enum values and their names in one table per enum: the name printed, the
// names parsed (a value's first entry is its name, any further ones are
// aliases, like "misère"), and the message that lists what would be right.
//
//   constexpr Named<Convention> CONVENTIONS[] = {{Convention::normal, "normal"},
//                                                {Convention::misere, "misere"},
//                                                {Convention::misere, "misère"}};
//   name_of(CONVENTIONS, Convention::misere)         -> "misere"
//   parse_name(CONVENTIONS, "sg", "convention")      -> InputError:
//       unknown convention 'sg': expected normal or misere

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/base/errors.h"

namespace nimtb {

template <class E>
struct Named {
    E value;
    const char* name;
};

// The name of `value`: its first entry; "?" for a value the table lacks.
template <class E, size_t N>
const char* name_of(const Named<E> (&table)[N], E value) {
    for (const Named<E>& n : table) {
        if (n.value == value) return n.name;
    }
    return "?";
}

// The value named `text` (a name or an alias); throws InputError naming
// `what` and listing every value's name.
template <class E, size_t N>
E parse_name(const Named<E> (&table)[N], std::string_view text, const char* what) {
    for (const Named<E>& n : table) {
        if (text == n.name) return n.value;
    }
    std::string names;
    auto is_name = [&](const Named<E>& n) { return name_of(table, n.value) == n.name; };
    size_t count = 0;
    for (const Named<E>& n : table) count += is_name(n);  // aliases left out
    size_t listed = 0;
    for (const Named<E>& n : table) {
        if (!is_name(n)) continue;
        names += listed == 0 ? "" : listed + 1 == count ? " or " : ", ";
        names += n.name;
        ++listed;
    }
    throw InputError("unknown " + std::string(what) + " '" + std::string(text) + "': expected " +
                     names);
}

}  // namespace nimtb
