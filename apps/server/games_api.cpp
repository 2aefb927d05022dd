#include <algorithm>
#include <vector>

#include "apps/server/api.h"
#include "engine/game/rule_families.h"
#include "play/hint.h"
#include "play/northcott.h"
#include "play/players.h"
#include "play/session.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace service;

namespace {

// The smallest table of the folder that holds `start`, or (solve) one solved now.
std::shared_ptr<const Catalog::Table> find(ServerState& state, const engine::Rule& rule,
                                           engine::Convention c, const engine::Heaps& start) {
    return state.catalog.smallest(rule.canonical(), c,
                                  [&](const engine::Universe& u) { return u.holds(start); });
}

// The table of the game that holds `start`: the smallest of the folder, or
// with `solve` (a POST) one solved now; else HttpError 404 `missing` (422
// naming the solve to run when the server would not solve it either).
std::string table_for(ServerState& state, const http::Request& req, const engine::Rule& rule,
                      engine::Convention c, const engine::Heaps& start, bool solve,
                      const std::string& missing) {
    if (const auto t = find(state, rule, c, start)) return t->name;
    const engine::Universe u = smallest_universe(rule, start);
    if (!solve) {
        state.work.solvable(rule, c, u);
        throw HttpError(404, missing);
    }
    return state.work.solve(
        rule, c, u, [&req] { return req.cancelled(); }, nullptr);
}

// The table of a game from a start (position) or a named layout (classic,
// random, ...), and the start: found in the folder, or with `solve` solved now.
json find_game(ServerState& state, const http::Request& req, const std::string& rules,
               const std::string& convention_text, const std::optional<std::string>& position,
               const std::string& layout, bool solve) {
    const engine::Rule rule = engine::Rule::parse(rules);
    const engine::Convention convention = engine::parse_convention(convention_text);
    std::mt19937_64 rng(state.random());
    const engine::Heaps need =
        position ? engine::parse_heaps(*position) : play::layout_needs(layout, rule, rng);
    const std::string name =
        table_for(state, req, rule, convention, need, solve,
                  "no table in the folder holds this game; POST /api/find solves it");
    const auto t = state.catalog.table(name);
    const engine::Heaps start = layout == "random" ? play::random_start(*t->universe, rng) : need;
    return json{{"table", name}, {"start", heaps_json(start)}, {"info", t->info}};
}

// Northcott's game: a move checked, and the computer's reply from the Nim
// table of the gaps — found in the folder, or with `solve` (a POST) solved now.
json northcott(ServerState& state, const http::Request& req, bool solve) {
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
    auto board_json = [](const NorthcottBoard& b) {
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
    j["after_move"] = board_json(board);
    if (req.has_param("reply")) {
        // The computer's answer for one side, from the Nim table of the gaps.
        const Piece side = piece_param("reply");
        const play::Level level =
            play::parse_level(req.has_param("level") ? param(req, "level") : "perfect");
        if (level == play::Level::learning)
            throw HttpError(400, "the learning level plays heap games only");
        // The Nim table of the gaps (a few thousand positions at most:
        // Northcott's boards are small).
        const std::string table =
            table_for(state, req, engine::Rule::parse("nim"), engine::Convention::normal,
                      engine::Heaps(board.rows().size(), board.width() - 2), solve,
                      "no Nim table in the folder holds this board; POST /api/northcott solves it");
        const auto player = play::make_table_player(level, engine::Convention::normal);
        std::mt19937_64 rng(state.random());
        const auto m = state.catalog.with_prober(table, [&](io::Prober& p) {
            return play::computer_move(board, side, *player, p, rng);
        });
        if (m) {
            board.move(m->row, side, m->to);
            j["reply"] = {{"row", m->row + 1},
                          {"from", m->from + 1},
                          {"to", m->to + 1},
                          {"closes", m->closes}};
        } else {
            j["reply"] = nullptr;  // that side cannot move: it has lost
        }
        j["table"] = table;
        j["after_reply"] = board_json(board);
    }
    return j;
}

}  // namespace

// Playing: hints, the computer's moves, the learner, a game's table, Northcott's game.
void add_game_routes(http::Server& http, ServerState& state) {
    // The rule families and the rules worth naming, from the one table that
    // the command's help and play's help read too.
    http.route("GET", "/api/rules", guarded([](const http::Request&) {
                   json families = json::array(), named = json::array();
                   for (const engine::RuleFamily& f : engine::rule_families())
                       families.push_back({{"syntax", f.syntax}, {"moves", f.moves}});
                   for (const engine::NamedRule& r : engine::named_rules())
                       named.push_back({{"text", r.text}, {"name", r.name}});
                   return json{{"families", families}, {"named", named}};
               }));
    http.route("GET", "/api/hint", guarded([&state](const http::Request& req) {
                   const engine::Heaps heaps = position_param(req);
                   return state.catalog.with_prober(param(req, "table"), [&](io::Prober& p) {
                       const io::ProbeResult r = p.probe(heaps);
                       if (r.moves.empty())
                           throw HttpError(400, "no move is left: the game is over");
                       return json{{"text", play::hint(p, r)}};
                   });
               }));
    http.route("GET", "/api/move", guarded([&state](const http::Request& req) {
                   const engine::Heaps heaps = position_param(req);
                   const play::Level level = play::parse_level(param(req, "level"));
                   const std::string name = param(req, "table");
                   const io::ProbeResult r = state.catalog.with_prober(
                       name, [&](io::Prober& p) { return p.probe(heaps); });
                   if (r.moves.empty()) throw HttpError(400, "no move is left: the game is over");
                   std::mt19937_64 rng(state.random());
                   if (level == play::Level::learning) {
                       const auto [m, draw] = state.learners.choose(name, r, rng);
                       return json{{"move", move_json(m)}, {"draw", {draw.first, draw.second}}};
                   }
                   const auto player =
                       play::make_table_player(level, state.catalog.table(name)->convention);
                   return json{{"move", move_json(player->choose(r, rng))}};
               }));
    http.route("POST", "/api/learn", guarded([&state](const http::Request& req) {
                   const json body = json_body(req);
                   const std::string name = body.at("table").get<std::string>();
                   const bool won = body.at("won").get<bool>();
                   // Every draw must be a move of the table's game, so the bags hold only real
                   // positions.
                   std::vector<play::MatchboxLearner::Draw> draws;
                   const auto check = [&](io::Prober& p) {
                       for (const auto& d : body.at("draws")) {
                           const std::string from = d.at(0).get<std::string>(),
                                             to = d.at(1).get<std::string>();
                           const io::ProbeResult r = p.probe(play::MatchboxLearner::heaps_of(from));
                           const bool legal =
                               std::any_of(r.moves.begin(), r.moves.end(), [&](const auto& m) {
                                   return play::MatchboxLearner::key(m.result) == to;
                               });
                           if (play::MatchboxLearner::key(r.heaps) != from || !legal) {
                               throw HttpError(400, "no move from " + from + " to " + to);
                           }
                           draws.push_back({from, to});
                       }
                   };
                   if (req.body.size() <= PLAIN_LESSON_BYTES) {
                       state.catalog.with_prober(name, check);
                   } else {
                       state.catalog.with_own_prober(name, check);
                   }
                   const size_t known = state.learners.learn(name, draws, won);
                   return json{{"learned", draws.size()}, {"positions_known", known}};
               }),
               // A game's lesson is tens of draws; a body may hold thousands, a probe each.
               [&state](const http::Request& req) {
                   return req.body.size() > PLAIN_LESSON_BYTES ? state.work.gates.learn : nullptr;
               });
    // The table of a game and its start, when the folder holds it.
    http.route("GET", "/api/find", guarded([&state](const http::Request& req) {
                   const std::string rules = param(req, "rules");
                   const std::string convention = param(req, "convention");
                   const bool by_layout = !req.has_param("position");
                   return find_game(
                       state, req, rules, convention,
                       by_layout ? std::nullopt : std::optional(param(req, "position")),
                       by_layout ? param(req, "layout") : "", false);
               }));
    // The same, solving the table now when it is small.
    http.route("POST", "/api/find", guarded([&state](const http::Request& req) {
                   const json body = json_body(req);
                   const bool by_layout = !body.contains("position");
                   return find_game(state, req, body.at("rules").get<std::string>(),
                                    body.at("convention").get<std::string>(),
                                    by_layout
                                        ? std::nullopt
                                        : std::optional(body.at("position").get<std::string>()),
                                    by_layout ? body.at("layout").get<std::string>() : "", true);
               }),
               state.work.gates.find);
    http.route("GET", "/api/northcott", guarded([&state](const http::Request& req) {
                   return northcott(state, req, false);
               }));
    // The same, its parameters in a JSON object, solving the Nim table when the folder has none.
    http.route("POST", "/api/northcott", guarded([&state](const http::Request& req) {
                   http::Request asked = req;
                   asked.params.clear();
                   const json body = json_body(req);
                   for (const auto& [key, value] : body.items()) {
                       asked.params[key] =
                           value.is_string() ? value.get<std::string>() : value.dump();
                   }
                   return northcott(state, asked, true);
               }),
               state.work.gates.find);
}

}  // namespace nimtb::apps
