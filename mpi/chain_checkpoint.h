#pragma once
// The checkpoint of a streamed process of the line chain (docs/CLUSTER.md,
// "Streamed processes"): in its folder of the checkpoint (DIR/process-<rank>),
// beside the manifest that says what is solved (service::Checkpoint), its
// spills as named files (value.spill, remoteness.spill: mpi/spill.h), and
// the chain's state at the start of a level, chain-LLLLLL.state: the spills'
// lengths then, the figures of the positions spilled, the home lines in use
// and the aggregates that have arrived for later levels. A state is a zstd
// frame with its content checksum, written under a draft name, flushed and
// renamed (io/codec/publish.h), after the spills are flushed to disk: a
// state under its final name is whole, and the spills hold what it says.
// Of the lines and arrivals only the pages that are not zero are written
// (a zero page is one untouched, or given back: either reads as zeros
// again), so a state holds what the process holds, not its address space.
//
// A process keeps its newest state and, until every process has written
// that one, the one before it: a job resumes at the newest level every
// process holds (the solver's decision), and a job killed while writing
// still finds one.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mpi/line_chain.h"

namespace nimtb::mpi {

// What a state says besides the chain's aggregates: where the levels before
// it end in the spills, and the figures of the positions in them.
struct ChainStateHead {
    uint64_t level = 0;        // the first level not solved
    uint64_t spilled[2]{};     // entries of the value and remoteness spills
    uint64_t p_positions = 0;  // this process's, among those spilled
    uint64_t max_value = 0;
    uint64_t max_remoteness = 0;
};

class ChainCheckpoint {
  public:
    // The process's folder of the checkpoint (made by service::Checkpoint).
    explicit ChainCheckpoint(std::string dir) : dir_(std::move(dir)) {}

    const std::string& dir() const { return dir_; }
    // The spill of the values (0) or of the remoteness (1).
    std::string spill_path(unsigned which) const;
    // The levels of the states held, ascending.
    std::vector<uint64_t> levels() const;

    // Writes the state of `chain` after head.level levels (the spills
    // flushed to disk first: Spill::sync). Throws TableError (a full disk).
    void save(const ChainStateHead& head, const LineChain& chain) const;
    // The state saved at `level` back into `chain` (just made, its home
    // lines untouched and no area idle: the pages of zeros the file skips
    // are zeros there): its home lines, and its later levels' arrivals,
    // whose slots `arrivals_for` makes. Throws TableError naming the file
    // when it is damaged or not this solve's.
    ChainStateHead restore(uint64_t level, LineChain& chain,
                           const std::function<Arrivals(size_t)>& arrivals_for) const;
    // Removes the states other than the one at `level` (none: every one).
    void keep_only(uint64_t level) const;
    // Removes the states and the spills: the table is written.
    void remove() const;

  private:
    std::string state_path(uint64_t level) const;
    std::string dir_;
};

}  // namespace nimtb::mpi
