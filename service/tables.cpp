#include "service/tables.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "service/solve.h"

namespace nimtb::service {

std::string game_stem(const engine::Rule& rule, engine::Convention c) {
    std::string name = rule.canonical();
    for (char& ch : name) {
        if (ch == ':') ch = '-';
        if (ch == ',') ch = '_';
    }
    return name + "-" + engine::to_string(c);
}

std::string default_table_path(const engine::Rule& rule, engine::Convention c,
                               const engine::Universe& u) {
    if (u.is_box()) {
        return fmt::format("tables/{}-k{}-h{}.h5", game_stem(rule, c), u.max_heaps(),
                           u.max_heap_size());
    }
    return fmt::format("tables/{}-n{}{}.h5", game_stem(rule, c), u.max_total(),
                       u.max_heaps() < u.max_total() ? fmt::format("-k{}", u.max_heaps()) : "");
}

std::string storage_lines(const io::TableStorage& storage) {
    return fmt::format(
        "data         {} as arrays, {} stored ({}, compression ratio {:.1f}x)\n"
        "file size    {}\n",
        engine::format_bytes(storage.data_bytes), engine::format_bytes(storage.stored_bytes),
        io::to_string(storage.compression), storage.compression_ratio,
        engine::format_bytes(storage.file_bytes));
}

Tablebase::Tablebase(const std::string& dir, bool must_exist) : dir_(dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        if (!must_exist) return;
        if (fs::exists(dir, ec)) throw TableError(dir + ": not a folder");
        throw NoSuchFile(dir + ": no such folder");
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() == ".h5") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            io::TableReader t(f.string());
            const io::TableInfo& i = t.info();
            tables_.push_back({f.string(), t.rule(), i.convention, t.universe(), i.positions});
        } catch (const std::exception& e) {
            skipped_.push_back(e.what());  // not a usable table: look further
        }
    }
}

const FolderTable* Tablebase::find(const engine::Rule& rule, engine::Convention c,
                                   std::span<const uint32_t> heaps) const {
    const FolderTable* best = nullptr;
    for (const FolderTable& t : tables_) {
        if (t.rule == rule && t.convention == c && (!best || t.positions < best->positions) &&
            t.universe.holds(heaps))
            best = &t;
    }
    return best;
}

const FolderTable& Tablebase::table_for(const engine::Rule& rule, engine::Convention c,
                                        std::span<const uint32_t> heaps) const {
    if (const FolderTable* t = find(rule, c, heaps)) return *t;
    const engine::Heaps start(heaps.begin(), heaps.end());
    std::string solve;
    try {
        solve = "; " + make_table_hint(rule, c, smallest_universe(rule, start));
    } catch (const std::exception&) {  // beyond what a table holds
    }
    std::vector<std::string> ours;
    namespace fs = std::filesystem;
    for (const FolderTable& t : tables_) {
        if (t.rule == rule && t.convention == c)
            ours.push_back(fmt::format("{} holds {}", fs::path(t.path).filename().string(),
                                       t.universe.describe()));
    }
    const std::string game = rule.canonical() + " " + engine::to_string(c);
    // A file skipped may be the table that was meant (a copy cut short, say): said first.
    std::string passed_over;
    if (!skipped_.empty()) {
        passed_over = fmt::format(" ({} file{} passed over as no table nimtb can read: {}{})",
                                  skipped_.size(), skipped_.size() == 1 ? "" : "s",
                                  skipped_.front(), skipped_.size() > 1 ? "; ..." : "");
    }
    if (ours.empty()) {
        throw NotInTable(fmt::format("no table in {} is of {} ({} table{} of other games){}{}",
                                     dir_, game, tables_.size(), tables_.size() == 1 ? "" : "s",
                                     passed_over, solve));
    }
    std::string list;
    for (const std::string& o : ours) list += (list.empty() ? "" : "; ") + o;
    throw NotInTable(fmt::format("no table of {} in {} holds {}: {}{}{}", game, dir_,
                                 engine::format_heaps(heaps), list, passed_over, solve));
}

namespace {

// The solve of `u`'s table with every other option at its default.
SolveRequest request_for(const engine::Rule& rule, engine::Convention c,
                         const engine::Universe& u) {
    SolveRequest request;
    request.rule = rule;
    request.convention = c;
    request.universe = u.bounds();
    return request;
}

// Solves `u` into `dir` when it is small, or names the solve to run.
std::string solve_now(const std::string& dir, const engine::Rule& rule, engine::Convention c,
                      const engine::Universe& u, const Hooks& hooks) {
    namespace fs = std::filesystem;
    if (u.size() > SOLVE_ON_THE_SPOT) {
        throw TableError("no table under " + dir + "/ holds this game; " +
                         make_table_hint(rule, c, u));
    }
    SolveRequest request = request_for(rule, c, u);
    request.output = (fs::path(dir) / fs::path(default_table_path(rule, c, u)).filename()).string();
    hooks.say(fmt::format(
        "nimtb: no table under {}/ holds this game; solving one now ({} positions) -> {}", dir,
        u.size(), request.output));
    fs::create_directories(dir);
    solve_table(request, Hooks{hooks.progress, hooks.cancel, nullptr});
    return request.output;
}

}  // namespace

std::string find_or_solve_table(const std::string& dir, const engine::Rule& rule,
                                engine::Convention c, const engine::Heaps& start,
                                const Hooks& hooks) {
    const Tablebase folder(dir, false);
    if (const FolderTable* t = folder.find(rule, c, start)) return t->path;
    return solve_now(dir, rule, c, smallest_universe(rule, start), hooks);
}

std::string solve_hint(const engine::Rule& rule, engine::Convention c, const engine::Universe& u) {
    const SolveRequest request = request_for(rule, c, u);
    nlohmann::json j = to_json(request);
    for (auto it = j.begin(); it != j.end();) {  // what the universe and game are, no more
        const std::string& key = it.key();
        const bool kept = key == "rules" || key == "convention" || key == "heaps" ||
                          key == "max_heap" || key == "max_total";
        it = kept ? std::next(it) : j.erase(it);
    }
    return mention(Option::solve_command, j.dump());
}

std::string make_table_hint(const engine::Rule& rule, engine::Convention c,
                            const engine::Universe& u) {
    const SolveRequest request = request_for(rule, c, u);
    const engine::SolveOptions options = request.solve_options();
    try {
        engine::check_fits(rule, u, options);
    } catch (const MemoryShortfall&) {
        // Worded without the memory available now, which changes from one moment to the next.
        return fmt::format(
            "no table of it can be made on this machine: solving its {} positions needs {} of "
            "memory, more than is available",
            u.size(), engine::format_bytes(engine::estimate_memory(rule, u, options)));
    }
    return "make one with: " + solve_hint(rule, c, u);
}

engine::Universe smallest_universe(const engine::Rule& rule, const engine::Heaps& start) {
    unsigned k = 0;
    uint32_t h = 0, total = 0;
    for (uint32_t a : start) {
        k += a != 0;
        h = std::max(h, a);
        total += a;
    }
    if (rule.adds_heaps()) return engine::Universe::total_bounded(std::max(total, 1u));
    return engine::Universe(std::max(k, 1u), h);
}

}  // namespace nimtb::service
