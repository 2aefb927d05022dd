#include "play/northcott.h"

#include <fmt/core.h>

#include <istream>
#include <ostream>
#include <sstream>

#include "engine/base/errors.h"

namespace nimtb::play {

NorthcottBoard::NorthcottBoard(std::vector<Row> rows, unsigned width)
    : rows_(std::move(rows)), width_(width) {
    if (rows_.size() < MIN_ROWS || rows_.size() > MAX_ROWS) {
        throw nimtb::InputError(fmt::format("a Northcott board has {} to {} rows, not {}", MIN_ROWS,
                                            MAX_ROWS, rows_.size()));
    }
    for (size_t r = 0; r < rows_.size(); ++r) {
        const Row& row = rows_[r];
        if (row.x >= width_ || row.o >= width_) {
            throw nimtb::InputError(
                fmt::format("row {}: the board has columns 1 to {}", r + 1, width_));
        }
        if (row.x == row.o) {
            throw nimtb::InputError(fmt::format("row {}: X and O on one square", r + 1));
        }
    }
}

NorthcottBoard NorthcottBoard::aligned(unsigned rows, unsigned width) {
    return NorthcottBoard(std::vector<Row>(rows, Row{0, width - 1}), width);
}

NorthcottBoard NorthcottBoard::random(unsigned rows, std::mt19937_64& rng, unsigned width) {
    std::uniform_int_distribution<unsigned> column(0, width - 1);
    std::vector<Row> out(rows);
    for (Row& row : out) {
        row.x = column(rng);
        do row.o = column(rng);
        while (row.o == row.x);
    }
    return NorthcottBoard(std::move(out), width);
}

NorthcottBoard NorthcottBoard::parse(const std::string& text, unsigned width) {
    std::istringstream in(text);
    std::vector<Row> rows;
    std::string word;
    while (in >> word) {
        unsigned x = 0, o = 0;
        char dash = 0;
        std::istringstream w(word);
        if (!(w >> x >> dash >> o) || dash != '-' || w.peek() != EOF || x == 0 || o == 0) {
            throw nimtb::InputError("'" + word +
                                    "' is not a row: write the columns of X and O, e.g. 1-12");
        }
        rows.push_back({x - 1, o - 1});
    }
    return NorthcottBoard(std::move(rows), width);
}

std::string NorthcottBoard::text() const {
    std::string out;
    for (const Row& r : rows_)
        out += fmt::format("{}{}-{}", out.empty() ? "" : " ", r.x + 1, r.o + 1);
    return out;
}

engine::Heaps NorthcottBoard::gaps() const {
    engine::Heaps h;
    for (const Row& r : rows_) h.push_back((r.x < r.o ? r.o - r.x : r.x - r.o) - 1);
    return h;
}

unsigned& NorthcottBoard::column(unsigned row, Piece piece) {
    return piece == Piece::x ? rows_[row].x : rows_[row].o;
}

std::vector<unsigned> NorthcottBoard::destinations(unsigned row, Piece piece) const {
    const Row& r = rows_.at(row);
    const unsigned mine = piece == Piece::x ? r.x : r.o, other = piece == Piece::x ? r.o : r.x;
    // The squares on this piece's side of the other one.
    const unsigned lo = mine < other ? 0 : other + 1, hi = mine < other ? other : width_;
    std::vector<unsigned> out;
    for (unsigned c = lo; c < hi; ++c) {
        if (c != mine) out.push_back(c);
    }
    return out;
}

bool NorthcottBoard::can_move(Piece piece) const {
    for (unsigned r = 0; r < rows_.size(); ++r) {
        if (!destinations(r, piece).empty()) return true;
    }
    return false;
}

void NorthcottBoard::move(unsigned row, Piece piece, unsigned to) {
    if (row >= rows_.size()) {
        throw nimtb::InputError(fmt::format("the board has rows 1 to {}", rows_.size()));
    }
    const char name = piece == Piece::x ? 'X' : 'O';
    const std::vector<unsigned> d = destinations(row, piece);
    if (std::find(d.begin(), d.end(), to) == d.end()) {
        const Row& r = rows_[row];
        const unsigned mine = piece == Piece::x ? r.x : r.o;
        if (to == mine) throw nimtb::InputError(fmt::format("{} is already there", name));
        if (to >= width_)
            throw nimtb::InputError(fmt::format("the board has columns 1 to {}", width_));
        throw nimtb::InputError(
            fmt::format("{} cannot jump over or land on the other piece of its row", name));
    }
    column(row, piece) = to;
}

std::optional<NorthcottMove> computer_move(const NorthcottBoard& board, Piece piece, Player& player,
                                           io::Prober& nim, std::mt19937_64& rng) {
    const engine::Heaps gaps = board.gaps();
    const io::ProbeResult probe = nim.probe(gaps);
    auto at = [&](unsigned row) {
        const auto& r = board.rows()[row];
        return std::pair{piece == Piece::x ? r.x : r.o, piece == Piece::x ? r.o : r.x};
    };
    if (!probe.moves.empty()) {
        // A Nim move takes `amount` from heap `heap`: the piece closes in by as much.
        const io::ProbedMove& m = player.choose(probe, rng);
        const unsigned row = m.heap - 1;
        const auto [mine, other] = at(row);
        const unsigned to = mine < other ? mine + m.amount : mine - m.amount;
        return NorthcottMove{row, mine, to, true};
    }
    // Every gap closed: retreat one square, in the first row that has room.
    for (unsigned row = 0; row < board.rows().size(); ++row) {
        const auto [mine, other] = at(row);
        if (mine < other && mine > 0) return NorthcottMove{row, mine, mine - 1, false};
        if (mine > other && mine + 1 < board.width())
            return NorthcottMove{row, mine, mine + 1, false};
    }
    return std::nullopt;
}

namespace {

std::string draw(const NorthcottBoard& b) {
    const engine::Heaps gaps = b.gaps();
    std::string out = "       ";
    for (unsigned c = 0; c < b.width(); ++c) out += fmt::format("{:>3}", c + 1);
    out += "    gap\n";
    for (size_t r = 0; r < b.rows().size(); ++r) {
        out += fmt::format("  row {}", r + 1);
        for (unsigned c = 0; c < b.width(); ++c) {
            out += c == b.rows()[r].x ? "  X" : c == b.rows()[r].o ? "  O" : "  .";
        }
        out += fmt::format("   {:>3}\n", gaps[r]);
    }
    uint32_t x = 0;
    std::string sum;
    for (uint32_t g : gaps) {
        x ^= g;
        sum += fmt::format("{}{}", sum.empty() ? "" : " ^ ", g);
    }
    out += fmt::format("  gaps {} = {}\n", sum, x);
    return out;
}

std::string describe(const NorthcottMove& m, char name) {
    return fmt::format("{} in row {} from column {} to {}{}", name, m.row + 1, m.from + 1, m.to + 1,
                       m.closes ? "" : " (a retreat)");
}

}  // namespace

int play_northcott(io::Prober& nim, const NorthcottOptions& options, std::istream& in,
                   std::ostream& out) {
    std::mt19937_64 rng(options.seed);
    NorthcottBoard board = options.start          ? *options.start
                           : options.random_start ? NorthcottBoard::random(options.rows, rng)
                                                  : NorthcottBoard::aligned(options.rows);
    if (nim.rule().canonical() != "nim" ||
        nim.table().info().convention != engine::Convention::normal) {
        throw nimtb::InputError("Northcott's game is played from a normal-play Nim table");
    }
    nim.universe().normalise(engine::Heaps(board.rows().size(), board.width() - 2));

    auto perfect = make_table_player(Level::perfect, engine::Convention::normal);
    auto computer = make_table_player(options.level, engine::Convention::normal);
    Piece mover = options.person_first ? Piece::x : Piece::o;
    out << "Northcott's game: "
        << (options.two_people ? "player 1 moves X, player 2" : "you move X, the computer")
        << " moves O.\nMove a piece by typing its row and the column it goes to, e.g. '2 5'.\n"
           "Whoever cannot move loses. Commands: hint, help, quit.\n\n";
    unsigned moves = 0;
    bool redraw = true;  // not after a hint or a refused move
    for (;;) {
        if (redraw) out << draw(board);
        redraw = true;
        if (!board.can_move(mover)) {
            const bool x_won = mover == Piece::o;
            out << fmt::format(
                "{} cannot move: {} after {} moves\n", mover == Piece::x ? 'X' : 'O',
                x_won ? (options.two_people ? "player 1 (X) wins" : "you win")
                      : (options.two_people ? "player 2 (O) wins" : "the computer wins"),
                moves);
            return x_won ? 0 : 1;
        }
        const char name = mover == Piece::x ? 'X' : 'O';
        if (mover == Piece::o && !options.two_people) {
            const auto m = computer_move(board, Piece::o, *computer, nim, rng);
            board.move(m->row, Piece::o, m->to);
            out << "the computer moves " << describe(*m, 'O') << "\n";
        } else {
            out << fmt::format("{} to move (ROW COLUMN, hint, help, quit): ", name);
            out.flush();
            std::string line;
            if (!std::getline(in, line) || line == "quit" || line == "q") {
                out << "\n";
                return -1;
            }
            if (line == "help") {
                out << "Type the row of the piece and the column it moves to, e.g. '2 5'.\n"
                       "A piece slides along its row, toward the other piece or away from\n"
                       "it, but never over it. The gaps are Nim heaps: leave their XOR 0.\n";
                redraw = false;
                continue;
            }
            if (line == "hint") {
                const auto m = computer_move(board, mover, *perfect, nim, rng);
                const bool losing = nim.probe(board.gaps()).value == 0;
                out << "hint: move " << describe(*m, name)
                    << (losing ? "; the gaps' XOR is 0 already, so every move loses against "
                                 "perfect play\n"
                               : "; the gaps' XOR becomes 0\n");
                redraw = false;
                continue;
            }
            unsigned row = 0, column = 0;
            std::istringstream words(line);
            if (!(words >> row >> column) || !(words >> std::ws).eof() || row == 0 || column == 0) {
                out << "not a move: type the row and the column " << name
                    << " goes to, e.g. '2 5'\n";
                redraw = false;
                continue;
            }
            try {
                board.move(row - 1, mover, column - 1);
            } catch (const nimtb::InputError& e) {
                out << "not a move: " << e.what() << "\n";
                redraw = false;
                continue;
            }
        }
        ++moves;
        mover = mover == Piece::x ? Piece::o : Piece::x;
    }
}

}  // namespace nimtb::play
