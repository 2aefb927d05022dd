#include <algorithm>
#include <cstring>
#include <vector>

#include "apps/server/api.h"
#include "service/dump.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace service;

namespace {

// A picture's data: every position a b c... of two heaps a (rows) and b
// (columns) from 0, the other heaps fixed at `others`. The body is binary,
// little-endian: rows x cols values (uint32, NO_VALUE outside the universe),
// then rows x cols remoteness (uint16, NO_REMOTENESS when not stored); the
// headers X-Rows and X-Cols give its shape, X-Clipped says the universe
// goes on beyond it.
void plane(io::Prober& prober, const http::Request& req, http::Response& res) {
    io::TableReader& r = prober.table();
    const engine::Universe& u = r.universe();
    if (u.max_heaps() < 2) throw HttpError(400, "the table holds one heap: there is no plane");
    const engine::Heaps others =
        req.has_param("others") ? engine::parse_heaps(param(req, "others")) : engine::Heaps{};
    if (others.size() > u.max_heaps() - 2) {
        throw HttpError(400, fmt::format("a plane of a table of {} heaps fixes at most {} others",
                                         u.max_heaps(), u.max_heaps() - 2));
    }
    u.normalise(others);  // a clear error when the others alone are beyond the table
    uint64_t fixed_total = 0;
    engine::Heaps fixed;
    for (uint32_t c : others) {
        fixed_total += c;
        if (c) fixed.push_back(c);
    }
    // The heap sizes a or b can take with the others as they are.
    const uint64_t extent =
        u.is_box() ? uint64_t{u.max_heap_size()} + 1 : uint64_t{u.max_total()} - fixed_total + 1;
    const uint32_t side = static_cast<uint32_t>(std::min<uint64_t>(extent, MAX_PLANE_SIDE));
    const size_t cells = size_t{side} * side;
    std::vector<uint64_t> ranks;
    std::vector<uint32_t> where;  // the cell of each rank
    ranks.reserve(cells);
    where.reserve(cells);
    engine::Heaps h(u.max_heaps());
    for (uint32_t a = 0; a < side; ++a) {
        for (uint32_t b = 0; b < side; ++b) {
            // The universe's limits checked here, not by normalise(), whose
            // exception for each cell beyond a total would cost seconds.
            const size_t nonzero = fixed.size() + (a != 0) + (b != 0);
            if (nonzero > u.max_heaps() || (!u.is_box() && a + b + fixed_total > u.max_total()))
                continue;  // outside the universe: NO_VALUE
            std::fill(h.begin(), h.end(), 0);
            std::copy(fixed.begin(), fixed.end(), h.begin());
            h[fixed.size()] = a;
            h[fixed.size() + 1] = b;
            std::sort(h.begin(), h.end());
            ranks.push_back(u.rank(h));
            where.push_back(a * side + b);
        }
    }
    const bool rem = r.has_remoteness();
    std::vector<uint32_t> found_values(ranks.size()), found_remoteness(rem ? ranks.size() : 0);
    r.look_up(ranks, found_values, found_remoteness);
    std::vector<uint32_t> values(cells, NO_VALUE);
    std::vector<uint16_t> remoteness(cells, NO_REMOTENESS);
    for (size_t i = 0; i < ranks.size(); ++i) {
        values[where[i]] = found_values[i];
        if (rem) remoteness[where[i]] = static_cast<uint16_t>(found_remoteness[i]);
    }
    std::string body(cells * (sizeof(uint32_t) + sizeof(uint16_t)), '\0');
    std::memcpy(body.data(), values.data(), cells * sizeof(uint32_t));
    std::memcpy(body.data() + cells * sizeof(uint32_t), remoteness.data(),
                cells * sizeof(uint16_t));
    res.set_header("X-Rows", std::to_string(side));
    res.set_header("X-Cols", std::to_string(side));
    res.set_header("X-Clipped", extent > side ? "1" : "0");
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
    http.route("GET", "/api/query", guarded([&state](const http::Request& req) {
                   const engine::Heaps heaps = position_param(req);
                   const bool line = req.has_param("line") && param(req, "line") != "0";
                   return state.catalog.with_prober(param(req, "table"), [&](io::Prober& p) {
                       return query_json(p, heaps, line);
                   });
               }));
    http.route("GET", "/api/count", guarded([&state](const http::Request& req) {
                   return state.census(req, param(req, "table"));
               }),
               state.gates.count);
    http.route(
        "GET", "/api/plane",
        [&state](const http::Request& req, http::Response& res) {
            state.catalog.with_prober(param(req, "table"),
                                      [&](io::Prober& p) { plane(p, req, res); });
        },
        state.gates.plane);
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
                state.run(req, "dump", service::to_json(request), state.options.job_time,
                          "writing this table as CSV takes longer than the server allows; run "
                          "nimtb dump --csv",
                          [&sink](std::string_view piece) { sink.write(piece); });
            };
        },
        state.gates.dump);
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
                   state.solvable(c.rule, c.convention, u);
                   const std::string key = service::default_table_path(c.rule, c.convention, u);
                   const std::string job = state.jobs.start(
                       key, u.size(),
                       [&state, c](const std::function<bool()>& cancelled,
                                   const std::function<void(double)>& progress) {
                           const std::string name =
                               state.solve(c.rule, c.convention, *c.universe, cancelled, progress);
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
