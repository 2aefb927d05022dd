#pragma once
// Where a streamed solve hands over what it has solved, in rank order, so
// that its arrays need hold only the group of positions being solved
// (solve_order.h): the interface the solver calls; service/solve.cpp spills
// the positions to run files, encoded as the table's chunks, and writes the
// table from them.

#include <cstdint>

#include "engine/base/quantity_array.h"

namespace nimtb::engine {

class RankSink {
  public:
    virtual ~RankSink() = default;
    // Bytes the sink holds in memory during a solve whose arrays have these
    // widths (remoteness 0: not stored): part of the plan's memory.
    virtual uint64_t memory(unsigned value_bits, unsigned remoteness_bits) const = 0;
    // Ranks [first, first + count) are solved: entries [0, count) of `value`
    // and `remoteness` (empty when not stored) hold them. Called in rank
    // order, each rank once from 0, one call at a time, from a task of the
    // solve's arena while the next group is solved (a sink may run parallel
    // loops). May throw; the solve then ends.
    virtual void take(uint64_t first, uint64_t count, const QuantityArray& value,
                      const QuantityArray& remoteness) = 0;
};

}  // namespace nimtb::engine
