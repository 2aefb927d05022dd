#include "service/request/solve_request.h"

#include <fmt/core.h>

#include <set>
#include <type_traits>

#include "engine/base/errors.h"
#include "engine/game/moves.h"

namespace nimtb::service {

namespace {

// Each field of a request under its JSON name: the one list to_json and
// solve_request_from_json read (the universe, three keys for one value,
// is read and written beside it).
template <class Request, class F>
void fields(Request& r, F&& f) {
    f("rules", r.rule);
    f("convention", r.convention);
    f("method", r.method);
    f("kernel", r.kernel);
    f("remoteness", r.remoteness);
    f("threads", r.threads);
    f("memory", r.memory);
    f("stream", r.stream);
    f("compression", r.compression);
    f("level", r.level);
    f("format_version", r.format_version);
    f("output", r.output);
    f("overwrite", r.overwrite);
    f("checkpoint", r.checkpoint);
    f("checkpoint_every", r.checkpoint_every);
    f("stats", r.stats);
}

constexpr const char* UNIVERSE_KEYS[] = {"heaps", "max_heap", "max_total"};

// A field's value as JSON, and back; the names of rules and enums as their
// parsers read them.
nlohmann::json to_value(const engine::Rule& x) {
    return x.canonical();
}
nlohmann::json to_value(engine::Convention x) {
    return engine::to_string(x);
}
nlohmann::json to_value(engine::SolveMethod x) {
    return engine::to_string(x);
}
nlohmann::json to_value(engine::Kernel x) {
    return engine::to_string(x);
}
nlohmann::json to_value(io::Compression x) {
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

void from_value(const nlohmann::json& j, engine::Rule& x) {
    x = engine::Rule::parse(j.get<std::string>());
}
void from_value(const nlohmann::json& j, engine::Convention& x) {
    x = engine::parse_convention(j.get<std::string>());
}
void from_value(const nlohmann::json& j, engine::SolveMethod& x) {
    x = engine::parse_method(j.get<std::string>());
}
void from_value(const nlohmann::json& j, engine::Kernel& x) {
    x = engine::parse_kernel(j.get<std::string>());
}
void from_value(const nlohmann::json& j, io::Compression& x) {
    x = io::parse_compression(j.get<std::string>());
}
template <class T>
void from_value(const nlohmann::json& j, T& x) {
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

template <class T>
void from_value(const nlohmann::json& j, std::optional<T>& x) {
    if (j.is_null()) {
        x.reset();
        return;
    }
    T value{};
    from_value(j, value);
    x = value;
}

// The universe of the keys `heaps`, `max_heap` and `max_total` (null or left
// out: not given).
std::optional<engine::Bounds> universe_of(const nlohmann::json& j) {
    std::optional<uint64_t> given[3];
    for (int i = 0; i < 3; ++i) {
        const auto it = j.find(UNIVERSE_KEYS[i]);
        if (it == j.end() || it->is_null()) continue;
        try {
            from_value(*it, given[i].emplace());
        } catch (const std::exception& e) {
            throw InputError(fmt::format("solve option {}: {}", UNIVERSE_KEYS[i], e.what()));
        }
    }
    const auto& [heaps, max_heap, max_total] = given;
    if (max_total && max_heap) throw InputError("give max_heap (a box) or max_total, not both");
    if (max_total) return engine::Bounds::total(*max_total, heaps.value_or(0));
    if (heaps && max_heap) return engine::Bounds::box(*heaps, *max_heap);
    if (heaps || max_heap)
        throw InputError("a box needs both heaps and max_heap (or give max_total)");
    return std::nullopt;
}

}  // namespace

const engine::Bounds& SolveRequest::bounds() const {
    if (!universe)
        throw InputError(
            "no universe to solve: give heaps and max_heap (a box), or max_total (and heaps)");
    return *universe;
}

engine::SolveOptions SolveRequest::solve_options() const {
    engine::SolveOptions o;
    o.convention = convention;
    o.method = method;
    o.kernel = kernel;
    o.remoteness = remoteness && method == engine::SolveMethod::brute;
    o.threads = threads;
    o.memory_limit = memory;
    o.stream = stream;
    return o;
}

io::WriteOptions SolveRequest::write_options() const {
    io::WriteOptions o;
    o.compression = compression;
    o.level = level.value_or(0);
    o.format_version = format_version;
    o.overwrite = overwrite;
    o.threads = threads;
    return o;
}

void SolveRequest::check() const {
    engine::check_closed(rule, engine::Universe(bounds()));
    if (level && (*level < 1 || *level > 9))
        throw InputError(mention(Option::level) + " must be from 1 to 9, not " +
                         std::to_string(*level));
    if (level && compression != io::Compression::zstd && compression != io::Compression::deflate)
        throw InputError(fmt::format("{} goes with zstd or deflate; {} has no levels",
                                     mention(Option::level), io::to_string(compression)));
    if (format_version != 1 && format_version != 2) {
        throw InputError(mention(Option::format_version) + " must be 1 or 2, not " +
                         std::to_string(format_version));
    }
    if (kernel != engine::Kernel::automatic && method != engine::SolveMethod::brute)
        throw InputError(mention(Option::kernel) +
                         " is the brute method's; the sprague-grundy method has none");
    if (!stats.empty() && method != engine::SolveMethod::brute) {
        throw InputError(mention(Option::stats) +
                         " goes with the brute method: the sprague-grundy method has no levels");
    }
    if (!checkpoint.empty() && method != engine::SolveMethod::brute) {
        throw InputError(mention(Option::checkpoint) +
                         " goes with the brute method: the sprague-grundy method has no levels to "
                         "save");
    }
    if (!(checkpoint_every >= 0 && checkpoint_every <= 86400))
        throw InputError(mention(Option::checkpoint_every) + " must be from 0 to 86400 seconds");
    if (output.empty()) throw InputError("no path for the table: give " + mention(Option::output));
}

nlohmann::json to_json(const SolveRequest& r) {
    nlohmann::json j = nlohmann::json::object();
    if (r.universe) {
        const engine::Bounds& b = *r.universe;
        j["heaps"] = b.max_heaps();
        if (b.is_box())
            j["max_heap"] = b.max_heap_size();
        else
            j["max_total"] = b.max_total();
    }
    fields(r, [&](const char* key, const auto& field) { j[key] = to_value(field); });
    return j;
}

SolveRequest solve_request_from_json(const nlohmann::json& j) {
    if (!j.is_object()) throw InputError("a solve request is a JSON object of options");
    SolveRequest r;
    std::set<std::string> known(std::begin(UNIVERSE_KEYS), std::end(UNIVERSE_KEYS));
    fields(r, [&](const char* key, auto& field) {
        known.insert(key);
        const auto it = j.find(key);
        if (it == j.end()) return;
        try {
            from_value(*it, field);
        } catch (const nlohmann::json::exception&) {
            throw InputError(fmt::format("solve option {}: cannot be a {}", key, it->type_name()));
        } catch (const InputError& e) {
            throw InputError(fmt::format("solve option {}: {}", key, e.what()));
        }
    });
    for (const auto& [key, value] : j.items()) {
        if (!known.count(key)) throw InputError(fmt::format("unknown solve option '{}'", key));
    }
    r.universe = universe_of(j);
    return r;
}

}  // namespace nimtb::service
