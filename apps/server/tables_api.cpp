#include <algorithm>
#include <cstring>
#include <vector>

#include "apps/server/api.h"
#include "service/dump.h"
#include "service/plane.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace service;

namespace {

// A picture's data (service/plane.h), binary and little-endian: rows x
// cols values (uint32, NO_VALUE outside the universe), then rows x cols
// remoteness (uint16, NO_REMOTENESS when not stored); the headers X-Rows
// and X-Cols give its shape, X-Clipped says the universe goes on beyond it.
void plane(io::Prober& prober, const http::Request& req, http::Response& res) {
    const engine::Heaps others =
        req.has_param("others") ? engine::parse_heaps(param(req, "others")) : engine::Heaps{};
    const Plane p = plane_of(prober.table(), others, MAX_PLANE_SIDE);
    const size_t cells = p.values.size();
    std::string body(cells * (sizeof(uint32_t) + sizeof(uint16_t)), '\0');
    std::memcpy(body.data(), p.values.data(), cells * sizeof(uint32_t));
    std::memcpy(body.data() + cells * sizeof(uint32_t), p.remoteness.data(),
                cells * sizeof(uint16_t));
    res.set_header("X-Rows", std::to_string(p.side));
    res.set_header("X-Cols", std::to_string(p.side));
    res.set_header("X-Clipped", p.clipped ? "1" : "0");
    res.content_type = "application/octet-stream";
    res.body = std::move(body);
}

// The other convention's table of `name`'s game and universe: its rule,
// convention and universe.
struct Companion {
    engine::Rule rule = engine::Rule::nim();
    engine::Convention convention = engine::Convention::normal;
    std::shared_ptr<const engine::Universe> universe;
    std::shared_ptr<const Catalog::Table> found;
};

Companion companion(ServerState& state, const std::string& name) {
    const auto t = state.catalog.table(name);
    Companion c;
    c.rule = engine::Rule::parse(t->rules);
    c.convention = t->convention == engine::Convention::normal ? engine::Convention::misere
                                                               : engine::Convention::normal;
    c.universe = t->universe;
    const std::string description = t->universe->describe();
    c.found = state.catalog.smallest(t->rules, c.convention, [&](const engine::Universe& u) {
        return u.describe() == description;
    });
    return c;
}

json found_json(ServerState& state, const std::string& name) {
    return json{{"table", name}, {"info", state.catalog.table(name)->info}};
}

}  // namespace

