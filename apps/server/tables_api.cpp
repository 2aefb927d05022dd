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
void plane(ServerState& state, const httplib::Request& req, httplib::Response& res) {
    io::TableReader& r = state.table(param(req, "table")).prober->table();
    const engine::Universe& u = r.universe();
    if (u.max_heaps() < 2) throw HttpError(400, "the table holds one heap: there is no plane");
    const engine::Heaps others = req.has_param("others")
                                     ? engine::parse_heaps(req.get_param_value("others"))
                                     : engine::Heaps{};
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
    res.set_content(std::move(body), "application/octet-stream");
}

}  // namespace

// The tables of the folder: what they hold, answers, counts, pictures, the other convention.
void add_table_routes(httplib::Server& http, ServerState& state) {
    http.Get("/api/tables", guarded([&state](const httplib::Request&) {
                 std::vector<std::string> names;
                 std::error_code ec;
                 for (const auto& e : fs::directory_iterator(state.options.tables_dir, ec)) {
                     const std::string n = e.path().filename().string();
                     if (is_table_name(n)) names.push_back(n);
                 }
                 std::sort(names.begin(), names.end());
                 json out = json::array();
                 std::lock_guard lock(state.tables_mutex);
                 for (const auto& n : names) {
                     try {
                         out.push_back(state.info(state.table(n), n));
                     } catch (const std::exception&) {
                         // Not a table nimtb can read: not listed.
                     }
                 }
                 return json{{"tables", out}};
             }));
    http.Get("/api/info", guarded([&state](const httplib::Request& req) {
                 const std::string n = param(req, "table");
                 std::lock_guard lock(state.tables_mutex);
                 return state.info(state.table(n), n);
             }));
    http.Get("/api/query", guarded([&state](const httplib::Request& req) {
                 const engine::Heaps heaps = position_param(req);
                 const bool line = req.has_param("line") && req.get_param_value("line") != "0";
                 std::lock_guard lock(state.tables_mutex);
                 return query_json(*state.table(param(req, "table")).prober, heaps, line);
             }));
    http.Get("/api/count", guarded([&state](const httplib::Request& req) {
                 std::lock_guard lock(state.tables_mutex);
                 ServerState::Open& t = state.table(param(req, "table"));
                 if (!t.census) {
                     io::TableReader& r = t.prober->table();
                     if (r.info().positions > MAX_COUNT_POSITIONS) {
                         throw HttpError(422,
                                         fmt::format("the table has {} positions, more than the "
                                                     "server counts ({}); run nimtb dump --count",
                                                     r.info().positions, MAX_COUNT_POSITIONS));
                     }
                     t.census = census_json(r, count_table(r));
                 }
                 return *t.census;
             }));
    http.Get("/api/plane", [&state](const httplib::Request& req, httplib::Response& res) {
        answering(res, [&] {
            std::lock_guard lock(state.tables_mutex);
            plane(state, req, res);
        });
    });
    // The table as `nimtb dump --csv` writes it, byte for byte (service/dump.h).
    http.Get("/api/dump", [&state](const httplib::Request& req, httplib::Response& res) {
        answering(res, [&] {
            const std::string name = param(req, "table");
            std::lock_guard lock(state.tables_mutex);
            io::Prober& prober = *state.table(name).prober;
            if (prober.table().info().positions > MAX_COUNT_POSITIONS) {
                throw HttpError(422,
                                fmt::format("the table has {} positions, more than the server "
                                            "writes as CSV ({}); run nimtb dump --csv",
                                            prober.table().info().positions, MAX_COUNT_POSITIONS));
            }
            std::string body;
            dump_rows(prober, DumpOptions{false, std::nullopt, true},
                      [&body](std::string_view text) { body += text; });
            res.set_header("Content-Disposition",
                           "attachment; filename=\"" + fs::path(name).stem().string() + ".csv\"");
            res.set_content(body, "text/csv; charset=utf-8");
        });
    });
    // The table of the other convention: found at once, or a job solving it
    // ({"job": id}, followed with /api/job and stopped with /api/job/cancel).
    http.Get("/api/companion", guarded([&state](const httplib::Request& req) {
                 const std::string name = param(req, "table");
                 std::lock_guard lock(state.tables_mutex);
                 const io::TableReader& r = state.table(name).prober->table();
                 const engine::Convention other = r.info().convention == engine::Convention::normal
                                                      ? engine::Convention::misere
                                                      : engine::Convention::normal;
                 const engine::Rule rule = r.rule();
                 const engine::Universe universe = r.universe();
                 const std::string dir = state.options.tables_dir;
                 const std::string path = find_universe(dir, rule, other, universe, log_hooks());
                 if (!path.empty()) {
                     const std::string found = fs::path(path).filename().string();
                     return json{{"table", found}, {"info", state.info(state.table(found), found)}};
                 }
                 const std::string key = default_table_path(rule, other, universe);
                 const std::string job = state.jobs.start(key, [&state, dir, rule, other, universe](
                                                                   const service::Hooks& hooks) {
                     // HDF5 is not thread-safe: the solve holds the tables' lock.
                     // Too big to solve now: the job's error names the solve to run.
                     std::lock_guard solve_lock(state.tables_mutex);
                     const std::string solved =
                         find_or_solve_universe(dir, rule, other, universe, hooks);
                     const std::string found = fs::path(solved).filename().string();
                     return json{{"table", found}, {"info", state.info(state.table(found), found)}};
                 });
                 return json{{"job", job}, {"positions", universe.size()}};
             }));
    http.Get("/api/job", guarded([&state](const httplib::Request& req) {
                 return state.jobs.status(param(req, "id"));
             }));
    http.Get("/api/job/cancel", guarded([&state](const httplib::Request& req) {
                 state.jobs.cancel(param(req, "id"));
                 return state.jobs.status(param(req, "id"));
             }));
}

}  // namespace nimtb::apps
