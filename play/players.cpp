#include "play/players.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/base/errors.h"
#include "engine/base/names.h"
#include "io/codec/publish.h"

namespace nimtb::play {

namespace {
constexpr Named<Level> LEVELS[] = {{Level::perfect, "perfect"},
                                   {Level::medium, "medium"},
                                   {Level::easy, "easy"},
                                   {Level::random, "random"},
                                   {Level::learning, "learning"}};
}  // namespace

Level parse_level(std::string_view text) {
    return parse_name(LEVELS, text, "level");
}
const char* to_string(Level level) {
    return name_of(LEVELS, level);
}

double blunder_chance(Level level) {
    switch (level) {
        case Level::perfect:
            return 0.0;
        case Level::medium:
            return 0.2;
        case Level::easy:
            return 0.5;
        default:
            return 1.0;
    }
}

namespace {

size_t uniform(std::mt19937_64& rng, size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
}

class TablePlayer : public Player {
  public:
    TablePlayer(Level level, engine::Convention convention)
        : level_(level), convention_(convention) {}

    const io::ProbedMove& choose(const io::ProbeResult& probe, std::mt19937_64& rng) override {
        const auto& moves = probe.moves;
        if (level_ == Level::random) {
            // Random, except a move that ends the game with a win at once:
            // in normal play, one that leaves no move to the opponent.
            if (convention_ == engine::Convention::normal) {
                for (const auto& m : moves) {
                    if (m.winning() && m.remoteness && *m.remoteness == 0) return m;
                }
            }
            return moves[uniform(rng, moves.size())];
        }
        if (std::bernoulli_distribution(blunder_chance(level_))(rng))
            return moves[uniform(rng, moves.size())];
        return moves.front();  // the fastest win, or the slowest loss
    }

  private:
    Level level_;
    engine::Convention convention_;
};

}  // namespace

std::unique_ptr<Player> make_table_player(Level level, engine::Convention convention) {
    return std::make_unique<TablePlayer>(level, convention);
}

MatchboxLearner::MatchboxLearner(std::string path) : path_(std::move(path)) {
    if (path_.empty() || !std::filesystem::exists(path_)) return;
    std::ifstream in(path_);
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        for (const auto& [position, moves] : j.at("bags").items()) {
            Bag& b = bag(position);
            for (const auto& m : moves) {
                std::string leaves;
                if (m.contains("leaves")) {
                    leaves = m.at("leaves").get<std::string>();
                } else {
                    // Files of nimtb 0.1 name a move by heap size and amount.
                    engine::Heaps child = heaps_of(position);
                    const auto it =
                        std::find(child.begin(), child.end(), m.at("heap").get<uint32_t>());
                    if (it == child.end())
                        throw nimtb::InputError("a move from a heap not in " + position);
                    *it -= m.at("take").get<uint32_t>();
                    leaves = key(child);
                }
                counter(b, leaves, 1) = std::max<uint32_t>(1, m.at("counters").get<uint32_t>());
            }
        }
    } catch (const std::exception& e) {
        throw nimtb::TableError(path_ + ": not a learning file of nimtb (" + e.what() + ")");
    }
}

const io::ProbedMove& MatchboxLearner::choose(const io::ProbeResult& probe, std::mt19937_64& rng) {
    const std::string position = key(probe.heaps);
    Bag& b = bag(position);
    std::vector<uint32_t> weights;
    for (const auto& m : probe.moves) weights.push_back(counter(b, key(m.result), 1));
    const size_t i = std::discrete_distribution<size_t>(weights.begin(), weights.end())(rng);
    drawn_.push_back({position, key(probe.moves[i].result)});
    return probe.moves[i];
}

std::string MatchboxLearner::key(const engine::Heaps& heaps) {
    engine::Heaps sorted = heaps;
    std::sort(sorted.begin(), sorted.end());
    return engine::format_heaps(sorted);
}

engine::Heaps MatchboxLearner::heaps_of(const std::string& name) {
    return engine::parse_heaps(name == "(empty)" ? "" : name);  // format_heaps' empty position
}

void MatchboxLearner::game_over(bool won) {
    learn(take_draws(), won);
}

void MatchboxLearner::learn(const std::vector<Draw>& draws, bool won) {
    for (const auto& [position, move] : draws) {
        uint32_t& counters =
            counter(bag(position), move, 1);  // a new counter: as choose() makes it
        if (won) {
            ++counters;
        } else if (counters > 1) {
            --counters;
        }
    }
    save();
}

namespace {

// A node of std::map with its name: what one bag or one counter costs.
uint64_t node_bytes(const std::string& name) {
    constexpr uint64_t NODE = 48 + sizeof(std::string);      // links, colour, and the key
    return NODE + (name.size() > 15 ? name.size() + 1 : 0);  // past the short string's room
}

}  // namespace

MatchboxLearner::Bag& MatchboxLearner::bag(const std::string& position) {
    auto [it, fresh] = bags_.try_emplace(position);
    if (fresh) bytes_ += node_bytes(position) + sizeof(Bag);
    it->second.used = ++used_;
    return it->second;
}

uint32_t& MatchboxLearner::counter(Bag& b, const MoveKey& move, uint32_t initial) {
    auto [it, fresh] = b.counters.try_emplace(move, initial);
    if (fresh) bytes_ += node_bytes(move) + sizeof(uint32_t);
    return it->second;
}

void MatchboxLearner::forget_oldest(uint64_t keep) {
    if (bytes_ <= keep) return;
    std::vector<std::pair<uint64_t, std::map<std::string, Bag>::iterator>> by_use;
    by_use.reserve(bags_.size());
    for (auto it = bags_.begin(); it != bags_.end(); ++it) by_use.emplace_back(it->second.used, it);
    std::sort(by_use.begin(), by_use.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [used, it] : by_use) {
        if (bytes_ <= keep) break;
        uint64_t freed = node_bytes(it->first) + sizeof(Bag);
        for (const auto& [move, counters] : it->second.counters)
            freed += node_bytes(move) + sizeof(uint32_t);
        bytes_ -= freed;
        bags_.erase(it);
    }
}

void MatchboxLearner::save() const {
    if (path_.empty()) return;
    nlohmann::json j = {{"format", "nimtb-matchboxes"}, {"bags", nlohmann::json::object()}};
    for (const auto& [position, b] : bags_) {
        auto& moves = j["bags"][position] = nlohmann::json::array();
        for (const auto& [move, counters] : b.counters) {
            moves.push_back({{"leaves", move}, {"counters", counters}});
        }
    }
    // Published whole, like tables: an interrupted save keeps the old bags.
    io::write_file_whole(path_, j.dump(1) + "\n");
}

}  // namespace nimtb::play
