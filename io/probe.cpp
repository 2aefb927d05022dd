#include "io/probe.h"

#include <algorithm>
#include <cstdint>
#include <vector>

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
    for (engine::Move& m : moves_.moves(heaps)) {
        ProbedMove p;
        p.phrase = engine::describe_move(heaps, m.result);
        // A move that lowers one heap is also told as (heap, amount).
        if (m.result.size() == heaps.size()) {
            for (size_t i = 0; i < heaps.size(); ++i) {
                if (m.result[i] == heaps[i]) continue;
                if (p.heap) {  // a second heap changed
                    p.heap = 0;
                    break;
                }
                p.heap = static_cast<unsigned>(i) + 1;
            }
            if (p.heap) {
                p.heap_size = heaps[p.heap - 1];
                p.amount = heaps[p.heap - 1] - m.result[p.heap - 1];
            }
        }
        p.result = std::move(m.result);
        p.child_rank = m.child_rank;
        r.moves.push_back(std::move(p));
    }
    // The children looked up together: each chunk they touch is read once.
    std::vector<uint64_t> ranks;
    for (const ProbedMove& p : r.moves) ranks.push_back(p.child_rank);
    std::vector<uint32_t> found(ranks.size());
    table_.values(ranks, found);
    for (size_t i = 0; i < ranks.size(); ++i) r.moves[i].value = found[i];
    if (table_.has_remoteness()) {
        table_.remotenesses(ranks, found);
        for (size_t i = 0; i < ranks.size(); ++i) r.moves[i].remoteness = found[i];
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
