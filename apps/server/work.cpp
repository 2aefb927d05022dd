#include "apps/server/work.h"

#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "apps/server/api.h"
#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "io/codec/publish.h"
#include "service/dump.h"
#include "service/request/solve_request.h"
#include "service/request/words.h"
#include "service/tables.h"

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The children of one command line, and their limits.
ChildLimits limits_of(const ServerOptions& o, std::chrono::milliseconds time) {
    return ChildLimits{std::min<std::chrono::milliseconds>(time, o.job_time), o.job_memory};
}

}  // namespace

Work::Work(const ServerOptions& options, const Folders& folders, Catalog& catalog)
    : options_(options), folders_(folders), catalog_(catalog) {
    const unsigned n = std::max(1u, options.max_children);
    gates.children = std::make_shared<http::Gate>(n);
    gates.solve = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.dump = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.count = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.sequence = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.quotient = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    const unsigned half_the_cores = std::max(1u, std::thread::hardware_concurrency() / 2);
    // Costly reads together take half the cores at most: plain queries keep the rest.
    const auto costly = std::make_shared<http::Gate>(half_the_cores);
    gates.plane = std::make_shared<http::Gate>(half_the_cores, costly);
    gates.line = std::make_shared<http::Gate>(half_the_cores, costly);
    gates.learn = std::make_shared<http::Gate>(half_the_cores, costly);
    gates.find = std::make_shared<http::Gate>(16);
}

std::shared_ptr<http::Admission> Work::admit(http::Gate& gate) {
    if (!gate.try_enter()) {
        throw HttpError(503,
                        "the server is busy with as many costly reads as it allows; try again "
                        "in a few seconds");
    }
    return std::make_shared<http::Admission>(gate);
}

json Work::run(const http::Request& req, const std::string& command, const json& request,
               std::chrono::milliseconds time, const std::string& late,
               const std::function<void(std::string_view)>& data) {
    ChildIo io;
    io.data = data;
    io.cancelled = [&req] { return req.cancelled(); };
    const ChildOutcome r =
        run_child(options_.program, {command, "--request", request.dump(), "--events", "json"},
                  limits_of(options_, time), io);
    switch (r.end) {
        case ChildOutcome::End::answered:
            return r.result;
        case ChildOutcome::End::cancelled:
            throw Cancelled();
        case ChildOutcome::End::killed_for_time:
            throw HttpError(503, late);
        case ChildOutcome::End::crashed:
            break;
        case ChildOutcome::End::failed:
            if (r.error_kind == service::ErrorKind::memory)
                throw HttpError(503, "this needs more memory than the server gives a request");
            throw HttpError(status_of(r.error_kind),
                            folders_.scrub(r.error.empty() ? "the work failed" : r.error));
    }
    throw HttpError(500, "the work ended abnormally (out of the server's memory for work?)");
}

json Work::census(const http::Request& req, const std::string& name) {
    const auto t = catalog_.table(name);
    {
        std::lock_guard lock(census_mutex_);
        if (const auto it = censuses_.find(t); it != censuses_.end()) return it->second;
    }
    if (t->positions > MAX_COUNT_POSITIONS) {
        throw HttpError(422, fmt::format("the table has {} positions, more than the server "
                                         "counts ({}); run nimtb dump --count",
                                         t->positions, MAX_COUNT_POSITIONS));
    }
    const json j = run(req, "dump", service::to_json(service::DumpRequest{t->path, {}, true}),
                       options_.job_time,
                       "counting this table takes longer than the server allows; run "
                       "nimtb dump --count");
    std::lock_guard lock(census_mutex_);
    for (auto it = censuses_.begin(); it != censuses_.end();) {
        it = it->first.use_count() == 1 ? censuses_.erase(it) : std::next(it);  // file changed
    }
    censuses_[t] = j;
    return j;
}

namespace {

// The solve that makes `u`'s table, in the command line's words.
std::string solve_command(const engine::Rule& rule, engine::Convention c,
                          const engine::Universe& u) {
    return service::command_line_words(service::solve_hint(rule, c, u));
}

}  // namespace

void Work::solvable(const engine::Rule& rule, engine::Convention c,
                    const engine::Universe& u) const {
    if (u.size() > service::SOLVE_ON_THE_SPOT) {
        throw HttpError(422, "no table in the folder holds this game; " +
                                 service::command_line_words(service::make_table_hint(rule, c, u)));
    }
}

