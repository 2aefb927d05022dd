#pragma once
// What the endpoints of `nimtb serve` share: the server's state (the tables
// of its folder, opened once and reopened when their file changes; the
// learners; the one lock every table access holds, HDF5 being built without
// thread safety), the error a handler throws, and the wrapping that turns
// errors into answers. Each group of endpoints has a file of its own:
// tables_api.cpp (tables, answers, pictures), games_api.cpp (playing),
// research_api.cpp (sequences).

#include <fmt/core.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "apps/server/jobs.h"
#include "apps/server/web_server.h"
#include "engine/base/errors.h"
#include "engine/game/universe.h"
#include "io/probe.h"
#include "play/players.h"
#include "service/request/hooks.h"

namespace nimtb::apps {

// Requests are small: a position, a rule, a game's draws.
inline constexpr size_t MAX_BODY_BYTES = 64 * 1024;
// The explorer's pictures: a plane of at most this many heap sizes a side.
inline constexpr uint32_t MAX_PLANE_SIDE = 2048;
// In a plane's binary answer: a cell outside the universe, a remoteness not stored.
inline constexpr uint32_t NO_VALUE = UINT32_MAX;
inline constexpr uint16_t NO_REMOTENESS = UINT16_MAX;
// Single-heap sequences the page plots: a few seconds of work at most.
inline constexpr uint64_t MAX_PAGE_SEQUENCE = 65'536;
// The largest heap bound of a misère quotient the page asks for, and the
// time its computation may take (learning a quotient can take minutes below
// that bound, as octal:0.76 at heap 12 does).
inline constexpr uint32_t MAX_PAGE_QUOTIENT_HEAP = 100;
inline constexpr std::chrono::seconds MAX_PAGE_QUOTIENT_TIME{5};
// Counting reads the whole table while holding the tables' lock.
inline constexpr uint64_t MAX_COUNT_POSITIONS = 50'000'000;

// A flag that turns true once `limit` has passed, unless the Deadline is
// destroyed first: the cancellation hook of work a request waits for.
class Deadline {
  public:
    explicit Deadline(std::chrono::milliseconds limit);
    ~Deadline();
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;
    const std::atomic<bool>* flag() const { return &passed_; }

  private:
    std::atomic<bool> passed_{false};
    std::mutex mutex_;
    std::condition_variable gone_;
    bool done_ = false;
    std::thread timer_;
};

// An answer other than 200, thrown by a handler.
struct HttpError : std::runtime_error {
    HttpError(int s, const std::string& what) : std::runtime_error(what), status(s) {}
    int status;
};

void send_json(httplib::Response& res, const nlohmann::json& j, int status = 200);
// A parameter of the request, or HttpError 400 naming it.
std::string param(const httplib::Request& req, const char* name);
// Heaps in a URL: "3,4,5", "3 4 5" or empty for the empty position.
engine::Heaps position_param(const httplib::Request& req);
// The hooks of a solve on the spot: the server's log (stderr) says so.
// Reads the table at `path` with `nimtb info` in a child process, within
// 10 s, before the server opens it: a damaged file of HDF5's 1.8 format can
// crash or hang HDF5 (docs/FORMAT.md), and the server must outlive it.
// Throws TableError with the child's message, or saying it crashed or hung.
void vet_table(const std::string& path);

// Notes to stderr; new files of a folder vetted (vet_table) before use.
service::Hooks log_hooks();

// Runs a handler's work: errors become a status and {"error": ...}.
void answering(httplib::Response& res, const std::function<void()>& work);

// A handler that answers with JSON.
template <class F>
httplib::Server::Handler guarded(F f) {
    return [f](const httplib::Request& req, httplib::Response& res) {
        answering(res, [&] { send_json(res, f(req)); });
    };
}

struct ServerState {
    explicit ServerState(ServerOptions o) : options(std::move(o)), rng(std::random_device{}()) {}

    // A table of the folder, opened once and reopened when its file changes.
    struct Open {
        std::unique_ptr<io::Prober> prober;
        std::filesystem::file_time_type written;
        std::optional<nlohmann::json> census;
    };

    ServerOptions options;
    std::mutex tables_mutex;
    std::map<std::string, Open> open;
    std::map<std::string, play::MatchboxLearner> learners;
    std::mt19937_64 rng;

    // Solves on the spot the page follows; last, so that it is destroyed
    // (its jobs stopped and joined) before the tables they use.
    Jobs jobs;

    // The table `name` of the folder (HttpError 400 for a name that is not
    // one, 404 for a missing file). Hold tables_mutex.
    Open& table(const std::string& name);
    // info --json of an open table, its path the name alone.
    nlohmann::json info(Open& t, const std::string& name);
};

void add_table_routes(httplib::Server& http, ServerState& state);
void add_game_routes(httplib::Server& http, ServerState& state);
void add_research_routes(httplib::Server& http, ServerState& state);

}  // namespace nimtb::apps
