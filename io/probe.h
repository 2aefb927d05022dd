#pragma once
// The tablebase prober: open a table, probe a position, rank its moves.
// Used by `query`, `dump` and `play`. Not thread-safe (one TableReader).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/game/move_generator.h"
#include "engine/game/moves.h"
#include "io/table_reader.h"

namespace nimtb::io {

// A heap a move changed: its place (1-based, in the order the position was
// given), its size, and what the move leaves of it (nothing, one heap, or a
// split's parts).
struct Touch {
    unsigned heap = 0;
    uint32_t size = 0;
    std::vector<uint32_t> leaves;
};

struct ProbedMove {
    // The heaps the move changed, in order: worked out here, once, for every
    // front end (the JSON views, Python).
    std::vector<Touch> touches;
    // For a move of one heap (a take, or a split of it): that heap (1-based,
    // in the order the position was given), its size and the amount taken
    // (0 for a split that takes none); all 0 for a move of several heaps.
    unsigned heap = 0;
    uint32_t heap_size = 0;
    uint32_t amount = 0;
    std::string phrase;    // "take 2 from the 5", "split 7 into 3 and 4": heaps named by size
    engine::Heaps result;  // the position after the move, same heap order, a split's part appended
    uint64_t child_rank = 0;
    uint32_t value = 0;  // of the resulting position
    std::optional<uint32_t> remoteness;
    bool winning() const { return value == 0; }  // leaves the opponent a P-position
};

struct ProbeResult {
    engine::Heaps heaps;  // as given (empty heaps kept)
    uint64_t rank = 0;
    uint32_t value = 0;
    std::optional<uint32_t> remoteness;
    bool to_move_wins() const { return value != 0; }
    // Every move, best first: winning moves by fastest win, then losing moves
    // by slowest loss; ties by heap, then amount.
    std::vector<ProbedMove> moves;
};

class Prober {
  public:
    explicit Prober(const std::string& path);  // throws TableError

    TableReader& table() { return table_; }
    const TableReader& table() const { return table_; }
    const engine::Rule& rule() const { return table_.rule(); }
    const engine::Universe& universe() const { return table_.universe(); }

    // Probes heaps in any order; throws nimtb::InputError (naming the table's
    // limits) for a position outside the table, TableError for a damaged file.
    ProbeResult probe(const engine::Heaps& heaps);
    // probe(heaps).moves.front(), or nullopt when there is no move, without
    // building every move: what `dump` writes for each position.
    std::optional<ProbedMove> best_move(const engine::Heaps& heaps);
    // The moves of perfect play from `heaps` to the end of the game.
    std::vector<ProbedMove> principal_line(const engine::Heaps& heaps);

  private:
    TableReader table_;
    engine::MoveGenerator moves_;
    // best_move()'s scratch, kept from one call to the next: the children's
    // ranks, values and remoteness, and each child's (heap, amount).
    std::vector<uint64_t> ranks_;
    std::vector<uint32_t> values_, remoteness_;
    std::vector<std::pair<unsigned, uint32_t>> keys_;
};

}  // namespace nimtb::io
