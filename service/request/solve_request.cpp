#include "service/request/solve_request.h"

#include <fmt/core.h>

#include "engine/base/errors.h"
#include "engine/game/moves.h"

namespace nimtb::service {

engine::Universe SolveRequest::universe() const {
    return max_total ? engine::Universe::total_bounded(*max_total, max_heaps)
                     : engine::Universe(max_heaps, max_heap_size);
}

engine::SolveOptions SolveRequest::solve_options() const {
    engine::SolveOptions o;
    o.convention = convention;
    o.method = method;
    o.kernel = kernel;
    o.remoteness = remoteness && method == engine::SolveMethod::brute;
    o.threads = threads;
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
    engine::check_closed(rule, universe());
    if (level && (*level < 1 || *level > 9))
        throw InputError(mention(Option::level) + " must be from 1 to 9, not " +
                         std::to_string(*level));
    if (format_version != 1 && format_version != 2) {
        throw InputError(mention(Option::format_version) + " must be 1 or 2, not " +
                         std::to_string(format_version));
    }
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
    return {{"rules", r.rule.canonical()},
            {"convention", engine::to_string(r.convention)},
            {"max_heaps", r.max_heaps},
            {"max_heap_size", r.max_heap_size},
            {"max_total", r.max_total ? nlohmann::json(*r.max_total) : nlohmann::json()},
            {"method", engine::to_string(r.method)},
            {"kernel", engine::to_string(r.kernel)},
            {"remoteness", r.remoteness},
            {"threads", r.threads},
            {"compression", io::to_string(r.compression)},
            {"level", r.level ? nlohmann::json(*r.level) : nlohmann::json()},
            {"format_version", r.format_version},
            {"output", r.output},
            {"overwrite", r.overwrite},
            {"checkpoint", r.checkpoint},
            {"checkpoint_every", r.checkpoint_every},
            {"stats", r.stats}};
}

SolveRequest solve_request_from_json(const nlohmann::json& j) {
    try {
        SolveRequest r;
        r.rule = engine::Rule::parse(j.at("rules").get<std::string>());
        r.convention = engine::parse_convention(j.at("convention").get<std::string>());
        r.max_heaps = j.at("max_heaps").get<unsigned>();
        r.max_heap_size = j.at("max_heap_size").get<uint32_t>();
        if (!j.at("max_total").is_null()) r.max_total = j.at("max_total").get<uint32_t>();
        r.method = engine::parse_method(j.at("method").get<std::string>());
        r.kernel = engine::parse_kernel(j.at("kernel").get<std::string>());
        r.remoteness = j.at("remoteness").get<bool>();
        r.threads = j.at("threads").get<unsigned>();
        r.compression = io::parse_compression(j.at("compression").get<std::string>());
        if (!j.at("level").is_null()) r.level = j.at("level").get<int>();
        r.format_version = j.at("format_version").get<uint64_t>();
        r.output = j.at("output").get<std::string>();
        r.overwrite = j.at("overwrite").get<bool>();
        r.checkpoint = j.at("checkpoint").get<std::string>();
        r.checkpoint_every = j.at("checkpoint_every").get<double>();
        r.stats = j.at("stats").get<std::string>();
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw InputError(std::string("not a solve request: ") + e.what());
    }
}

}  // namespace nimtb::service
