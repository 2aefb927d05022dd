#pragma once
// What the endpoints of `nimtb serve` share: the server's state, a part per
// job (its folders, the catalog of its tables, the work in children behind
// its gates, the learners, the jobs a page follows; each part keeps its own
// locks), and the helpers that turn requests into answers. Reads (query, info, moves, hints,
// pictures) use the catalog's open tables, each under its own lock; work that can be long (solves,
// dumps, counts, sequences, quotients) runs as a child process of `nimtb`
// (child.h) behind a gate. Each group of endpoints has a file of its own:
// tables_api.cpp (tables, answers, pictures), games_api.cpp (playing),
// research_api.cpp (sequences, quotients).

#include <fmt/core.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "apps/server/catalog.h"
#include "apps/server/child.h"
#include "apps/server/http.h"
#include "apps/server/jobs.h"
#include "apps/server/web_server.h"
#include "apps/server/work.h"
#include "engine/game/universe.h"
#include "play/players.h"

namespace nimtb::apps {

using HttpError = http::Error;

// The explorer's pictures: a plane of at most this many heap sizes a side.
inline constexpr uint32_t MAX_PLANE_SIDE = 2048;
// Reads past these are costly, and admitted by a gate (work.h): a plane
// of more cells, a query's line of more probes (a few milliseconds'
// worth: (tokens + 1)^2), a lesson of a longer body (about 100 draws).
inline constexpr uint64_t PLAIN_PLANE_CELLS = 512 * 512;
inline constexpr uint64_t PLAIN_LINE_PROBES = 200'000;
inline constexpr size_t PLAIN_LESSON_BYTES = 4096;
// Single-heap sequences the page plots: a few seconds of work at most.
inline constexpr uint64_t MAX_PAGE_SEQUENCE = 65'536;
// The largest heap bound of a misère quotient (or a genus) the page asks for, and the
// time its computation may take (learning a quotient can take minutes below
// that bound, as octal:0.76 at heap 12 does).
inline constexpr uint32_t MAX_PAGE_QUOTIENT_HEAP = 100;
inline constexpr std::chrono::seconds MAX_PAGE_QUOTIENT_TIME{5};
// Counting reads the whole table (in a child).
inline constexpr uint64_t MAX_COUNT_POSITIONS = 50'000'000;
// A CSV export probes every N-position for its move: about 100,000 rows a second.
inline constexpr uint64_t MAX_DUMP_POSITIONS = 2'000'000;

void send_json(http::Response& res, const nlohmann::json& j, int status = 200);
// A parameter of the request, or HttpError 400 naming it.
std::string param(const http::Request& req, const char* name);
// Heaps in a URL: "3,4,5", "3 4 5" or empty for the empty position.
engine::Heaps position_param(const http::Request& req);
// The JSON body of a POST: HttpError 415 unless its type is application/json.
nlohmann::json json_body(const http::Request& req);

// A handler that answers with JSON.
template <class F>
http::Handler guarded(F f) {
    return [f](const http::Request& req, http::Response& res) { send_json(res, f(req)); };
}

struct ServerState {
    explicit ServerState(ServerOptions o);
    // Removes the private folder of solved tables.
    ~ServerState();
    ServerState(const ServerState&) = delete;
    ServerState& operator=(const ServerState&) = delete;

    ServerOptions options;
    Folders folders;
    Catalog catalog;  // the tables, read from their files (catalog.h)
    Work work;        // work in children, behind its gates (work.h)

    // A seed for a request's own generator.
    uint64_t random();

    // The learning level's matchboxes, a learner per table, in memory while
    // the server runs, within ServerOptions::learning_bytes: past it, each
    // learner forgets its least recently used positions until they all take
    // three quarters of it. Each call takes the one lock.
    class Learners {
      public:
        explicit Learners(uint64_t cap_bytes) : cap_(cap_bytes) {}
        // The learner's move of `probe` in table `name` and the counter it drew.
        std::pair<io::ProbedMove, play::MatchboxLearner::Draw> choose(const std::string& name,
                                                                      const io::ProbeResult& probe,
                                                                      std::mt19937_64& rng);
        // Learns from a game's draws; returns the positions the learner knows.
        size_t learn(const std::string& name, const std::vector<play::MatchboxLearner::Draw>& draws,
                     bool won);

        uint64_t bytes();  // what they take now

      private:
        play::MatchboxLearner& learner(const std::string& name);
        void within_cap();

        const uint64_t cap_;
        std::mutex mutex_;
        std::map<std::string, play::MatchboxLearner> learners_;
    } learners;

    Jobs jobs;

  private:
    std::mutex rng_mutex_;
    std::mt19937_64 rng_;
};

// The HTTP status of a failure of `kind`: 400 for a request that is wrong
// or too large, 404 for a file not there, 503 for a server out of memory
// or stopping, 500 otherwise.
int status_of(service::ErrorKind kind);

// The answer of a handler's exception: 4xx for the client's mistakes
// (with the message), 503 for a server at its limits, 500 otherwise; no
// message names a path of the server.
void answer_exception(const ServerState& state, std::exception_ptr e, http::Response& res);

void add_table_routes(http::Server& http, ServerState& state);
void add_game_routes(http::Server& http, ServerState& state);
void add_research_routes(http::Server& http, ServerState& state);

}  // namespace nimtb::apps
