#include "service/request/solve_request.h"

#include <fmt/core.h>

#include "engine/base/errors.h"
#include "engine/game/moves.h"
#include "service/request/fields.h"

namespace nimtb::service {

namespace {

// Each field of a request under its JSON name: the one list to_json and
// solve_request_from_json read (the universe, three keys for one value,
// is read and written beside it).
constexpr auto FIELDS = [](auto& r, auto&& f) {
    f("rules", r.rule);
    f("convention", r.convention);
    f("method", r.method);
    f("kernel", r.kernel);
    f("remoteness", r.remoteness);
    f("threads", r.threads, THREADS);
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
};

// The universe of the keys `heaps`, `max_heap` and `max_total` (null or left
// out: not given), each within the command's range.
std::optional<engine::Bounds> universe_of(const nlohmann::json& j) {
    std::optional<uint64_t> heaps, max_heap, max_total;
    fields::read(j, "solve", "heaps", heaps, HEAPS);
    fields::read(j, "solve", "max_heap", max_heap, MAX_HEAP);
    fields::read(j, "solve", "max_total", max_total, MAX_TOTAL);
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
    // Everything the plan refuses (a method the convention or the rule has
    // not, a universe the moves leave, a kernel the universe cannot take, a
    // game longer than the format holds), before any work. Whether it can
    // stream depends on where its positions go (the driver's sink): the
    // driver's plan says, before any work too.
    engine::SolveOptions planned = solve_options();
    planned.stream = false;
    (void)engine::estimate_memory(rule, engine::Universe(bounds()), planned);
    if (!remoteness && method != engine::SolveMethod::brute)
        throw InputError(
            mention(Option::no_remoteness) +
            " goes with the brute method: the sprague-grundy method stores values only");
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
    nlohmann::json j = write_fields(r, FIELDS);
    if (r.universe) {
        const engine::Bounds& b = *r.universe;
        if (b.is_box()) {
            j["heaps"] = b.max_heaps();
            j["max_heap"] = b.max_heap_size();
        } else {
            j["max_total"] = b.max_total();
            // A total of N tokens has at most N heaps: a limit only below that.
            if (b.max_heaps() < b.max_total()) j["heaps"] = b.max_heaps();
        }
    }
    return j;
}

SolveRequest solve_request_from_json(const nlohmann::json& j) {
    SolveRequest r;
    read_fields(j, r, FIELDS, "solve", {"heaps", "max_heap", "max_total"});
    r.universe = universe_of(j);
    return r;
}

}  // namespace nimtb::service
