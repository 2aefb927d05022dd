#include "service/plane.h"

#include <fmt/core.h>

#include <algorithm>

#include "engine/base/errors.h"

namespace nimtb::service {

Plane plane_of(io::TableReader& table, const engine::Heaps& others, uint32_t max_side) {
    const engine::Universe& u = table.universe();
    if (u.max_heaps() < 2) throw InputError("the table holds one heap: there is no plane");
    if (others.size() > u.max_heaps() - 2) {
        throw InputError(fmt::format("a plane of a table of {} heaps fixes at most {} others",
                                     u.max_heaps(), u.max_heaps() - 2));
    }
    u.normalise(others);  // a clear error when the others alone are beyond the table
    uint64_t fixed_total = 0;
    engine::Heaps fixed;
    for (uint32_t c : others) {
        fixed_total += c;
        if (c) fixed.push_back(c);
    }
    // The heap sizes a or b can take with the others as they are.
    const uint64_t extent =
        u.is_box() ? uint64_t{u.max_heap_size()} + 1 : uint64_t{u.max_total()} - fixed_total + 1;
    Plane plane;
    plane.side = static_cast<uint32_t>(std::min<uint64_t>(extent, max_side));
    plane.clipped = extent > plane.side;
    const size_t cells = size_t{plane.side} * plane.side;
    std::vector<uint64_t> ranks;
    std::vector<uint32_t> where;  // the cell of each rank
    ranks.reserve(cells);
    where.reserve(cells);
    engine::Heaps h(u.max_heaps());
    for (uint32_t a = 0; a < plane.side; ++a) {
        for (uint32_t b = 0; b < plane.side; ++b) {
            // The universe's limits checked here, not by normalise(), whose
            // exception for each cell beyond a total would cost seconds.
            const size_t nonzero = fixed.size() + (a != 0) + (b != 0);
            if (nonzero > u.max_heaps() || (!u.is_box() && a + b + fixed_total > u.max_total()))
                continue;  // outside the universe: NO_VALUE
            std::fill(h.begin(), h.end(), 0);
            std::copy(fixed.begin(), fixed.end(), h.begin());
            h[fixed.size()] = a;
            h[fixed.size() + 1] = b;
            std::sort(h.begin(), h.end());
            ranks.push_back(u.rank(h));
            where.push_back(a * plane.side + b);
        }
    }
    const bool stored = table.has_remoteness();
    std::vector<uint32_t> found_values(ranks.size()), found_remoteness(stored ? ranks.size() : 0);
    table.look_up(ranks, found_values, found_remoteness);
    plane.values.assign(cells, NO_VALUE);
    plane.remoteness.assign(cells, NO_REMOTENESS);
    for (size_t i = 0; i < ranks.size(); ++i) {
        plane.values[where[i]] = found_values[i];
        if (stored) plane.remoteness[where[i]] = static_cast<uint16_t>(found_remoteness[i]);
    }
    return plane;
}

}  // namespace nimtb::service
