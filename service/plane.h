#pragma once
// A plane of positions: every a b C D ... of two heaps a (rows) and b
// (columns) from 0, the other heaps fixed at C D ...: the explorer's
// pictures on the page (`/api/plane`) and Python's nimtb.plot, one
// definition of which cells are positions and what each holds.

#include <cstdint>
#include <vector>

#include "engine/game/universe.h"
#include "io/table_reader.h"

namespace nimtb::service {

// A cell outside the universe, a remoteness not stored.
inline constexpr uint32_t NO_VALUE = UINT32_MAX;
inline constexpr uint16_t NO_REMOTENESS = UINT16_MAX;

struct Plane {
    uint32_t side = 0;     // rows and columns: heap sizes 0 .. side - 1
    bool clipped = false;  // the universe goes on past `side`
    // side x side, row by row: a value (NO_VALUE outside the universe), and
    // a remoteness (NO_REMOTENESS outside or when the table stores none).
    std::vector<uint32_t> values;
    std::vector<uint16_t> remoteness;
};

// The plane of `table` with the other heaps at `others`, at most
// `max_side` heap sizes a side. Throws InputError for a table of one heap,
// more others than the table has heaps besides two, or others beyond the
// table (NotInTable).
Plane plane_of(io::TableReader& table, const engine::Heaps& others, uint32_t max_side);

}  // namespace nimtb::service
