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

// The folders of a server: the tables', a fresh private one for the tables
// solved while that is read-only, and where solves go.
Folders folders_of(const ServerOptions& o) {
    std::string scratch = (fs::temp_directory_path() / "nimtb-serve-XXXXXX").string();
    if (!::mkdtemp(scratch.data()))
        throw TableError("cannot make a temporary folder for solved tables");
    const std::string solve = o.writable ? o.tables_dir : scratch;
    return {o.tables_dir, scratch, solve};
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
      folders(folders_of(options)),
      catalog(
          Catalog::Options{{folders.tables, folders.scratch}, options.follow_links},
          [this](const std::string& path) {
              // Read first in a child: a damaged file may crash or hang HDF5.
              // A child like any other, within --jobs.
              if (!work.gates.children->enter_within(std::chrono::seconds(2)))
                  throw HttpError(503,
                                  "the server is busy with as much work as it allows; try "
                                  "again in a few seconds");
              const http::Admission admitted(*work.gates.children);
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
      work(options, folders, catalog),
      learners(options.learning_bytes),
      rng_(std::random_device{}()) {
    options.program = program_of(options);
}

ServerState::~ServerState() {
    jobs.stop_all();  // their children write into the private folder
    std::error_code ec;
    fs::remove_all(folders.scratch, ec);
}

uint64_t ServerState::random() {
    std::lock_guard lock(rng_mutex_);
    return rng_();
}

std::pair<io::ProbedMove, play::MatchboxLearner::Draw> ServerState::Learners::choose(
    const std::string& name, const io::ProbeResult& probe, std::mt19937_64& rng) {
    std::lock_guard lock(mutex_);
    play::MatchboxLearner& l = learner(name);
    const io::ProbedMove& m = l.choose(probe, rng);
    auto answer = std::make_pair(m, l.take_draws().at(0));
    within_cap();
    return answer;
}

size_t ServerState::Learners::learn(const std::string& name,
                                    const std::vector<play::MatchboxLearner::Draw>& draws,
                                    bool won) {
    std::lock_guard lock(mutex_);
    play::MatchboxLearner& l = learner(name);
    l.learn(draws, won);
    within_cap();
    return l.positions_known();
}

uint64_t ServerState::Learners::bytes() {
    std::lock_guard lock(mutex_);
    uint64_t total = 0;
    for (const auto& [name, l] : learners_) total += l.bytes();
    return total;
}

play::MatchboxLearner& ServerState::Learners::learner(const std::string& name) {
    return learners_.try_emplace(name, "").first->second;
}

void ServerState::Learners::within_cap() {
    uint64_t total = 0;
    for (const auto& [name, l] : learners_) total += l.bytes();
    if (total <= cap_) return;
    // Each forgets in proportion to what it holds, down to 3/4 of the cap
    // together: a forgetting now and then, not one at every draw.
    const double keep = 0.75 * static_cast<double>(cap_) / static_cast<double>(total);
    for (auto& [name, l] : learners_)
        l.forget_oldest(static_cast<uint64_t>(keep * static_cast<double>(l.bytes())));
}

std::string Folders::scrub(std::string message) const {
    std::vector<std::string> folders;
    for (const std::string& dir : {tables, scratch}) {
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
    send_json(res, {{"error", state.folders.scrub(service::command_line_words(message))}}, status);
    if (status == 503) res.set_header("Retry-After", "5");
}

}  // namespace nimtb::apps
