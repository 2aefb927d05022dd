#pragma once
// A playing session: games of one table between people and computer players,
// driven as an explicit state machine (setup, a person's turn, the computer's
// turn, game over) over text streams, so a terminal and a test pipe are alike.

#include <array>
#include <iosfwd>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io/probe.h"
#include "play/players.h"

namespace nimtb::play {

enum class State { setup, human_turn, computer_turn, game_over, finished };
const char* to_string(State state);

struct Side {
    bool human = true;
    Level level = Level::perfect;
    std::string name;  // "you", "player 2", "computer (perfect)"
};

// Starting layouts by name; `random` is 2-4 heaps of 1-20 tokens.
engine::Heaps layout(const std::string& name, std::mt19937_64& rng);
std::string layout_names();
// The heaps a table must hold for a game from a named layout: the layout
// itself, or for `random` four heaps of 20 (for rules that split heaps, one of 24).
engine::Heaps layout_needs(const std::string& name, const engine::Rule& rule, std::mt19937_64& rng);
// A random start within a table's universe: 2-4 heaps of 1-20, within its limits.
engine::Heaps random_start(const engine::Universe& u, std::mt19937_64& rng);

struct SessionOptions {
    std::array<Side, 2> sides;  // sides[0] moves first
    std::optional<engine::Heaps> start;
    std::string layout = "classic";  // when no start is given
    uint64_t seed = 0;
    bool trace = false;         // print each state transition
    unsigned games = 0;         // play this many games without asking; 0: ask "play again?"
    bool brief = false;         // one line per game (with games > 0)
    std::string learning_file;  // the matchbox learner's bags ("" in memory)
};

struct SessionSummary {
    unsigned games = 0;
    std::array<unsigned, 2> wins{};
    std::vector<int> winners;  // 0 or 1, per game
};

class Session {
  public:
    Session(io::Prober& prober, SessionOptions options, std::istream& in, std::ostream& out);
    ~Session();
    // Plays until the person quits, input ends, or `games` are played.
    SessionSummary run();

  private:
    struct Turn {
        engine::Heaps heaps;
        int mover;
    };
    void transition(State next);
    void arrive();
    void setup();
    void human_turn();
    void computer_turn();
    void game_over();
    // Plays a move: the heaps become `result` (a move's result, in board order).
    void apply(int mover, const engine::Heaps& result);
    // True for take families: a move is typed as HEAP AMOUNT; other families
    // type the heaps they leave.
    bool by_heap_and_amount() const;
    void draw_board() const;
    std::string help() const;
    bool read_line(std::string& line);
    // Why heap `h`, amount `a` is not a move here ("" if it is one), with
    // the amounts that are allowed.
    std::string refuse(uint32_t h, uint32_t a) const;
    // The 1-based number of the one non-empty heap, if only one is left:
    // then an amount alone is a move.
    std::optional<unsigned> only_heap() const;

    io::Prober& prober_;
    SessionOptions options_;
    std::istream& in_;
    std::ostream& out_;
    std::mt19937_64 rng_;
    std::array<std::unique_ptr<Player>, 2> players_;
    State state_ = State::setup;
    engine::Heaps heaps_;
    io::ProbeResult position_;  // the probe of heaps_
    int to_move_ = 0;
    unsigned moves_made_ = 0;
    std::vector<Turn> history_;
    SessionSummary summary_;
    std::string start_text_;
};

}  // namespace nimtb::play
