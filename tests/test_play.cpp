#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/solve/solver.h"
#include "io/table_writer.h"
#include "play/northcott.h"
#include "play/players.h"
#include "play/session.h"
#include "scratch_dir.h"
#include "solve_universe.h"

namespace fs = std::filesystem;
using nimtb::engine::Convention;

namespace {

// A solved matches game (one heap of up to 21, take 1-3) in a scratch folder.
class PlayTest : public nimtb::test::ScratchDir {
  protected:
    void SetUp() override {
        ScratchDir::SetUp();
        table_ = (dir_ / "m.h5").string();
        nimtb::test::write_solution(table_,
                               nimtb::test::solve("subtract:1-3", Convention::normal, 1, 21), {});
    }
    std::string table_;
};

}  // namespace

TEST_F(PlayTest, PerfectPlayerTakesTheFastestWin) {
    nimtb::io::Prober p(table_);
    std::mt19937_64 rng(1);
    auto perfect = nimtb::play::make_table_player(nimtb::play::Level::perfect, Convention::normal);
    const auto r = p.probe({21});
    const auto& m = perfect->choose(r, rng);
    EXPECT_EQ(m.amount, 1u);  // 21 -> 20, a multiple of 4
    EXPECT_TRUE(m.winning());
}

TEST_F(PlayTest, RandomPlayerFinishesAWinItCan) {
    nimtb::io::Prober p(table_);
    std::mt19937_64 rng(1);
    auto random = nimtb::play::make_table_player(nimtb::play::Level::random, Convention::normal);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(random->choose(p.probe({3}), rng).amount, 3u);
}

// The counters of position `key` (one heap) in a saved bags file, by amount taken.
std::map<uint32_t, uint32_t> counters(const std::string& bags, const std::string& key) {
    std::ifstream in(bags);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("format"), "nimtb-matchboxes");
    std::map<uint32_t, uint32_t> out;
    for (const auto& m : j.at("bags").at(key)) {
        const std::string leaves = m.at("leaves").get<std::string>();
        const uint32_t left = leaves == "(empty)" ? 0 : static_cast<uint32_t>(std::stoul(leaves));
        out[static_cast<uint32_t>(std::stoul(key)) - left] = m.at("counters").get<uint32_t>();
    }
    return out;
}

TEST_F(PlayTest, MatchboxCountersGrowOnWinsShrinkOnLossesAndPersist) {
    nimtb::io::Prober p(table_);
    const std::string bags = (dir_ / "bags.json").string();
    std::mt19937_64 rng(7);
    nimtb::play::MatchboxLearner learner(bags);
    const uint32_t first = learner.choose(p.probe({5}), rng).amount;
    learner.game_over(true);  // the drawn counter gets a copy
    std::map<uint32_t, uint32_t> expected = {{1, 1}, {2, 1}, {3, 1}};
    expected[first] = 2;
    EXPECT_EQ(counters(bags, "5"), expected);

    for (int game = 0; game < 5; ++game) {
        const uint32_t drawn = learner.choose(p.probe({5}), rng).amount;
        learner.game_over(false);  // the drawn counter goes, but one of each move stays
        expected[drawn] = std::max(1u, expected[drawn] - 1);
        EXPECT_EQ(counters(bags, "5"), expected);
    }

    nimtb::play::MatchboxLearner reloaded(bags);
    EXPECT_EQ(reloaded.positions_known(), 1u);
}

// Bags saved by nimtb 0.1 named moves by heap size and amount: they still load.
TEST_F(PlayTest, LearnerReadsBagsOfTheFirstFormat) {
    const std::string bags = (dir_ / "old.json").string();
    std::ofstream(bags)
        << R"({"format": "nimtb-matchboxes", "bags": {"5": [)"
        << R"({"heap": 5, "take": 1, "counters": 7}, {"heap": 5, "take": 2, "counters": 1}]}})";
    nimtb::play::MatchboxLearner learner(bags);
    EXPECT_EQ(learner.positions_known(), 1u);
    nimtb::io::Prober p(table_);
    std::mt19937_64 rng(3);
    learner.choose(p.probe({5}), rng);
    learner.game_over(true);
    const auto c = counters(bags, "5");  // saved in the new form, counts kept
    EXPECT_EQ(c.at(1) + c.at(2) + c.at(3), 7u + 1u + 1u + 1u);
}

