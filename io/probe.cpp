#include "io/probe.h"

#include <algorithm>

namespace nimtb::io {

Prober::Prober(const std::string& path) : table_(path), moves_(table_.rule(), table_.universe()) {}

ProbeResult Prober::probe(const engine::Heaps& heaps) {
    const engine::Universe& u = table_.universe();
    const engine::Heaps sorted = u.normalise(heaps);
    ProbeResult r;
    r.heaps = heaps;
    r.rank = u.rank(sorted);
    r.value = table_.value(r.rank);
    if (table_.has_remoteness()) r.remoteness = table_.remoteness(r.rank);
    for (const engine::Move& m : moves_.moves(sorted)) {
        ProbedMove p;
        const auto it =
            std::find(heaps.begin(), heaps.end(), m.heap_size);  // the first heap of that size
        p.heap = static_cast<unsigned>(it - heaps.begin()) + 1;
        p.heap_size = m.heap_size;
        p.amount = m.amount;
        p.phrase = engine::describe_take(m.heap_size, m.amount);
        p.result = heaps;
        p.result[p.heap - 1] -= m.amount;
        p.child_rank = m.child_rank;
        p.value = table_.value(m.child_rank);
        if (table_.has_remoteness()) p.remoteness = table_.remoteness(m.child_rank);
        r.moves.push_back(std::move(p));
    }
    std::stable_sort(r.moves.begin(), r.moves.end(), [](const ProbedMove& a, const ProbedMove& b) {
        if (a.winning() != b.winning()) return a.winning();
        const uint32_t ra = a.remoteness.value_or(0), rb = b.remoteness.value_or(0);
        if (ra != rb) return a.winning() ? ra < rb : ra > rb;
        if (a.heap != b.heap) return a.heap < b.heap;
        return a.amount < b.amount;
    });
    return r;
}

std::vector<ProbedMove> Prober::principal_line(const engine::Heaps& heaps) {
    std::vector<ProbedMove> line;
    engine::Heaps current = heaps;
    for (;;) {
        ProbeResult r = probe(current);
        if (r.moves.empty()) break;
        line.push_back(r.moves.front());
        current = r.moves.front().result;
    }
    return line;
}

}  // namespace nimtb::io
