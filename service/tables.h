#pragma once
// Tables by name and by game: the default path of a table, the table of a
// folder that holds a game, or one solved on the spot when it is small
// (`play`; `serve` keeps a catalog of its own, apps/server/catalog.h), and
// the storage lines `solve` and `info` print.

#include <span>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "io/table_reader.h"
#include "service/request/hooks.h"

namespace nimtb::service {

// <rule>-<convention>, with the rule made safe for a file name (subtract-1_3_4-misere).
std::string game_stem(const engine::Rule& rule, engine::Convention c);
// tables/<rule>-<convention>-k<K>-h<H>.h5 for a box,
// tables/<rule>-<convention>-n<N>[-k<K>].h5 for a total-bounded universe.
std::string default_table_path(const engine::Rule& rule, engine::Convention c,
                               const engine::Universe& u);

// Positions a solve on the spot may have: seconds of work for most rules,
// minutes where a position has thousands of moves (Wythoff's game to 3000
// 3000); the server bounds the time as well (--job-time).
inline constexpr uint64_t SOLVE_ON_THE_SPOT = 5'000'000;

// A folder of tables, a tablebase: each table's game and universe, read
// once (files ending .h5, in name order; those that are not tables are
// skipped, and say why). A position is answered from the smallest table of
// its rule and convention that holds it.
struct FolderTable {
    std::string path;
    engine::Rule rule;
    engine::Convention convention;
    engine::Universe universe;
    uint64_t positions = 0;
};
class Tablebase {
  public:
    // TableError when `dir` is no folder, unless !must_exist (then empty).
    explicit Tablebase(const std::string& dir, bool must_exist = true);
    const std::vector<FolderTable>& tables() const { return tables_; }
    const std::vector<std::string>& skipped() const { return skipped_; }
    // The smallest table of the game that holds `heaps`, or nullptr.
    const FolderTable* find(const engine::Rule& rule, engine::Convention c,
                            std::span<const uint32_t> heaps) const;
    // The same, or NotInTable saying what the folder holds of the game (or
    // that it holds none of it) and the solve that would hold the position.
    const FolderTable& table_for(const engine::Rule& rule, engine::Convention c,
                                 std::span<const uint32_t> heaps) const;

  private:
    std::string dir_;
    std::vector<FolderTable> tables_;
    std::vector<std::string> skipped_;
};

// The table for a game without a table named: the smallest one in `dir`
// whose universe holds `start`, or one solved now into `dir` when it is
// small (hooks.note says so), or a TableError naming the solve to run.
std::string find_or_solve_table(const std::string& dir, const engine::Rule& rule,
                                engine::Convention c, const engine::Heaps& start,
                                const Hooks& hooks = {});
// The solve that makes the table of `u` (the hint of every refusal that
// names one), as a mention each front end words: "nimtb solve --rules R
// --heaps K --max-heap H" on the command line, nimtb.solve(...) in Python.
std::string solve_hint(const engine::Rule& rule, engine::Convention c, const engine::Universe& u);
// The clause of a refusal that says how to get the table of `u`: "make one
// with: " and solve_hint, or, when that solve would be refused here (more
// memory than this machine has), why no table of it can be made here: no
// refusal suggests a command that then refuses.
std::string make_table_hint(const engine::Rule& rule, engine::Convention c,
                            const engine::Universe& u);
// The smallest universe that holds `start` and the rule's moves from it: a
// box of its heaps, or for rules that split heaps every position of at most
// its total.
engine::Universe smallest_universe(const engine::Rule& rule, const engine::Heaps& start);

// Two lines: the data's size as arrays and as stored, with the compression
// ratio of the data alone, then the file's size.
std::string storage_lines(const io::TableStorage& storage);

}  // namespace nimtb::service
