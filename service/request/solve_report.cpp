#include "service/request/solve_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>

#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "io/codec/publish.h"

namespace nimtb::service {

io::TableHeader table_header(const engine::Solution& s) {
    return {s.rule,
            s.convention,
            s.bounds.max_heaps(),
            s.bounds.max_heap_size(),  // N under a total, as the reader checks
            s.bounds.max_total(),
            s.positions,
            engine::to_string(s.method)};
}

io::TableContents table_contents(const engine::Solution& s) {
    return {table_header(s), io::Entries::of(s.value),
            s.remoteness.empty() ? io::Entries{} : io::Entries::of(s.remoteness), s.max_value,
            s.max_remoteness};
}

std::string plan_line(uint64_t positions, const engine::SolvePlan& plan) {
    std::string how = plan.method == engine::SolveMethod::sprague_grundy
                          ? "by the sprague-grundy method"
                      : plan.kernel == engine::Kernel::lines ? "by the line kernel"
                                                             : "by the brute-force kernel";
    how += plan.streamed ? ", streamed to disk as solved" : ", held in memory";
    return fmt::format("{} positions {}: {} of memory", positions, how,
                       engine::format_bytes(plan.memory));
}

namespace {

// How the brute method's kernel went.
std::string kernel_phrase(const engine::Solution& s) {
    if (s.kernel == engine::Kernel::brute) return "every child visited";
    if (s.streamed) return "children summarised along lines, streamed to disk as solved";
    if (s.brute_from_level == 0) return "children summarised along lines";
    return "children summarised along lines, then visited (a value too large for the lines)";
}

std::string method_phrase(const SolveReport& r) {
    if (r.figures.method != engine::SolveMethod::brute)
        return "sprague-grundy (theorem-based: XOR of single-heap values; values only)";
    std::string phrase = "brute force from the rules, " + kernel_phrase(r.figures);
    if (r.distributed) phrase += fmt::format(", on {} processes", r.processes);
    return phrase;
}

}  // namespace

std::string human_count(double n) {
    if (n >= 1e9) return fmt::format("{:.1f}G", n / 1e9);
    if (n >= 1e6) return fmt::format("{:.1f}M", n / 1e6);
    if (n >= 1e3) return fmt::format("{:.1f}k", n / 1e3);
    return fmt::format("{:.0f}", n);
}

std::string summary(const SolveReport& r) {
    const engine::Solution& s = r.figures;
    // A rate over a few milliseconds measures the clock, not the solver.
    const std::string rate =
        r.solve_seconds < 0.05
            ? std::string()
            : fmt::format(" ({} positions/s)", human_count(double(s.positions) / r.solve_seconds));
    std::string out = fmt::format(
        "table        {}\n"
        "game         {} {}, {}\n"
        "method       {}\n"
        "positions    {}\n"
        "P-positions  {} ({:.2f}%)\n"
        "largest value       {}\n"
        "largest remoteness  {}\n"
        "solve time   {:.2f} s{}\n"
        "write time   {:.2f} s ({})\n",
        r.request.output, s.rule.canonical(), engine::to_string(s.convention), r.universe,
        method_phrase(r), s.positions, s.p_positions,
        100.0 * double(s.p_positions) / double(s.positions), s.max_value,
        r.remoteness_stored ? std::to_string(s.max_remoteness) : std::string("not stored"),
        r.solve_seconds, rate, r.write_seconds, io::to_string(r.request.compression));
    if (!r.peak_bytes.empty()) {
        const auto peak = std::max_element(r.peak_bytes.begin(), r.peak_bytes.end());
        out += fmt::format("peak memory  {} MB per process at most (process {})\n", *peak >> 20,
                           peak - r.peak_bytes.begin());
    }
    return out + r.storage;
}

nlohmann::json summary_json(const SolveReport& r) {
    const engine::Solution& s = r.figures;
    return {{"request", to_json(r.request)},
            {"universe", r.universe},
            {"positions", s.positions},
            {"p_positions", s.p_positions},
            {"largest_value", s.max_value},
            {"largest_remoteness",
             r.remoteness_stored ? nlohmann::json(s.max_remoteness) : nlohmann::json()},
            {"solve_seconds", r.solve_seconds},
            {"write_seconds", r.write_seconds},
            {"processes", r.processes}};
}

nlohmann::json stats_json(const SolveReport& r) {
    const engine::Solution& s = r.figures;
    nlohmann::json levels = nlohmann::json::array();
    for (size_t l = 0; l < s.levels.size(); ++l) {
        const engine::LevelStats& x = s.levels[l];
        levels.push_back({{"level", l},
                          {"blocks", x.blocks},
                          {"positions", x.positions},
                          {"lookups", x.lookups},
                          {"seconds", x.seconds},
                          {"kernel", engine::to_string(x.kernel)},
                          {"restored", x.restored}});
    }
    nlohmann::json j = {{"rules", s.rule.canonical()},
                        {"convention", engine::to_string(s.convention)},
                        {"universe", r.universe},
                        {"positions", s.positions}};
    if (r.distributed) {
        j["processes"] = r.processes;
        j["peak_bytes"] = r.peak_bytes;
    }
    j["child_lookups"] = s.child_lookups;
    j["streamed"] = s.streamed;
    j["levels"] = levels;
    return j;
}

void write_json_file(const std::string& path, const nlohmann::json& j) {
    io::write_file_whole(path, j.dump(1) + "\n");
}

}  // namespace nimtb::service
