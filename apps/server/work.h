#pragma once
// The server's folders, and its work in children (child.h): the gates that
// bound the work, one child per request spoken to through its request and
// events, the solves on the spot and the disk budget they spend, and the
// census of each table, computed once. Each keeps its own locks.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "apps/server/catalog.h"
#include "apps/server/http.h"
#include "apps/server/web_server.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::apps {

// Where the server reads and writes.
struct Folders {
    std::string tables;   // the folder served
    std::string scratch;  // private, temporary: tables solved when `tables` is read-only
    std::string solve;    // where solves go: `tables` when writable, else `scratch`
    // `message` with these folders and drafts' names taken out: no answer names a path.
    std::string scrub(std::string message) const;
};

class Work {
  public:
    Work(const ServerOptions& options, const Folders& folders, Catalog& catalog);

    // Work in children: at most `children` at once, and per kind fewer.
    // `find` admits requests that may solve (on the work pool, since a
    // solve is long); the solve itself is admitted by `solve`. `plane`,
    // `line` and `learn` admit the reads that turn out costly (a big
    // picture; a long game's line, thousands of probes; a long lesson, a
    // probe a draw), half the cores at most, all three together: the
    // handler measures the cost and asks with admit().
    struct Gates {
        std::shared_ptr<http::Gate> children, solve, dump, count, sequence, quotient, plane, find,
            line, learn;
    } gates;

    // A place in `gate`, for a response to hold until it is sent
    // (http::Response::held); HttpError 503 when the gate is full.
    static std::shared_ptr<http::Admission> admit(http::Gate& gate);

    // `nimtb command --request REQUEST --events json` in a child for a
    // request, within `time` (and the server's memory limit for work),
    // stopped when the client goes away. Returns its result event (without
    // "event"); passes each data event's text to `data` when given. Throws
    // HttpError with the status of the error event's kind (status_of), 503
    // when the time runs out (`late` words it), 500 when the child crashed,
    // every message scrubbed; nimtb::Cancelled when the client left.
    nlohmann::json run(const http::Request& req, const std::string& command,
                       const nlohmann::json& request, std::chrono::milliseconds time,
                       const std::string& late,
                       const std::function<void(std::string_view)>& data = nullptr);

    // HttpError 422 naming the solve to run when `u` is too big to solve now.
    void solvable(const engine::Rule& rule, engine::Convention c, const engine::Universe& u) const;
    // Solves `u` into the folder solves go to when it is small and returns
    // the table's name; throws as solvable() when it is not, HttpError 507
    // when the disk budget would be spent, 503 when it takes longer than
    // the job time.
    std::string solve(const engine::Rule& rule, engine::Convention c, const engine::Universe& u,
                      const std::function<bool()>& cancelled,
                      const std::function<void(double)>& progress);

    // The census of a table (dump --count --json), computed once per version.
    nlohmann::json census(const http::Request& req, const std::string& name);

  private:
    const ServerOptions& options_;
    const Folders& folders_;
    Catalog& catalog_;
    std::mutex census_mutex_;
    std::map<std::shared_ptr<const Catalog::Table>, nlohmann::json> censuses_;
    std::mutex solving_mutex_;
    std::map<std::string, std::shared_ptr<std::mutex>> solving_;  // one solve of a table at a time
    std::atomic<uint64_t> written_bytes_{0};                      // tables this server wrote
};

}  // namespace nimtb::apps
