#pragma once
// Computer players for `nimtb play`: the table's perfect play, weakened
// levels, and a matchbox learner that improves from its games.

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/probe.h"

namespace nimtb::play {

enum class Level { perfect, medium, easy, random, learning };
Level parse_level(std::string_view text);  // throws nimtb::InputError
const char* to_string(Level level);
// The chance that a weakened level plays a random legal move instead of the best one.
double blunder_chance(Level level);

// Chooses moves for one side. `probe` has every legal move, best first.
class Player {
  public:
    virtual ~Player() = default;
    virtual const io::ProbedMove& choose(const io::ProbeResult& probe, std::mt19937_64& rng) = 0;
    // Told once per game, after it ends.
    virtual void game_over(bool /*won*/) {}
};

// perfect, medium, easy and random: all from the table.
std::unique_ptr<Player> make_table_player(Level level, engine::Convention convention);

// The matchbox learner. Each position has a bag of counters, one per legal
// move at first (a move named by the position it leaves); a move is a counter drawn at random.
// After a won game each drawn counter gets a copy; after a lost game the drawn counters are
// removed, keeping at least one of each move. The bags live in a JSON file between runs.
class MatchboxLearner : public Player {
  public:
    // Loads the bags from `path` if it exists ("" keeps them in memory only).
    explicit MatchboxLearner(std::string path);
    const io::ProbedMove& choose(const io::ProbeResult& probe, std::mt19937_64& rng) override;
    void game_over(bool won) override;  // learns from this game's draws, saves the bags
    size_t positions_known() const { return bags_.size(); }
    // About the memory its bags take (a map node and a name per position
    // and per move), for a server that caps it.
    uint64_t bytes() const { return bytes_; }
    // Forgets the positions used least recently (drawn from or learned)
    // until its bags take at most `keep` bytes.
    void forget_oldest(uint64_t keep);

    // A drawn counter: the position (sorted heaps, as format_heaps writes
    // them) and the position its move leaves.
    using Draw = std::pair<std::string, std::string>;
    // The draws since the last game_over, handed over: a server that plays
    // many games at once keeps each game's draws itself and then calls learn.
    std::vector<Draw> take_draws() { return std::exchange(drawn_, {}); }
    // One more counter for each draw after a won game, one fewer (keeping
    // one) after a lost game; then saves the bags.
    void learn(const std::vector<Draw>& draws, bool won);
    // The name a draw gives a position, and the position a name stands for
    // (throws nimtb::InputError for a name that is none).
    static std::string key(const engine::Heaps& heaps);
    static engine::Heaps heaps_of(const std::string& name);

  private:
    // A move is named by the position it leaves (sorted heaps): the same for
    // every family and independent of heap order.
    using MoveKey = std::string;
    struct Bag {
        std::map<MoveKey, uint32_t> counters;
        uint64_t used = 0;  // when it was last drawn from or learned: a tick of used_
    };
    // The bag of `position`, made when new; counts its bytes and its use.
    Bag& bag(const std::string& position);
    // One more counter of `move` in `b` (made at `initial` when new).
    uint32_t& counter(Bag& b, const MoveKey& move, uint32_t initial);
    void save() const;

    std::string path_;
    std::map<std::string, Bag> bags_;
    std::vector<Draw> drawn_;
    uint64_t used_ = 0;   // ticks: one per use of a bag
    uint64_t bytes_ = 0;  // bytes(): kept as bags and counters are added and forgotten
};

}  // namespace nimtb::play
