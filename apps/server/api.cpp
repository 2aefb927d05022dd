#include "apps/server/api.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

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

// The program children run: the one given, or this one.
std::string program_of(const ServerOptions& o) {
    if (!o.program.empty()) return o.program;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("/proc/self/exe") : self.string();
}

// A fresh private folder for the tables solved while the folder is read-only.
std::string make_scratch() {
    std::string pattern = (fs::temp_directory_path() / "nimtb-serve-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw TableError("cannot make a temporary folder for solved tables");
    return pattern;
}

// The children of one command line, and their limits.
ChildLimits limits_of(const ServerOptions& o, std::chrono::milliseconds time) {
    return ChildLimits{std::min<std::chrono::milliseconds>(time, o.job_time), o.job_memory};
}

}  // namespace

void send_json(http::Response& res, const json& j, int status) {
    res.status = status;
    res.content_type = "application/json";
    // A string that is not UTF-8 (a child's message, say) is mended, never
    // an exception on the way out.
    res.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string param(const http::Request& req, const char* name) {
    const auto it = req.params.find(name);
    if (it == req.params.end()) throw HttpError(400, fmt::format("missing parameter '{}'", name));
    return it->second;
}

engine::Heaps position_param(const http::Request& req) {
    return engine::parse_heaps(param(req, "position"));
}

json json_body(const http::Request& req) {
    const std::string type = req.header("content-type");
    if (type.substr(0, type.find(';')) != "application/json")
        throw HttpError(415, "send the request's body as JSON (Content-Type: application/json)");
    return json::parse(req.body);
}

ServerState::ServerState(ServerOptions o)
    : options(std::move(o)),
      scratch(make_scratch()),
      solve_dir(options.writable ? options.tables_dir : scratch),
      catalog(
          Catalog::Options{{options.tables_dir, scratch}, options.follow_links},
          [this](const std::string& path) {
              // Read first in a child: a damaged file may crash or hang HDF5.
              const ChildOutcome r = run_child(options.program, {"info", path, "--events", "json"},
                                               {std::chrono::seconds(10), options.job_memory}, {});
              if (r.end == ChildOutcome::End::answered) return;
              if (r.end == ChildOutcome::End::failed)
                  throw TableError(r.error.empty() ? path + ": not a table nimtb can read"
                                                   : r.error);
              throw TableError(fmt::format(
                  "{}: the file is damaged: reading its metadata {} (a file of HDF5's older "
                  "format, without checksums; docs/FORMAT.md)",
                  path,
                  r.end == ChildOutcome::End::killed_for_time ? "took over 10 s" : "crashed HDF5"));
          }),
      rng_(std::random_device{}()) {
    options.program = program_of(options);
    const unsigned n = std::max(1u, options.max_children);
    gates.children = std::make_shared<http::Gate>(n);
    gates.solve = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.dump = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.count = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.sequence = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.quotient = std::make_shared<http::Gate>(std::max(1u, n / 2), gates.children);
    gates.plane = std::make_shared<http::Gate>(2);
    gates.find = std::make_shared<http::Gate>(16);
}

ServerState::~ServerState() {
    jobs.stop_all();  // their children write into the private folder
    std::error_code ec;
    fs::remove_all(scratch, ec);
}

uint64_t ServerState::random() {
    std::lock_guard lock(rng_mutex_);
    return rng_();
}

std::pair<io::ProbedMove, play::MatchboxLearner::Draw> ServerState::Learners::choose(
    const std::string& name, const io::ProbeResult& probe, std::mt19937_64& rng) {
    std::lock_guard lock(mutex_);
    auto& learner = learners_.try_emplace(name, "").first->second;
    const io::ProbedMove& m = learner.choose(probe, rng);
    return {m, learner.take_draws().at(0)};
}

size_t ServerState::Learners::learn(const std::string& name,
                                    const std::vector<play::MatchboxLearner::Draw>& draws,
                                    bool won) {
    std::lock_guard lock(mutex_);
    auto& learner = learners_.try_emplace(name, "").first->second;
    learner.learn(draws, won);
    return learner.positions_known();
}

std::string ServerState::scrub(std::string message) const {
    std::vector<std::string> folders;
    for (const std::string& dir : {options.tables_dir, scratch}) {
        std::error_code ec;
        const fs::path absolute = fs::absolute(dir, ec);
        const fs::path canonical = fs::weakly_canonical(dir, ec);
        for (const fs::path& p : {fs::path(dir), absolute, canonical}) {
            std::string s = p.lexically_normal().string();
            while (s.size() > 1 && s.back() == '/') s.pop_back();
            if (!s.empty() && s != ".") folders.push_back(s);
        }
    }
    // The longest first, so that a folder's parent does not leave its tail.
    std::sort(folders.begin(), folders.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const std::string& f : folders) {
        for (size_t at; (at = message.find(f + "/")) != std::string::npos;)
            message.erase(at, f.size() + 1);
        // The folder alone, where it is a path: a relative name such as
        // "tables" is also a word of messages ("as many tables as").
        if (f.find('/') == std::string::npos) continue;
        for (size_t at; (at = message.find(f)) != std::string::npos;)
            message.replace(at, f.size(), "the tables folder");
    }
    // A draft's name says which process wrote it (io/codec/publish.h).
    message = io::without_draft_names(std::move(message));
    return message;
}

json ServerState::run(const http::Request& req, const std::string& command, const json& request,
                      std::chrono::milliseconds time, const std::string& late,
                      const std::function<void(std::string_view)>& data) {
    ChildIo io;
    io.data = data;
    io.cancelled = [&req] { return req.cancelled(); };
    const ChildOutcome r =
        run_child(options.program, {command, "--request", request.dump(), "--events", "json"},
                  limits_of(options, time), io);
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
                            scrub(r.error.empty() ? "the work failed" : r.error));
    }
    throw HttpError(500, "the work ended abnormally (out of the server's memory for work?)");
}

