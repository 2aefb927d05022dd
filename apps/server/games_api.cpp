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

json northcott(ServerState& state, const httplib::Request& req) {
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
            play::parse_level(req.has_param("level") ? req.get_param_value("level") : "perfect");
        if (level == play::Level::learning)
            throw HttpError(400, "the learning level plays heap games only");
        std::lock_guard lock(state.tables_mutex);
        const std::string path = find_or_solve_table(
            state.options.tables_dir, engine::Rule::parse("nim"), engine::Convention::normal,
            engine::Heaps(board.rows().size(), board.width() - 2), log_hooks());
        ServerState::Open& t = state.table(fs::path(path).filename().string());
        const auto player = play::make_table_player(level, engine::Convention::normal);
        const auto m = play::computer_move(board, side, *player, *t.prober, state.rng);
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
        j["after_reply"] = board_json(board);
    }
    return j;
}

}  // namespace

// Playing: hints, the computer's moves, the learner, a game's table, Northcott's game.
void add_game_routes(httplib::Server& http, ServerState& state) {
    // The rule families and the rules worth naming, from the one table that
    // the command's help and play's help read too.
    http.Get("/api/rules", guarded([](const httplib::Request&) {
                 json families = json::array(), named = json::array();
                 for (const engine::RuleFamily& f : engine::rule_families())
                     families.push_back({{"syntax", f.syntax}, {"moves", f.moves}});
                 for (const engine::NamedRule& r : engine::named_rules())
                     named.push_back({{"text", r.text}, {"name", r.name}});
                 return json{{"families", families}, {"named", named}};
             }));
    http.Get("/api/hint", guarded([&state](const httplib::Request& req) {
                 const engine::Heaps heaps = position_param(req);
                 std::lock_guard lock(state.tables_mutex);
                 io::Prober& p = *state.table(param(req, "table")).prober;
                 const io::ProbeResult r = p.probe(heaps);
                 if (r.moves.empty()) throw HttpError(400, "no move is left: the game is over");
                 return json{{"text", play::hint(p, r)}};
             }));
    http.Get("/api/move", guarded([&state](const httplib::Request& req) {
                 const engine::Heaps heaps = position_param(req);
                 const play::Level level = play::parse_level(param(req, "level"));
                 const std::string name = param(req, "table");
                 std::lock_guard lock(state.tables_mutex);
                 io::Prober& p = *state.table(name).prober;
                 const io::ProbeResult r = p.probe(heaps);
                 if (r.moves.empty()) throw HttpError(400, "no move is left: the game is over");
                 if (level == play::Level::learning) {
                     auto& learner = state.learners.try_emplace(name, "").first->second;
                     const io::ProbedMove& m = learner.choose(r, state.rng);
                     const auto draws = learner.take_draws();
                     return json{{"move", move_json(m, r.heaps)},
                                 {"draw", {draws[0].first, draws[0].second}}};
                 }
                 const auto player = play::make_table_player(level, p.table().info().convention);
                 return json{{"move", move_json(player->choose(r, state.rng), r.heaps)}};
             }));
    http.Post(
        "/api/learn", guarded([&state](const httplib::Request& req) {
            const json body = json::parse(req.body);
            const std::string name = body.at("table").get<std::string>();
            const bool won = body.at("won").get<bool>();
            std::lock_guard lock(state.tables_mutex);
            io::Prober& p = *state.table(name).prober;
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
            auto& learner = state.learners.try_emplace(name, "").first->second;
            learner.learn(draws, won);
            return json{{"learned", draws.size()}, {"positions_known", learner.positions_known()}};
        }));
    http.Get(
        "/api/find", guarded([&state](const httplib::Request& req) {
            // The table of a game from a start (position=P) or a named layout
            // (layout=classic|random|...), found in the folder or solved now if small.
            const engine::Rule rule = engine::Rule::parse(param(req, "rules"));
            const engine::Convention convention =
                engine::parse_convention(param(req, "convention"));
            const bool by_layout = !req.has_param("position");
            const std::string layout = by_layout ? param(req, "layout") : "";
            std::lock_guard lock(state.tables_mutex);
            const engine::Heaps need =
                by_layout ? play::layout_needs(layout, rule, state.rng) : position_param(req);
            std::string path;
            try {
                path = find_or_solve_table(state.options.tables_dir, rule, convention, need,
                                           log_hooks());
            } catch (const std::runtime_error& e) {
                throw HttpError(422,
                                e.what());  // too big to solve now: the message names the solve
            }
            const std::string name = fs::path(path).filename().string();
            ServerState::Open& t = state.table(name);
            const engine::Heaps start =
                layout == "random" ? play::random_start(t.prober->universe(), state.rng) : need;
            return json{
                {"table", name}, {"start", heaps_json(start)}, {"info", state.info(t, name)}};
        }));
    http.Get("/api/northcott",
             guarded([&state](const httplib::Request& req) { return northcott(state, req); }));
}

}  // namespace nimtb::apps