// A server caps what its learners hold: forget_oldest drops the positions
// used least recently, and bytes() follows what is added and forgotten.
TEST_F(PlayTest, LearnerForgetsTheLeastRecentlyUsedPositions) {
    nimtb::io::Prober p(table_);
    std::mt19937_64 rng(5);
    nimtb::play::MatchboxLearner learner("");
    EXPECT_EQ(learner.bytes(), 0u);
    for (uint32_t h = 1; h <= 21; ++h) learner.choose(p.probe({h}), rng);
    learner.take_draws();
    const uint64_t all = learner.bytes();
    EXPECT_GT(all, 21u * 100u);
    learner.choose(p.probe({1}), rng);  // heap 1 used again: the newest
    learner.take_draws();
    learner.forget_oldest(all / 3);
    EXPECT_LE(learner.bytes(), all / 3);
    EXPECT_GT(learner.positions_known(), 1u);
    EXPECT_LT(learner.positions_known(), 21u);
    // The newest kept: heaps 1 and 21, 20, ...; the oldest gone.
    const uint64_t kept = learner.bytes();
    learner.learn({{"1", "(empty)"}}, true);  // known: no new bag
    EXPECT_EQ(learner.bytes(), kept);
    learner.learn({{"2", "1"}}, true);  // forgotten: a new bag and counter
    EXPECT_GT(learner.bytes(), kept);
    learner.forget_oldest(0);
    EXPECT_EQ(learner.bytes(), 0u);
    EXPECT_EQ(learner.positions_known(), 0u);
}

TEST_F(PlayTest, LearnerRefusesAForeignFile) {
    const std::string bags = (dir_ / "bags.json").string();
    std::ofstream(bags) << "not json";
    EXPECT_THROW(nimtb::play::MatchboxLearner learner(bags), nimtb::TableError);
}

TEST_F(PlayTest, SessionTracesEveryTransition) {
    nimtb::io::Prober p(table_);
    nimtb::play::SessionOptions o;
    o.sides[0] = {true, nimtb::play::Level::perfect, "you"};
    o.sides[1] = {false, nimtb::play::Level::perfect, "computer (perfect)"};
    o.start = nimtb::engine::Heaps{4};
    o.trace = true;
    std::istringstream in("1 1\nn\n");  // from 4 the person loses whatever they do
    std::ostringstream out;
    const auto summary = nimtb::play::Session(p, o, in, out).run();
    EXPECT_EQ(summary.games, 1u);
    EXPECT_EQ(summary.wins[1], 1u);
    for (const char* t : {"setup -> human-turn", "human-turn -> computer-turn",
                          "computer-turn -> game-over", "game-over -> finished"}) {
        EXPECT_NE(out.str().find(t), std::string::npos) << t << "\n" << out.str();
    }
}

TEST(Northcott, BoardRulesAndGaps) {
    using nimtb::play::NorthcottBoard, nimtb::play::Piece;
    NorthcottBoard b = NorthcottBoard::parse("1-12 7-3 5-6");
    EXPECT_EQ(b.gaps(), (nimtb::engine::Heaps{10, 3, 0}));
    EXPECT_EQ(b.text(), "1-12 7-3 5-6");
    // X in row 2 stands right of O: it moves within columns 4..12, not onto or past O.
    const auto d = b.destinations(1, Piece::x);
    EXPECT_EQ(d.front(), 3u);
    EXPECT_EQ(d.back(), 11u);
    EXPECT_EQ(d.size(), 8u);
    EXPECT_TRUE(b.destinations(2, Piece::x).size() == 4u);     // 1..4, away from O only
    EXPECT_THROW(b.move(1, Piece::x, 1), nimtb::InputError);   // jumps over O
    EXPECT_THROW(b.move(1, Piece::x, 2), nimtb::InputError);   // lands on O
    EXPECT_THROW(b.move(3, Piece::x, 2), nimtb::InputError);   // no row 4
    EXPECT_THROW(b.move(0, Piece::o, 12), nimtb::InputError);  // off the board
    b.move(1, Piece::x, 11);                                   // a retreat widens the gap
    EXPECT_EQ(b.gaps(), (nimtb::engine::Heaps{10, 8, 0}));
    for (const char* bad :
         {"", "1-1", "0-3", "1-13", "1_3", "1-3x", "1-2 1-2 1-2 1-2 1-2 1-2 1-2 1-2 1-2"})
        EXPECT_THROW(NorthcottBoard::parse(bad), nimtb::InputError) << bad;
    // Pieces side by side at the wall: no move left for X.
    EXPECT_FALSE(NorthcottBoard::parse("1-2 12-11").can_move(Piece::x));
    EXPECT_TRUE(NorthcottBoard::parse("1-2 12-11").can_move(Piece::o));
}

