#include "apps/web_server.h"

#include <fmt/core.h>
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "apps/cli.h"
#include "apps/web_assets.h"
#include "engine/base/errors.h"
#include "engine/sequences/sequence.h"
#include "play/hint.h"
#include "play/northcott.h"
#include "play/players.h"
#include "play/session.h"
#include "service/views.h"

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Requests are small: a position, a rule, a game's draws.
constexpr size_t MAX_BODY_BYTES = 64 * 1024;
// The explorer's pictures: a plane of at most this many heap sizes a side.
constexpr uint32_t MAX_PLANE_SIDE = 2048;
// In a plane's binary answer: a cell outside the universe, a remoteness not stored.
constexpr uint32_t NO_VALUE = UINT32_MAX;
constexpr uint16_t NO_REMOTENESS = UINT16_MAX;
// Single-heap sequences the page plots: a few seconds of work at most.
constexpr uint64_t MAX_PAGE_SEQUENCE = 65'536;
// Counting reads the whole table while holding the tables' lock.
constexpr uint64_t MAX_COUNT_POSITIONS = 50'000'000;

// The hooks of a solve on the spot: the server's log (stderr) says so.
service::Hooks log_hooks() {
    service::Hooks hooks;
    hooks.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    return hooks;
}

// An answer other than 200, thrown by a handler.
struct HttpError : std::runtime_error {
    HttpError(int s, const std::string& what) : std::runtime_error(what), status(s) {}
    int status;
};

void send_json(httplib::Response& res, const json& j, int status = 200) {
    res.status = status;
    res.set_content(j.dump(), "application/json");
}

std::string param(const httplib::Request& req, const char* name) {
    if (!req.has_param(name)) throw HttpError(400, fmt::format("missing parameter '{}'", name));
    return req.get_param_value(name);
}

// Heaps in a URL: "3,4,5", "3 4 5" or empty for the empty position.
engine::Heaps position_param(const httplib::Request& req) {
    return engine::parse_heaps(param(req, "position"));
}

// The errors httplib itself answers, in words.
std::string reason(int status) {
    switch (status) {
        case 400:
            return "400 bad request";
        case 404:
            return "404 no such page or API";
        case 405:
            return "405 method not allowed here";
        case 413:
            return fmt::format("413 the request body is over {} bytes", MAX_BODY_BYTES);
        case 414:
            return "414 the URL is too long";
        default:
            return fmt::format("{} error", status);
    }
}

}  // namespace

bool is_table_name(const std::string& name) {
    const auto plain = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    };
    return name.size() > 3 && name.size() <= 200 && name.front() != '.' && name.ends_with(".h5") &&
           std::all_of(name.begin(), name.end(), plain);
}

struct WebServer::Impl {
    explicit Impl(ServerOptions o) : options(std::move(o)), rng(std::random_device{}()) {}

    // A table of the folder, opened once and reopened when its file changes.
    struct Open {
        std::unique_ptr<io::Prober> prober;
        fs::file_time_type written;
        std::optional<json> census;
    };

    ServerOptions options;
    httplib::Server http;
    int port = 0;
    // HDF5 is built without thread safety: every table access holds this.
    std::mutex tables_mutex;
    std::map<std::string, Open> open;
    std::map<std::string, play::MatchboxLearner> learners;
    std::mt19937_64 rng;

    Open& table(const std::string& name) {
        if (!is_table_name(name)) {
            throw HttpError(400, "'" + name +
                                     "' is not a table name: give a file name of the "
                                     "tables folder, like nim-normal-k3-h15.h5");
        }
        const fs::path path = fs::path(options.tables_dir) / name;
        std::error_code ec;
        const auto written = fs::last_write_time(path, ec);
        if (ec || !fs::is_regular_file(path, ec)) throw HttpError(404, "no table '" + name + "'");
        Open& t = open[name];
        if (!t.prober || t.written != written) {
            t = Open{};
            t.prober = std::make_unique<io::Prober>(path.string());
            t.written = written;
        }
        return t;
    }

    json info(Open& t, const std::string& name) {
        json j = info_json(t.prober->table());
        j["path"] = name;  // the folder stays the server's business
        return j;
    }

    void routes();
    void plane(const httplib::Request& req, httplib::Response& res);
    json northcott(const httplib::Request& req);
};