json ServerState::census(const http::Request& req, const std::string& name) {
    const auto t = catalog.table(name);
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
                       options.job_time,
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

void ServerState::solvable(const engine::Rule& rule, engine::Convention c,
                           const engine::Universe& u) const {
    if (u.size() > service::SOLVE_ON_THE_SPOT) {
        throw HttpError(422, "no table in the folder holds this game; make one with: " +
                                 solve_command(rule, c, u));
    }
}

std::string ServerState::solve(const engine::Rule& rule, engine::Convention c,
                               const engine::Universe& u, const std::function<bool()>& cancelled,
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
    try {
        const auto t = catalog.table(name);
        if (t->rules == rule.canonical() && t->convention == c &&
            t->universe->describe() == u.describe())
            return name;
    } catch (const std::exception&) {
        // Not there yet (or not that game): solve it.
    }
    if (!gates.solve->try_enter()) {
        throw HttpError(503,
                        "the server is solving as many tables as it may at once; try again "
                        "in a few seconds");
    }
    struct Leave {
        http::Gate& gate;
        ~Leave() { gate.leave(); }
    } leave{*gates.solve};
    if (written_bytes_.load() >= options.disk_budget) {
        throw HttpError(507, fmt::format("the server has written the tables its operator allows "
                                         "({}); make this one with: {}",
                                         engine::format_bytes(options.disk_budget), command));
    }
    // The solve writes into a folder of its own, removed whatever happens;
    // the table is moved into place whole.
    std::string work = (fs::path(solve_dir) / ".nimtb-solve-XXXXXX").string();
    if (!::mkdtemp(work.data())) throw TableError("cannot solve here: the folder is not writable");
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
    ChildLimits limits = limits_of(options, options.job_time);
    limits.nice = 10;  // every core, for long: below the server's answers
    const ChildOutcome r = run_child(
        options.program,
        {"solve", "--request", service::to_json(request).dump(), "--events", "json"}, limits, io);
    if (r.end == ChildOutcome::End::cancelled) throw Cancelled();
    if (r.end == ChildOutcome::End::killed_for_time) {
        throw HttpError(503, fmt::format("solving this game takes longer than the server allows "
                                         "({} s); make its table with: {}",
                                         options.job_time.count(), command));
    }
    if (r.end != ChildOutcome::End::answered) {
        throw HttpError(500, scrub(r.error.empty() ? "the solve failed" : r.error));
    }
    std::error_code ec;
    const uintmax_t bytes = fs::file_size(out, ec);
    if (ec || written_bytes_.load() + bytes > options.disk_budget) {
        throw HttpError(507, fmt::format("the table would pass the disk budget its operator "
                                         "allows ({}); make it with: {}",
                                         engine::format_bytes(options.disk_budget), command));
    }
    fs::rename(out, fs::path(solve_dir) / name, ec);
    if (ec) throw TableError("cannot place the solved table in the folder");
    written_bytes_ += bytes;
    return name;
}

int status_of(service::ErrorKind kind) {
    switch (kind) {
        case service::ErrorKind::usage:
        case service::ErrorKind::too_large:  // a universe too large: ask for a smaller one
            return 400;
        case service::ErrorKind::not_found:
            return 404;
        case service::ErrorKind::memory:
        case service::ErrorKind::interrupted:
            return 503;
        case service::ErrorKind::file:
        case service::ErrorKind::failed:
            return 500;
    }
    return 500;
}

void answer_exception(const ServerState& state, std::exception_ptr e, http::Response& res) {
    int status = 500;
    std::string message = "internal error";
    try {
        std::rethrow_exception(e);
    } catch (const HttpError& x) {
        status = x.status;
        message = x.what();
    } catch (const Cancelled&) {
        status = 499;  // nginx's word for a client that went away; no one reads it
        message = "cancelled";
    } catch (const json::exception& x) {
        status = 400;
        message = std::string("bad JSON: ") + x.what();
    } catch (const std::bad_alloc&) {
        status = 503;
        message = "the server is out of memory for this request";
    } catch (const std::exception& x) {
        status = status_of(service::error_kind(x));
        message = x.what();
    }
    // The page shows messages in the command line's words (mention, errors.h).
    send_json(res, {{"error", state.scrub(service::command_line_words(message))}}, status);
    if (status == 503) res.set_header("Retry-After", "5");
}

}  // namespace nimtb::apps