std::string Work::solve(const engine::Rule& rule, engine::Convention c, const engine::Universe& u,
                        const std::function<bool()>& cancelled,
                        const std::function<void(double)>& progress) {
    solvable(rule, c, u);
    const std::string command = solve_command(rule, c, u);
    std::string name = fs::path(service::default_table_path(rule, c, u)).filename().string();
    if (!is_table_name(name)) {
        // A long rule text: a short name of the game, still a name the server serves.
        name = fmt::format("{}-{:016x}.h5", service::game_stem(rule, c).substr(0, 40),
                           std::hash<std::string>{}(name));
        if (!is_table_name(name))
            name = fmt::format("table-{:016x}.h5", std::hash<std::string>{}(name));
    }
    // One solve of a table at a time: the next asker finds it solved.
    std::shared_ptr<std::mutex> one;
    {
        std::lock_guard lock(solving_mutex_);
        auto& m = solving_[name];
        if (!m) m = std::make_shared<std::mutex>();
        one = m;
    }
    std::lock_guard solving(*one);
    // The table under its name, or under the first free one of NAME-2.h5,
    // NAME-3.h5, ...: a file of that name that is not this game (another
    // game's table, a file of the operator's) is never replaced.
    const std::string stem = fs::path(name).stem().string();
    for (int n = 2;; ++n) {
        try {
            const auto t = catalog_.table(name);
            if (t->rules == rule.canonical() && t->convention == c &&
                t->universe->describe() == u.describe())
                return name;
        } catch (const HttpError& e) {
            if (e.status == 404) break;  // a free name
            // A file being written, or the server too busy to look: not free.
        } catch (const std::exception&) {
            // A file the server cannot read: someone else's.
        }
        if (n > 100) throw TableError("cannot solve here: every name for the table is taken");
        name = fmt::format("{}-{}.h5", stem, n);
    }
    if (!gates.solve->try_enter()) {
        throw HttpError(503,
                        "the server is solving as many tables as it may at once; try again "
                        "in a few seconds");
    }
    const http::Admission admitted(*gates.solve);
    if (written_bytes_.load() >= options_.disk_budget) {
        throw HttpError(507, fmt::format("the server has written the tables its operator allows "
                                         "({}); make this one with: {}",
                                         engine::format_bytes(options_.disk_budget), command));
    }
    // The solve writes into a folder of its own, removed whatever happens;
    // the table is moved into place whole.
    std::string work = (fs::path(folders_.solve) / ".nimtb-solve-XXXXXX").string();
    if (!::mkdtemp(work.data())) {
        throw HttpError(507,
                        "the server cannot write this table (its disk is full, or its folder "
                        "is not writable); make it with: " +
                            command);
    }
    struct Cleanup {
        std::string dir;
        ~Cleanup() {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } cleanup{work};
    const std::string out = (fs::path(work) / name).string();
    service::SolveRequest request;
    request.rule = rule;
    request.convention = c;
    request.universe = u.bounds();
    request.output = out;
    ChildIo io;
    io.cancelled = cancelled;
    io.progress = progress;
    ChildLimits limits = limits_of(options_, options_.job_time);
    limits.nice = 10;  // every core, for long: below the server's answers
    const ChildOutcome r = run_child(
        options_.program,
        {"solve", "--request", service::to_json(request).dump(), "--events", "json"}, limits, io);
    if (r.end == ChildOutcome::End::cancelled) throw Cancelled();
    if (r.end == ChildOutcome::End::killed_for_time) {
        throw HttpError(503, fmt::format("solving this game takes longer than the server allows "
                                         "({} s); make its table with: {}",
                                         options_.job_time.count(), command));
    }
    if (r.end == ChildOutcome::End::failed && r.error_kind == service::ErrorKind::file) {
        throw HttpError(507,
                        "the server cannot write this table (its disk is full, or its folder "
                        "is not writable); make it with: " +
                            command);
    }
    if (r.end != ChildOutcome::End::answered) {
        std::string error = r.error.empty() ? "the solve failed" : r.error;
        for (size_t at; (at = error.find(work + "/")) != std::string::npos;)
            error.erase(at, work.size() + 1);  // the solve's own folder is named by no answer
        throw HttpError(500, folders_.scrub(error));
    }
    std::error_code ec;
    const uintmax_t bytes = fs::file_size(out, ec);
    if (ec || written_bytes_.load() + bytes > options_.disk_budget) {
        throw HttpError(507, fmt::format("the table would pass the disk budget its operator "
                                         "allows ({}); make it with: {}",
                                         engine::format_bytes(options_.disk_budget), command));
    }
    if (!io::move_without_replacing(out, (fs::path(folders_.solve) / name).string())) {
        throw HttpError(409, "a file took the table's name while it was solved; ask again");
    }
    written_bytes_ += bytes;
    return name;
}

}  // namespace nimtb::apps
