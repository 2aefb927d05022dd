#include "io/probe.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nimtb::io {

Prober::Prober(const std::string& path) : table_(path), moves_(table_.rule(), table_.universe()) {}

namespace {

// Best first: winning moves by fastest win, then losing moves by slowest
// loss; ties by heap, then amount (then as generated: the sort is stable).
bool better(const ProbedMove& a, const ProbedMove& b) {
    if (a.winning() != b.winning()) return a.winning();
    const uint32_t ra = a.remoteness.value_or(0), rb = b.remoteness.value_or(0);
    if (ra != rb) return a.winning() ? ra < rb : ra > rb;
    if (a.heap != b.heap) return a.heap < b.heap;
    return a.amount < b.amount;
}

}  // namespace

ProbeResult Prober::probe(const engine::Heaps& heaps) {
    ProbeResult r = probe_unordered(heaps, true);
    std::stable_sort(r.moves.begin(), r.moves.end(), better);
    return r;
}

std::optional<ProbedMove> Prober::best_move(const engine::Heaps& heaps) {
    ProbeResult r = probe_unordered(heaps, false);
    // The first of the least: the front of the stable sort.
    const auto best = std::min_element(r.moves.begin(), r.moves.end(), better);
    if (best == r.moves.end()) return std::nullopt;
    best->phrase = engine::describe_move(heaps, best->result);
    return std::move(*best);
}

ProbeResult Prober::probe_unordered(const engine::Heaps& heaps, bool phrases) {
    const engine::Universe& u = table_.universe();
    const engine::Heaps sorted = u.normalise(heaps);
    ProbeResult r;
    r.heaps = heaps;
    r.rank = u.rank(sorted);
    for (engine::Move& m : moves_.moves(heaps)) {
        ProbedMove p;
        if (phrases) p.phrase = engine::describe_move(heaps, m.result);
        // The result keeps the heaps' order, a split's other parts appended:
        // the heaps that differ are the ones the move touched, and the parts
        // beyond the position's length belong to the one heap a split touched
        // (a split lowers the heap it splits, so that heap is a touch).
        for (size_t i = 0; i < heaps.size() && i < m.result.size(); ++i) {
            if (m.result[i] == heaps[i]) continue;
            Touch t{static_cast<unsigned>(i) + 1, heaps[i], {}};
            if (m.result[i]) t.leaves.push_back(m.result[i]);
            p.touches.push_back(std::move(t));
        }
        for (size_t i = heaps.size(); i < m.result.size(); ++i) {
            if (m.result[i] && !p.touches.empty()) p.touches.back().leaves.push_back(m.result[i]);
        }
        for (Touch& t : p.touches) std::sort(t.leaves.begin(), t.leaves.end());
        // A move of one heap is also told as (heap, amount).
        if (p.touches.size() == 1) {
            const Touch& t = p.touches.front();
            p.heap = t.heap;
            p.heap_size = t.size;
            p.amount = t.size;
            for (uint32_t l : t.leaves) p.amount -= l;
        }
        p.result = std::move(m.result);
        p.child_rank = m.child_rank;
        r.moves.push_back(std::move(p));
    }
    // The position and its children looked up together: each chunk they
    // touch is read once, and decoded only as far as it is needed.
    std::vector<uint64_t> ranks{r.rank};
    for (const ProbedMove& p : r.moves) ranks.push_back(p.child_rank);
    const bool rem = table_.has_remoteness();
    std::vector<uint32_t> values(ranks.size()), remoteness(rem ? ranks.size() : 0);
    table_.look_up(ranks, values, remoteness);
    r.value = values[0];
    if (rem) r.remoteness = remoteness[0];
    for (size_t i = 1; i < ranks.size(); ++i) {
        r.moves[i - 1].value = values[i];
        if (rem) r.moves[i - 1].remoteness = remoteness[i];
    }
    return r;
}

std::vector<ProbedMove> Prober::principal_line(const engine::Heaps& heaps) {
    std::vector<ProbedMove> line;
    engine::Heaps current = heaps;
    // Each step's best move only, without wording the others: a long game's
    // line probes thousands of positions of thousands of moves each.
    while (std::optional<ProbedMove> best = best_move(current)) {
        current = best->result;
        line.push_back(std::move(*best));
    }
    return line;
}

}  // namespace nimtb::io