// The tables of the folder: what they hold, answers, counts, pictures, the other convention.
void add_table_routes(http::Server& http, ServerState& state) {
    http.route("GET", "/api/tables", guarded([&state](const http::Request&) {
                   json out = json::array();
                   for (const auto& t : state.catalog.tables()) out.push_back(t->info);
                   return json{{"tables", out}};
               }));
    http.route("GET", "/api/info", guarded([&state](const http::Request& req) {
                   return state.catalog.table(param(req, "table"))->info;
               }));
    // A line probes each position of the game to its end: about as many
    // positions as tokens, each with about as many moves. Decided from the
    // URL alone, before any work: a costly line runs as gated work.
    const auto long_line = [](const http::Request& req) {
        const auto line = req.params.find("line");
        if (line == req.params.end() || line->second == "0") return false;
        try {
            uint64_t tokens = 1;
            for (uint32_t h : position_param(req)) tokens += h;
            return tokens * tokens > PLAIN_LINE_PROBES;
        } catch (const std::exception&) {
            return false;  // the handler words what is wrong with it
        }
    };
    http.route("GET", "/api/query", guarded([&state, long_line](const http::Request& req) {
                   const engine::Heaps heaps = position_param(req);
                   const bool line = req.has_param("line") && param(req, "line") != "0";
                   const auto query = [&](io::Prober& p) { return query_json(p, heaps, line); };
                   return long_line(req) ? state.catalog.with_own_prober(param(req, "table"), query)
                                         : state.catalog.with_prober(param(req, "table"), query);
               }),
               [&state, long_line](const http::Request& req) {
                   return long_line(req) ? state.work.gates.line : nullptr;
               });
    http.route("GET", "/api/count", guarded([&state](const http::Request& req) {
                   return state.work.census(req, param(req, "table"));
               }),
               state.work.gates.count);
    http.route("GET", "/api/plane", [&state](const http::Request& req, http::Response& res) {
        const std::string name = param(req, "table");
        const auto t = state.catalog.table(name);
        const uint64_t side =
            std::min<uint64_t>(MAX_PLANE_SIDE, uint64_t{t->universe->max_heap_size()} + 1);
        if (side * side <= PLAIN_PLANE_CELLS) {
            return state.catalog.with_prober(name, [&](io::Prober& p) { plane(p, req, res); });
        }
        // A big picture: its place kept until the client has taken it.
        res.held = Work::admit(*state.work.gates.plane);
        state.catalog.with_own_prober(name, [&](io::Prober& p) { plane(p, req, res); });
    });
    // The table as `nimtb dump --csv` writes it, byte for byte, streamed
    // from a child as it writes it.
    http.route(
        "GET", "/api/dump",
        [&state](const http::Request& req, http::Response& res) {
            const std::string name = param(req, "table");
            const auto t = state.catalog.table(name);
            if (t->positions > MAX_DUMP_POSITIONS) {
                throw HttpError(422, fmt::format("the table has {} positions, more than the server "
                                                 "writes as CSV ({}); run nimtb dump --csv",
                                                 t->positions, MAX_DUMP_POSITIONS));
            }
            res.content_type = "text/csv; charset=utf-8";
            res.set_header("Content-Disposition",
                           "attachment; filename=\"" + fs::path(name).stem().string() + ".csv\"");
            res.stream = [&state, &req, path = t->path](http::Sink& sink) {
                service::DumpRequest request;
                request.table = path;
                request.rows.csv = true;
                state.work.run(req, "dump", service::to_json(request), state.options.job_time,
                               "writing this table as CSV takes longer than the server allows; run "
                               "nimtb dump --csv",
                               [&sink](std::string_view piece) { sink.write(piece); });
            };
        },
        state.work.gates.dump);
    // The table of the other convention, when the folder holds it.
    http.route("GET", "/api/companion", guarded([&state](const http::Request& req) {
                   const Companion c = companion(state, param(req, "table"));
                   if (!c.found) {
                       throw HttpError(404,
                                       "the folder holds no table of the other convention "
                                       "for this one; POST /api/companion solves it");
                   }
                   return found_json(state, c.found->name);
               }));
    // The same, or a job solving it ({"job": id}, followed with /api/job
    // and stopped with POST /api/job/cancel).
    http.route("POST", "/api/companion", guarded([&state](const http::Request& req) {
                   const json body = json_body(req);
                   const Companion c = companion(state, body.at("table").get<std::string>());
                   if (c.found) return found_json(state, c.found->name);
                   const engine::Universe& u = *c.universe;
                   // Refused now, with the solve to run, rather than as a job that fails.
                   state.work.solvable(c.rule, c.convention, u);
                   const std::string key = service::default_table_path(c.rule, c.convention, u);
                   const std::string job = state.jobs.start(
                       key, u.size(),
                       [&state, c](const std::function<bool()>& cancelled,
                                   const std::function<void(double)>& progress) {
                           const std::string name = state.work.solve(
                               c.rule, c.convention, *c.universe, cancelled, progress);
                           return found_json(state, name);
                       });
                   return json{{"job", job}, {"positions", u.size()}};
               }));
    http.route("GET", "/api/job", guarded([&state](const http::Request& req) {
                   return state.jobs.status(param(req, "id"));
               }));
    http.route("POST", "/api/job/cancel", guarded([&state](const http::Request& req) {
                   const std::string id = json_body(req).at("id").get<std::string>();
                   state.jobs.cancel(id);
                   return state.jobs.status(id);
               }));
}

}  // namespace nimtb::apps