// Runs a handler's work: errors become a status and {"error": ...}.
template <class F>
void answering(httplib::Response& res, F work) {
    try {
        work();
    } catch (const HttpError& e) {
        send_json(res, {{"error", e.what()}}, e.status);
    } catch (const nimtb::InputError& e) {
        send_json(res, {{"error", e.what()}}, 400);
    } catch (const json::exception& e) {
        send_json(res, {{"error", std::string("bad JSON: ") + e.what()}}, 400);
    } catch (const std::exception& e) {
        send_json(res, {{"error", e.what()}}, 500);
    }
}

// A handler that answers with JSON.
template <class F>
httplib::Server::Handler guarded(F f) {
    return [f](const httplib::Request& req, httplib::Response& res) {
        answering(res, [&] { send_json(res, f(req)); });
    };
}

void WebServer::Impl::routes() {
    for (const WebAsset& a : WEB_ASSETS) {
        std::string path = "/";  // the page itself at the root
        if (std::string_view(a.path) != "index.html") path.append(a.path);
        http.Get(path, [a](const httplib::Request&, httplib::Response& res) {
            res.set_content(a.body.data(), a.body.size(), a.type);
        });
    }
    http.Get("/api/tables", guarded([this](const httplib::Request&) {
                 std::vector<std::string> names;
                 std::error_code ec;
                 for (const auto& e : fs::directory_iterator(options.tables_dir, ec)) {
                     const std::string n = e.path().filename().string();
                     if (is_table_name(n)) names.push_back(n);
                 }
                 std::sort(names.begin(), names.end());
                 json out = json::array();
                 std::lock_guard lock(tables_mutex);
                 for (const auto& n : names) {
                     try {
                         out.push_back(info(table(n), n));
                     } catch (const std::exception&) {
                         // Not a table nimtb can read: not listed.
                     }
                 }
                 return json{{"tables", out}};
             }));
    http.Get("/api/info", guarded([this](const httplib::Request& req) {
                 const std::string n = param(req, "table");
                 std::lock_guard lock(tables_mutex);
                 return info(table(n), n);
             }));
    http.Get("/api/query", guarded([this](const httplib::Request& req) {
                 const engine::Heaps heaps = position_param(req);
                 const bool line = req.has_param("line") && req.get_param_value("line") != "0";
                 std::lock_guard lock(tables_mutex);
                 return query_json(*table(param(req, "table")).prober, heaps, line);
             }));
    http.Get("/api/count", guarded([this](const httplib::Request& req) {
                 std::lock_guard lock(tables_mutex);
                 Open& t = table(param(req, "table"));
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
    http.Get("/api/plane", [this](const httplib::Request& req, httplib::Response& res) {
        answering(res, [&] {
            std::lock_guard lock(tables_mutex);
            plane(req, res);
        });
    });
    http.Get("/api/companion", guarded([this](const httplib::Request& req) {
                 const std::string name = param(req, "table");
                 std::lock_guard lock(tables_mutex);
                 const io::TableReader& r = table(name).prober->table();
                 const engine::Convention other = r.info().convention == engine::Convention::normal
                                                      ? engine::Convention::misere
                                                      : engine::Convention::normal;
                 std::string path;
                 try {
                     path = find_or_solve_universe(options.tables_dir, r.rule(), other,
                                                   r.universe(), log_hooks());
                 } catch (const std::runtime_error& e) {
                     throw HttpError(422, e.what());  // too big to solve now: names the solve
                 }
                 const std::string found = fs::path(path).filename().string();
                 return json{{"table", found}, {"info", info(table(found), found)}};
             }));
    http.Get("/api/sequence", guarded([](const httplib::Request& req) {
                 const engine::Rule rule = engine::Rule::parse(param(req, "rules"));
                 engine::SequenceOptions so;
                 so.until_proven = req.has_param("until_proven");
                 const std::string bound = so.until_proven ? "limit" : "max_heap";
                 uint64_t n = MAX_PAGE_SEQUENCE;
                 if (!so.until_proven || req.has_param("limit")) {
                     const engine::Heaps h = engine::parse_heaps(param(req, bound.c_str()));
                     if (h.size() != 1) throw HttpError(400, "'" + bound + "' is one heap size");
                     n = h[0];
                 }
                 if (n > MAX_PAGE_SEQUENCE) {
                     throw HttpError(422, fmt::format("the page computes sequences up to heap {}; "
                                                      "run nimtb sequence for longer ones",
                                                      MAX_PAGE_SEQUENCE));
                 }
                 return sequence_json(rule, engine::long_sequence(rule, n, so));
             }));
    http.Get("/api/hint", guarded([this](const httplib::Request& req) {
                 const engine::Heaps heaps = position_param(req);
                 std::lock_guard lock(tables_mutex);
                 io::Prober& p = *table(param(req, "table")).prober;
                 const io::ProbeResult r = p.probe(heaps);
                 if (r.moves.empty()) throw HttpError(400, "no move is left: the game is over");
                 return json{{"text", play::hint(p, r)}};
             }));
    http.Get(
        "/api/move", guarded([this](const httplib::Request& req) {
            const engine::Heaps heaps = position_param(req);
            const play::Level level = play::parse_level(param(req, "level"));
            const std::string name = param(req, "table");
            std::lock_guard lock(tables_mutex);
            io::Prober& p = *table(name).prober;
            const io::ProbeResult r = p.probe(heaps);
            if (r.moves.empty()) throw HttpError(400, "no move is left: the game is over");
            if (level == play::Level::learning) {
                auto& learner = learners.try_emplace(name, "").first->second;
                const io::ProbedMove& m = learner.choose(r, rng);
                const auto draws = learner.take_draws();
                return json{{"move", move_json(m)}, {"draw", {draws[0].first, draws[0].second}}};
            }
            const auto player = play::make_table_player(level, p.table().info().convention);
            return json{{"move", move_json(player->choose(r, rng))}};
        }));
    http.Post(
        "/api/learn", guarded([this](const httplib::Request& req) {
            const json body = json::parse(req.body);
            const std::string name = body.at("table").get<std::string>();
            const bool won = body.at("won").get<bool>();
            std::lock_guard lock(tables_mutex);
            io::Prober& p = *table(name).prober;
            // Every draw must be a move of the table's game, so the bags hold only real positions.
            std::vector<play::MatchboxLearner::Draw> draws;
            for (const auto& d : body.at("draws")) {
                const std::string from = d.at(0).get<std::string>(),
                                  to = d.at(1).get<std::string>();
                const io::ProbeResult r = p.probe(play::MatchboxLearner::heaps_of(from));
                const bool legal = std::any_of(r.moves.begin(), r.moves.end(), [&](const auto& m) {
                    return play::MatchboxLearner::key(m.result) == to;
                });
                if (play::MatchboxLearner::key(r.heaps) != from || !legal) {
                    throw HttpError(400, "no move from " + from + " to " + to);
                }
                draws.push_back({from, to});
            }
            auto& learner = learners.try_emplace(name, "").first->second;
            learner.learn(draws, won);
            return json{{"learned", draws.size()}, {"positions_known", learner.positions_known()}};
        }));
    http.Get(
        "/api/find", guarded([this](const httplib::Request& req) {
            // The table of a game from a start (position=P) or a named layout
            // (layout=classic|random|...), found in the folder or solved now if small.
            const engine::Rule rule = engine::Rule::parse(param(req, "rules"));
            const engine::Convention convention =
                engine::parse_convention(param(req, "convention"));
            const bool by_layout = !req.has_param("position");
            const std::string layout = by_layout ? param(req, "layout") : "";
            std::lock_guard lock(tables_mutex);
            const engine::Heaps need =
                by_layout ? play::layout_needs(layout, rule, rng) : position_param(req);
            std::string path;
            try {
                path = find_or_solve_table(options.tables_dir, rule, convention, need, log_hooks());
            } catch (const std::runtime_error& e) {
                throw HttpError(422,
                                e.what());  // too big to solve now: the message names the solve
            }
            const std::string name = fs::path(path).filename().string();
            Open& t = table(name);
            const engine::Heaps start =
                layout == "random" ? play::random_start(t.prober->universe(), rng) : need;
            return json{{"table", name}, {"start", heaps_json(start)}, {"info", info(t, name)}};
        }));
    http.Get("/api/northcott",
             guarded([this](const httplib::Request& req) { return northcott(req); }));

    // Anything that ends in an error without a body of ours (404 for an
    // unknown path, 413 for a body too big, 414 for a URL too long) gets one.
    http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty() || res.get_header_value("Content-Type") != "application/json") {
            send_json(res, {{"error", reason(res.status)}}, res.status);
        }
    });
    http.set_payload_max_length(MAX_BODY_BYTES);
    // Answers are small: send them at once rather than wait for the client's acknowledgement.
    http.set_tcp_nodelay(true);
    // httplib's default, SO_REUSEPORT, would let a second server share a port
    // in use; SO_REUSEADDR alone still lets a server restart at once.
    http.set_socket_options([](int sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
}

// A picture's data: every position a b c... of two heaps a (rows) and b
// (columns) from 0, the other heaps fixed at `others`. The body is binary,
// little-endian: rows x cols values (uint32, NO_VALUE outside the universe),
// then rows x cols remoteness (uint16, NO_REMOTENESS when not stored); the
// headers X-Rows and X-Cols give its shape, X-Clipped says the universe
// goes on beyond it.
void WebServer::Impl::plane(const httplib::Request& req, httplib::Response& res) {
    io::TableReader& r = table(param(req, "table")).prober->table();
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

json WebServer::Impl::northcott(const httplib::Request& req) {
    using play::NorthcottBoard, play::Piece;
    NorthcottBoard board = NorthcottBoard::parse(param(req, "board"));
    auto piece_param = [&](const char* name) {
        const std::string p = param(req, name);
        if (p != "x" && p != "o") throw HttpError(400, fmt::format("'{}' is x or o", name));
        return p == "x" ? Piece::x : Piece::o;
    };
    json j;
    if (req.has_param("row")) {
        // A person's move: the piece of `piece` in `row` (1-based) to column `to` (1-based).
        const engine::Heaps rt = engine::parse_heaps(param(req, "row") + " " + param(req, "to"));
        if (rt.size() != 2 || !rt[0] || !rt[1]) throw HttpError(400, "row and to count from 1");
        board.move(rt[0] - 1, piece_param("piece"), rt[1] - 1);
    }
    auto state = [](const NorthcottBoard& b) {
        const engine::Heaps gaps = b.gaps();
        uint32_t x = 0;
        for (uint32_t g : gaps) x ^= g;
        json rows = json::array();
        for (const auto& r : b.rows()) rows.push_back({{"x", r.x + 1}, {"o", r.o + 1}});
        return json{{"board", b.text()},
                    {"rows", rows},
                    {"gaps", heaps_json(gaps)},
                    {"xor", x},
                    {"x_can_move", b.can_move(Piece::x)},
                    {"o_can_move", b.can_move(Piece::o)}};
    };
    j["after_move"] = state(board);
    if (req.has_param("reply")) {
        // The computer's answer for one side, from the Nim table of the gaps.
        const Piece side = piece_param("reply");
        const play::Level level =
            play::parse_level(req.has_param("level") ? req.get_param_value("level") : "perfect");
        if (level == play::Level::learning)
            throw HttpError(400, "the learning level plays heap games only");
        std::lock_guard lock(tables_mutex);
        const std::string path = find_or_solve_table(
            options.tables_dir, engine::Rule::parse("nim"), engine::Convention::normal,
            engine::Heaps(board.rows().size(), board.width() - 2), log_hooks());
        Open& t = table(fs::path(path).filename().string());
        const auto player = play::make_table_player(level, engine::Convention::normal);
        const auto m = play::computer_move(board, side, *player, *t.prober, rng);
        if (m) {
            board.move(m->row, side, m->to);
            j["reply"] = {{"row", m->row + 1},
                          {"from", m->from + 1},
                          {"to", m->to + 1},
                          {"closes", m->closes}};
        } else {
            j["reply"] = nullptr;  // that side cannot move: it has lost
        }
        j["table"] = fs::path(path).filename().string();
        j["after_reply"] = state(board);
    }
    return j;
}

WebServer::WebServer(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
    impl_->routes();
}

WebServer::~WebServer() = default;

int WebServer::bind() {
    Impl& i = *impl_;
    i.port = i.options.port == 0
                 ? i.http.bind_to_any_port(i.options.host)
                 : (i.http.bind_to_port(i.options.host, i.options.port) ? i.options.port : -1);
    if (i.port <= 0) {
        throw std::runtime_error(
            fmt::format("cannot listen on {}:{} (in use, or not an address "
                        "of this machine)",
                        i.options.host, i.options.port));
    }
    return i.port;
}

void WebServer::serve() {
    impl_->http.listen_after_bind();
}

void WebServer::stop() {
    impl_->http.stop();
}

}  // namespace nimtb::apps
