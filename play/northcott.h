#pragma once
// Northcott's game: rows of a board, one X and one O in each. A player moves
// one of their own pieces along its row, toward the other piece or away from
// it, never jumping over it or leaving the board; whoever cannot move loses.
//
// The gaps between the pieces are Nim heaps: moving toward the other piece
// takes from a heap, and moving away adds to one, a move the opponent can
// undo at once by following. So the computer plays from a normal-play Nim
// table of the gaps, and answers a widening by closing the gap again.
// The person plays X; the computer, or a second person, plays O.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io/probe.h"
#include "play/players.h"

namespace nimtb::play {

enum class Piece { x, o };

class NorthcottBoard {
  public:
    static constexpr unsigned WIDTH = 12;
    static constexpr unsigned MIN_ROWS = 1, MAX_ROWS = 8;

    struct Row {
        unsigned x = 0, o = 0;  // columns, 0-based
        bool operator==(const Row&) const = default;
    };

    // Throws nimtb::InputError unless every row has its two pieces on
    // distinct squares of the board.
    explicit NorthcottBoard(std::vector<Row> rows, unsigned width = WIDTH);
    // X in the first column and O in the last, in every row.
    static NorthcottBoard aligned(unsigned rows, unsigned width = WIDTH);
    // Each row's two pieces on two random squares, X on either side.
    static NorthcottBoard random(unsigned rows, std::mt19937_64& rng, unsigned width = WIDTH);
    // "1-12 3-7": per row the columns of X and O, 1-based; throws nimtb::InputError.
    static NorthcottBoard parse(const std::string& text, unsigned width = WIDTH);
    std::string text() const;  // as parse reads it

    unsigned width() const { return width_; }
    const std::vector<Row>& rows() const { return rows_; }
    // The empty squares between the two pieces of each row: the Nim heaps.
    engine::Heaps gaps() const;
    // The columns the piece of `row` may move to, ascending.
    std::vector<unsigned> destinations(unsigned row, Piece piece) const;
    bool can_move(Piece piece) const;
    // Throws nimtb::InputError, saying why, unless the move is legal.
    void move(unsigned row, Piece piece, unsigned column);

  private:
    unsigned& column(unsigned row, Piece piece);
    std::vector<Row> rows_;
    unsigned width_;
};

struct NorthcottMove {
    unsigned row = 0;  // 0-based
    unsigned from = 0, to = 0;
    bool closes = true;  // toward the other piece; false: a retreat
};

// The move of `piece` chosen by `player` from the Nim table of the gaps
// (`nim` is a normal-play Nim table that holds them). With every gap closed
// there is no Nim move left: the piece retreats one square where it can.
// nullopt: the piece cannot move, its side has lost.
std::optional<NorthcottMove> computer_move(const NorthcottBoard& board, Piece piece, Player& player,
                                           io::Prober& nim, std::mt19937_64& rng);

struct NorthcottOptions {
    std::optional<NorthcottBoard> start;
    unsigned rows = 3;
    bool random_start = true;  // else aligned
    bool person_first = true;
    bool two_people = false;
    Level level = Level::perfect;
    uint64_t seed = 0;
};

// The terminal game: the person moves X by typing ROW COLUMN (the square X
// moves to), or hint, help, quit. Returns 0 when X won, 1 when O won, -1 when
// the game was left unfinished.
int play_northcott(io::Prober& nim, const NorthcottOptions& options, std::istream& in,
                   std::ostream& out);

}  // namespace nimtb::play
