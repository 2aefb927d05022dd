#include "play/session.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <istream>
#include <ostream>

#include "engine/base/names.h"
#include "engine/game/rule_families.h"
#include "play/hint.h"

namespace nimtb::play {

constexpr const char* MOVE_FORM =
    "type a move as HEAP AMOUNT, e.g. '2 3', or one of hint, undo, help, quit";
constexpr const char* AMOUNT_FORM =
    "type the amount to take, e.g. '2', or one of hint, undo, help, quit";

// Heaps as a sorted text without empty heaps: "2 3 5".
std::string sorted_text(engine::Heaps heaps) {
    std::sort(heaps.begin(), heaps.end());
    return engine::format_heaps(heaps);
}

// "1", "1 or 3", "1, 2 or 3".
std::string or_list(const std::vector<uint32_t>& amounts) {
    std::string out;
    for (size_t i = 0; i < amounts.size(); ++i) {
        if (i) out += i + 1 == amounts.size() ? " or " : ", ";
        out += std::to_string(amounts[i]);
    }
    return out;
}

const char* to_string(State state) {
    static constexpr Named<State> STATES[] = {{State::setup, "setup"},
                                              {State::human_turn, "human-turn"},
                                              {State::computer_turn, "computer-turn"},
                                              {State::game_over, "game-over"},
                                              {State::finished, "finished"}};
    return name_of(STATES, state);
}

engine::Heaps layout(const std::string& name, std::mt19937_64& rng) {
    if (name == "classic") return {3, 4, 5};
    if (name == "marienbad") return {1, 3, 5, 7};  // the film's game, usually played misere
    if (name == "matches") return {21};            // one heap of 21 matches (take 1-3)
    if (name == "pyramid") return {1, 2, 3, 4, 5};
    if (name == "fibonacci") return {2, 3, 5, 8};
    if (name == "random") {
        const int heaps = std::uniform_int_distribution<int>(2, 4)(rng);
        engine::Heaps h;
        for (int i = 0; i < heaps; ++i)
            h.push_back(std::uniform_int_distribution<uint32_t>(1, 20)(rng));
        return h;
    }
    throw nimtb::InputError("unknown layout '" + name + "': expected " + layout_names());
}

engine::Heaps layout_needs(const std::string& name, const engine::Rule& rule,
                           std::mt19937_64& rng) {
    if (name != "random") return layout(name, rng);
    return rule.adds_heaps() ? engine::Heaps{24} : engine::Heaps{20, 20, 20, 20};
}

engine::Heaps random_start(const engine::Universe& u, std::mt19937_64& rng) {
    // Like the source games, but within the table's limits.
    const unsigned most = std::max(2u, std::min(4u, u.max_heaps()));
    const int count = std::uniform_int_distribution<int>(std::min(2u, u.max_heaps()), most)(rng);
    engine::Heaps heaps;
    // Under a total, the heaps share it: each gets at most what is left.
    uint32_t left = u.is_box() ? UINT32_MAX : u.max_total();
    for (int i = 0; i < count && left > 0; ++i) {
        const uint32_t h = std::uniform_int_distribution<uint32_t>(
            1, std::min({20u, std::max(1u, u.max_heap_size()), left}))(rng);
        heaps.push_back(h);
        if (!u.is_box()) left -= h;
    }
    return heaps;
}

std::string layout_names() {
    return "classic (3 4 5), marienbad (1 3 5 7), matches (21), pyramid (1-5), fibonacci (2 3 5 8) "
           "or random";
}

Session::Session(io::Prober& prober, SessionOptions options, std::istream& in, std::ostream& out)
    : prober_(prober), options_(std::move(options)), in_(in), out_(out), rng_(options_.seed) {
    const engine::Convention c = prober_.table().info().convention;
    for (int i = 0; i < 2; ++i) {
        const Side& s = options_.sides[i];
        if (s.human) continue;
        if (s.level == Level::learning) {
            players_[i] = std::make_unique<MatchboxLearner>(options_.learning_file);
        } else {
            players_[i] = make_table_player(s.level, c);
        }
    }
}

Session::~Session() = default;

SessionSummary Session::run() {
    while (state_ != State::finished) {
        switch (state_) {
            case State::setup:
                setup();
                break;
            case State::human_turn:
                human_turn();
                break;
            case State::computer_turn:
                computer_turn();
                break;
            case State::game_over:
                game_over();
                break;
            case State::finished:
                break;
        }
    }
    return summary_;
}

void Session::transition(State next) {
    if (options_.trace)
        out_ << "[trace] " << to_string(state_) << " -> " << to_string(next) << "\n";
    state_ = next;
}

bool Session::read_line(std::string& line) {
    if (!std::getline(in_, line)) return false;
    const size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
    line = a == std::string::npos ? "" : line.substr(a, b - a + 1);
    std::transform(line.begin(), line.end(), line.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    return true;
}

// Probes the current position, once per position: the turn, the computer's
// choice and a hint all read it from `position_`. Then moves to the state it
// calls for: game over when no move is left, else the mover's turn.
void Session::arrive() {
    position_ = prober_.probe(heaps_);
    if (position_.moves.empty()) {
        transition(State::game_over);
    } else {
        transition(options_.sides[to_move_].human ? State::human_turn : State::computer_turn);
    }
}

void Session::setup() {
    const engine::Universe& u = prober_.universe();
    if (options_.start) {
        heaps_ = *options_.start;
    } else if (options_.layout == "random") {
        heaps_ = random_start(u, rng_);
    } else {
        heaps_ = layout(options_.layout, rng_);
    }
    position_ = prober_.probe(heaps_);  // throws InputError outside the table
    if (position_.moves.empty())
        throw nimtb::InputError("the start " + engine::format_heaps(heaps_) + " has no move");
    to_move_ = 0;
    moves_made_ = 0;
    history_.clear();
    start_text_ =
        fmt::format("{} ({})", engine::format_heaps(heaps_), position_.to_move_wins() ? "N" : "P");
    if (!options_.brief) {
        const bool normal = prober_.table().info().convention == engine::Convention::normal;
        out_ << fmt::format("\nnew game: {} {}; {} play: whoever makes the last move {}\n",
                            prober_.rule().canonical(), normal ? "normal" : "misere",
                            normal ? "normal" : "misere", normal ? "wins" : "loses");
        out_ << fmt::format(
            "{} against {}; {} first\n", options_.sides[0].name, options_.sides[1].name,
            options_.sides[0].name == "you" ? "you move" : options_.sides[0].name + " moves");
    }
    transition(options_.sides[0].human ? State::human_turn : State::computer_turn);
}

void Session::draw_board() const {
    // At most 40 tokens drawn a row; a bigger heap shows "..." and its size.
    constexpr uint32_t DRAWN = 40;
    const uint32_t widest = std::min(DRAWN, *std::max_element(heaps_.begin(), heaps_.end()));
    std::string board;
    for (size_t i = 0; i < heaps_.size(); ++i) {
        std::string tokens;
        for (uint32_t t = 0; t < std::min(heaps_[i], DRAWN); ++t) tokens += "o ";
        if (heaps_[i] > DRAWN) tokens += "... ";
        board +=
            fmt::format("  heap {:>2} | {:<{}} ({})\n", i + 1, tokens, 2 * widest + 4, heaps_[i]);
    }
    out_ << board;
}

std::string Session::help() const {
    const engine::Rule& rule = prober_.rule();
    const std::string commands =
        "Commands: hint (the best move and why), undo (take back your last move), help, quit.\n";
    const std::string moves = engine::move_sentence(rule);
    if (!by_heap_and_amount()) {
        // The example is a move of this rule from this board (the last listed,
        // so as not to give the best one away).
        std::string example;
        if (!position_.moves.empty()) {
            const io::ProbedMove& m = position_.moves.back();
            const std::string left = engine::format_heaps(m.result);
            example = fmt::format(" Here '{}' would {}.", left == "(empty)" ? "0" : left, m.phrase);
        }
        return moves + "\nType the heaps you leave, in any order ('0' when none)." + example + " " +
               commands;
    }
    return "Type a move as HEAP AMOUNT: '2 3' takes 3 tokens from heap 2; when one heap is "
           "left, the amount alone will do. " +
           moves + "\n" + commands;
}

bool Session::by_heap_and_amount() const {
    return prober_.rule().take_family();
}

std::optional<unsigned> Session::only_heap() const {
    std::optional<unsigned> only;
    for (unsigned i = 0; i < heaps_.size(); ++i) {
        if (heaps_[i] == 0) continue;
        if (only) return std::nullopt;
        only = i + 1;
    }
    return only;
}

std::string Session::refuse(uint32_t h, uint32_t a) const {
    const bool alone = only_heap().has_value();
    if (h < 1 || h > heaps_.size())
        return fmt::format("there is no heap {}: heaps are numbered 1 to {}", h, heaps_.size());
    if (heaps_[h - 1] == 0) return fmt::format("heap {} is empty", h);
    const std::string heap = alone ? std::string("the heap") : fmt::format("heap {}", h);
    const std::vector<uint32_t> ok = prober_.rule().amounts_up_to(heaps_[h - 1]);
    const std::string may =
        ok.empty() ? std::string("nothing can be taken from it") : "you may take " + or_list(ok);
    if (a == 0) return "take at least one token; " + may;
    if (a > heaps_[h - 1]) {
        return fmt::format("{} has only {} token{}; {}", heap, heaps_[h - 1],
                           heaps_[h - 1] == 1 ? "" : "s", may);
    }
    if (!prober_.rule().allows(a)) {
        return fmt::format("the rule {} does not allow taking {}; from {} {}",
                           prober_.rule().canonical(), a, heap, may);
    }
    return "";
}

void Session::human_turn() {
    const Side& side = options_.sides[to_move_];
    draw_board();
    const std::optional<unsigned> alone = only_heap();
    out_ << fmt::format("{} to move ({}, or hint, undo, help, quit): ", side.name,
                        !by_heap_and_amount() ? "the heaps you leave"
                        : alone               ? "an amount"
                                              : "heap and amount");
    out_.flush();
    std::string line;
    if (!read_line(line) || line == "quit" || line == "q" || line == "exit") {
        out_ << "\nbye\n";
        transition(State::finished);
        return;
    }
    out_ << "\n";
    if (line == "help" || line == "?") {
        out_ << help();
        return;
    }
    if (line == "hint") {
        out_ << hint(prober_, position_);
        return;
    }
    if (line == "undo") {
        if (history_.empty()) {
            out_ << "nothing to undo\n";
            return;
        }
        // Back to the last position where a person was to move.
        do {
            heaps_ = history_.back().heaps;
            to_move_ = history_.back().mover;
            history_.pop_back();
            --moves_made_;
        } while (!options_.sides[to_move_].human && !history_.empty());
        out_ << "undone\n";
        arrive();
        return;
    }
    engine::Heaps numbers;
    try {
        numbers = engine::parse_heaps(line);
    } catch (const nimtb::InputError& e) {
        if (!by_heap_and_amount()) {
            out_ << "not a move: " << e.what() << "\n";
            return;
        }
    }
    if (!by_heap_and_amount()) {
        // A move is the position it leaves, in any order.
        const std::string wanted = sorted_text(numbers);
        for (const io::ProbedMove& m : position_.moves) {
            if (sorted_text(m.result) == wanted) {
                apply(to_move_, m.result);
                return;
            }
        }
        out_ << "not a move: no move leads from " << engine::format_heaps(heaps_) << " to "
             << wanted << "; type the heaps you leave, or hint\n";
        return;
    }
    // A move is two numbers, or one (the amount) when one heap is left;
    // anything else gets the form of a move.
    if (alone && numbers.size() == 1) numbers.insert(numbers.begin(), *alone);
    const std::string why = numbers.size() == 2 ? refuse(numbers[0], numbers[1])
                            : alone             ? AMOUNT_FORM
                                                : MOVE_FORM;
    if (!why.empty()) {
        out_ << "not a move: " << why << "\n";
        return;
    }
    for (const io::ProbedMove& m : position_.moves) {
        if (m.heap == numbers[0] && m.amount == numbers[1]) {
            apply(to_move_, m.result);
            return;
        }
    }
    // Equal heaps: the prober lists the move from the first of them.
    engine::Heaps result = heaps_;
    result[numbers[0] - 1] -= numbers[1];
    apply(to_move_, result);
}

void Session::computer_turn() {
    // The board a person's move left, before the computer's answer changes it.
    if (!options_.brief && !history_.empty() && options_.sides[history_.back().mover].human)
        draw_board();
    const io::ProbedMove m =
        players_[to_move_]->choose(position_, rng_);  // a copy: apply re-probes
    if (!options_.brief) {
        out_ << (m.heap ? fmt::format("{} takes {} from heap {} (the {})\n",
                                      options_.sides[to_move_].name, m.amount, m.heap, m.heap_size)
                        : fmt::format("{}: {}\n", options_.sides[to_move_].name, m.phrase));
    }
    apply(to_move_, m.result);
}

void Session::apply(int mover, const engine::Heaps& result) {
    history_.push_back({heaps_, mover});
    heaps_ = result;
    ++moves_made_;
    to_move_ = 1 - mover;
    arrive();
}

void Session::game_over() {
    // The player to move has no move: in normal play they lose, in misere they win.
    const bool normal = prober_.table().info().convention == engine::Convention::normal;
    const int winner = normal ? 1 - to_move_ : to_move_;
    ++summary_.games;
    ++summary_.wins[winner];
    summary_.winners.push_back(winner);
    for (int i = 0; i < 2; ++i) {
        if (players_[i]) players_[i]->game_over(i == winner);
    }
    if (options_.brief) {
        out_ << fmt::format("game {}: start {}, winner {} ({}) in {} moves\n", summary_.games,
                            start_text_, winner + 1, options_.sides[winner].name, moves_made_);
    } else {
        draw_board();
        const std::string& name = options_.sides[winner].name;
        out_ << fmt::format("game over: {} after {} moves\n",
                            name == "you" ? "you win" : name + " wins", moves_made_);
    }
    if (options_.games) {
        transition(summary_.games < options_.games ? State::setup : State::finished);
        return;
    }
    out_ << "play again? [y/n] ";
    out_.flush();
    std::string line;
    const bool again = read_line(line) && (line == "y" || line == "yes");
    out_ << "\n";
    transition(again ? State::setup : State::finished);
}

}  // namespace nimtb::play