class NorthcottPlay : public nimtb::test::ScratchDir {
  protected:
    void SetUp() override {
        ScratchDir::SetUp();
        table_ = (dir_ / "nim.h5").string();
        nimtb::test::write_solution(table_, nimtb::test::solve("nim", Convention::normal, 4, 10), {});
    }
    std::string table_;
};

// From a board whose gaps have a non-zero XOR, the perfect computer moving
// first beats a random opponent that also retreats, every time, and leaves
// XOR 0 after each of its moves.
TEST_F(NorthcottPlay, PerfectComputerBeatsRandomMovesIncludingRetreats) {
    using nimtb::play::NorthcottBoard, nimtb::play::Piece;
    nimtb::io::Prober nim(table_);
    auto perfect = nimtb::play::make_table_player(nimtb::play::Level::perfect, Convention::normal);
    std::mt19937_64 rng(11);
    int games = 0;
    while (games < 40) {
        NorthcottBoard b = NorthcottBoard::random(1 + games % 4, rng);
        uint32_t x = 0;
        for (uint32_t g : b.gaps()) x ^= g;
        if (x == 0) continue;
        ++games;
        for (int turn = 0;; ++turn) {
            ASSERT_LT(turn, 10000) << "the game does not end";
            if (!b.can_move(Piece::o)) FAIL() << "the perfect side lost from " << b.text();
            const auto m = nimtb::play::computer_move(b, Piece::o, *perfect, nim, rng);
            ASSERT_TRUE(m.has_value());
            b.move(m->row, Piece::o, m->to);
            uint32_t after = 0;
            for (uint32_t g : b.gaps()) after ^= g;
            ASSERT_EQ(after, 0u) << b.text();
            if (!b.can_move(Piece::x)) break;  // X has lost
            std::vector<std::pair<unsigned, unsigned>> moves;
            for (unsigned r = 0; r < b.rows().size(); ++r)
                for (unsigned c : b.destinations(r, Piece::x)) moves.push_back({r, c});
            const auto [r, c] =
                moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng)];
            b.move(r, Piece::x, c);
        }
    }
}

TEST_F(NorthcottPlay, TerminalGameRefusesBadMovesAndEnds) {
    nimtb::io::Prober nim(table_);
    nimtb::play::NorthcottOptions o;
    o.start = nimtb::play::NorthcottBoard::parse("1-3 12-10");  // gaps 1 1: X loses
    std::istringstream in("2 10\n9 9\nfoo\nhint\n1 2\n2 11\n1 1\n");
    std::ostringstream out;
    const int winner = nimtb::play::play_northcott(nim, o, in, out);
    const std::string s = out.str();
    EXPECT_NE(s.find("not a move: X cannot jump over or land on"), std::string::npos) << s;
    EXPECT_NE(s.find("not a move: the board has rows 1 to 2"), std::string::npos) << s;
    EXPECT_NE(s.find("not a move: type the row and the column X goes to"), std::string::npos) << s;
    EXPECT_NE(s.find("hint: move X in row"), std::string::npos) << s;
    EXPECT_NE(s.find("the computer moves O in row 1 from column 3 to 2"), std::string::npos) << s;
    EXPECT_EQ(winner, 1) << s;
}

TEST(Players, LevelNames) {
    using nimtb::play::Level;
    for (Level l : {Level::perfect, Level::medium, Level::easy, Level::random, Level::learning})
        EXPECT_EQ(nimtb::play::parse_level(nimtb::play::to_string(l)), l);
    try {
        nimtb::play::parse_level("hard");
        FAIL();
    } catch (const nimtb::InputError& e) {
        EXPECT_STREQ(e.what(),
                     "unknown level 'hard': expected perfect, medium, easy, random or learning");
    }
}
