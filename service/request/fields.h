#pragma once
// How a request type is read from JSON and written back: each request lists
// its fields once, in a callable `list(request, f)` beside it (FIELDS in
// solve_request.cpp, SEQUENCE_FIELDS, QUOTIENT_FIELDS, ...) that calls
// `f("json_key", field)` (or `f("json_key", field, RANGE)` for a whole
// number with a range), and read_fields / write_fields walk that one list.
// The JSON keys are Python's keywords and what `--request JSON` takes; the
// ranges are the command's, so a number means one range everywhere.
//
// A new field: its member in the request, one line in the request's list;
// a new type of field: a to_value / from_value pair below.

#include <fmt/core.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/base/errors.h"
#include "engine/game/rules.h"
#include "engine/sequences/sequence.h"
#include "engine/solve/solver.h"
#include "io/codec/table_format.h"

namespace nimtb::service {

// A whole number's range, as every front end states it.
struct Range {
    int64_t min;
    int64_t max;
};
inline constexpr Range HEAPS{1, 128};                           // heaps K
inline constexpr Range MAX_HEAP{1, int64_t{UINT32_MAX}};        // max_heap H
inline constexpr Range SEQUENCE_MAX_HEAP{1, int64_t{1} << 32};  // a sequence's max_heap
inline constexpr Range MAX_TOTAL{1, int64_t{UINT32_MAX}};       // max_total N
inline constexpr Range LIMIT{1, int64_t{UINT32_MAX}};           // limit N
inline constexpr Range THREADS{0, 1024};                        // threads
inline constexpr Range TIME_LIMIT{1, 10'000'000};               // time_limit, seconds
inline constexpr Range MAX_COPIES{1, 1000};                     // max_copies

// No range: whatever the field's type holds.
struct Unranged {};

namespace fields {

template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

inline nlohmann::json to_value(const engine::Rule& x) {
    return x.canonical();
}
inline nlohmann::json to_value(engine::Convention x) {
    return engine::to_string(x);
}
inline nlohmann::json to_value(engine::SolveMethod x) {
    return engine::to_string(x);
}
inline nlohmann::json to_value(engine::Kernel x) {
    return engine::to_string(x);
}
inline nlohmann::json to_value(engine::SequenceMethod x) {
    return engine::to_string(x);
}
inline nlohmann::json to_value(io::Compression x) {
    return io::to_string(x);
}
template <class T>
nlohmann::json to_value(const T& x) {
    return x;
}
template <class T>
nlohmann::json to_value(const std::optional<T>& x) {
    return x ? to_value(*x) : nlohmann::json();
}

inline void from_value(const nlohmann::json& j, engine::Rule& x, Unranged) {
    x = engine::Rule::parse(j.get<std::string>());
}
inline void from_value(const nlohmann::json& j, engine::Convention& x, Unranged) {
    x = engine::parse_convention(j.get<std::string>());
}
inline void from_value(const nlohmann::json& j, engine::SolveMethod& x, Unranged) {
    x = engine::parse_method(j.get<std::string>());
}
inline void from_value(const nlohmann::json& j, engine::Kernel& x, Unranged) {
    x = engine::parse_kernel(j.get<std::string>());
}
inline void from_value(const nlohmann::json& j, engine::SequenceMethod& x, Unranged) {
    x = engine::parse_sequence_method(j.get<std::string>());
}
inline void from_value(const nlohmann::json& j, io::Compression& x, Unranged) {
    x = io::parse_compression(j.get<std::string>());
}

// A whole number within `r`: the words of the command's range check.
template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) void from_value(const nlohmann::json& j,
                                                                            T& x, Range r) {
    const bool within =
        j.is_number_unsigned()
            ? j.get<uint64_t>() <= uint64_t(r.max) && int64_t(j.get<uint64_t>()) >= r.min
        : j.is_number_integer() ? j.get<int64_t>() >= r.min && j.get<int64_t>() <= r.max
                                : false;
    if (!within) {
        throw InputError(
            fmt::format("must be a whole number from {} to {}, not {}", r.min, r.max, j.dump()));
    }
    x = static_cast<T>(j.get<int64_t>());
}

template <class T>
requires(!is_optional<T>) void from_value(const nlohmann::json& j, T& x, Unranged) {
    if constexpr (std::is_same_v<T, bool>) {
        if (!j.is_boolean()) throw InputError("expected true or false");
    } else if constexpr (std::is_unsigned_v<T>) {
        if (!j.is_number_unsigned() || j.get<uint64_t>() > std::numeric_limits<T>::max())
            throw InputError("expected a whole number from 0 to " +
                             std::to_string(std::numeric_limits<T>::max()));
    } else if constexpr (std::is_integral_v<T>) {
        if (!j.is_number_integer()) throw InputError("expected a whole number");
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!j.is_number()) throw InputError("expected a number");
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!j.is_string()) throw InputError("expected text");
    }
    x = j.get<T>();
}

// A rule has no empty value to read into.
inline void from_value(const nlohmann::json& j, std::optional<engine::Rule>& x, Unranged) {
    if (j.is_null())
        x.reset();
    else
        x = engine::Rule::parse(j.get<std::string>());
}

template <class T, class R>
void from_value(const nlohmann::json& j, std::optional<T>& x, R r) {
    if (j.is_null()) {
        x.reset();
        return;
    }
    T value{};
    from_value(j, value, r);
    x = value;
}

// The value of `key` in `j` into `field`, every error naming the key.
template <class T, class R>
void read(const nlohmann::json& j, std::string_view what, const char* key, T& field, R range) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    try {
        from_value(*it, field, range);
    } catch (const nlohmann::json::exception&) {
        throw InputError(fmt::format("{} option {}: cannot be a {}", what, key, it->type_name()));
    } catch (const InputError& e) {
        throw InputError(fmt::format("{} option {}: {}", what, key, e.what()));
    }
}

}  // namespace fields

// `j`'s keys into `request` through `list(request, f)`: a key left out keeps
// its default; an unknown key (other than `also`, which the caller reads),
// a value of the wrong type or out of range is an InputError that names the
// key ("sequence option max_heap: must be a whole number from 1 to ...").
template <class Request, class List>
void read_fields(const nlohmann::json& j, Request& request, List&& list, std::string_view what,
                 std::initializer_list<const char*> also = {}) {
    if (!j.is_object())
        throw InputError(fmt::format("a {} request is a JSON object of options", what));
    std::set<std::string, std::less<>> known(also.begin(), also.end());
    list(request, [&](const char* key, auto& field, auto... range) {
        known.insert(key);
        if constexpr (sizeof...(range) == 0) {
            fields::read(j, what, key, field, Unranged{});
        } else {
            fields::read(j, what, key, field, range...);
        }
    });
    for (const auto& [key, value] : j.items()) {
        if (!known.count(key)) throw InputError(fmt::format("unknown {} option '{}'", what, key));
    }
}

// `request`'s fields as JSON: what read_fields reads back to the same request.
template <class Request, class List>
nlohmann::json write_fields(const Request& request, List&& list) {
    nlohmann::json j = nlohmann::json::object();
    list(request,
         [&](const char* key, const auto& field, auto...) { j[key] = fields::to_value(field); });
    return j;
}

}  // namespace nimtb::service
