#include "io/probe.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace nimtb::io {

Prober::Prober(const std::string& path) : table_(path), moves_(table_.rule(), table_.universe()) {}

namespace {

// What orders moves: winning first, then by fastest win or slowest loss;
// ties by heap, then amount (0 and 0 for a move of several heaps).
struct MoveKey {
    bool winning;
    uint32_t remoteness;
    unsigned heap;
    uint32_t amount;
};

bool before(const MoveKey& a, const MoveKey& b) {
    if (a.winning != b.winning) return a.winning;
    if (a.remoteness != b.remoteness)
        return a.winning ? a.remoteness < b.remoteness : a.remoteness > b.remoteness;
    if (a.heap != b.heap) return a.heap < b.heap;
    return a.amount < b.amount;
}

// Best first (then as generated: the sort is stable).
bool better(const ProbedMove& a, const ProbedMove& b) {
    return before({a.winning(), a.remoteness.value_or(0), a.heap, a.amount},
                  {b.winning(), b.remoteness.value_or(0), b.heap, b.amount});
}

// The heaps a move touched, as the ProbedMove tells them. The result keeps
// the heaps' order, a split's other parts appended: the heaps that differ are
// the ones the move touched, and the parts beyond the position's length
// belong to the one heap a split touched (a split lowers the heap it splits,
// so that heap is a touch).
std::vector<Touch> touches_of(const engine::Heaps& heaps, const engine::Heaps& result) {
    std::vector<Touch> touches;
    for (size_t i = 0; i < heaps.size() && i < result.size(); ++i) {
        if (result[i] == heaps[i]) continue;
        Touch t{static_cast<unsigned>(i) + 1, heaps[i], {}};
        if (result[i]) t.leaves.push_back(result[i]);
        touches.push_back(std::move(t));
    }
    for (size_t i = heaps.size(); i < result.size(); ++i) {
        if (result[i] && !touches.empty()) touches.back().leaves.push_back(result[i]);
    }
    for (Touch& t : touches) std::sort(t.leaves.begin(), t.leaves.end());
    return touches;
}

// (heap, amount) of a move as touches_of() and described() tell it, without
// building its touches: the one touched heap (1-based) and what was taken
// from it, or 0 and 0 for a move of several heaps.
std::pair<unsigned, uint32_t> one_heap_move(const engine::Heaps& heaps,
                                            const engine::Heaps& result) {
    size_t touched = 0, at = 0;
    for (size_t i = 0; i < heaps.size() && i < result.size(); ++i) {
        if (result[i] != heaps[i]) ++touched, at = i;
    }
    if (touched != 1) return {0, 0};
    uint32_t amount = heaps[at] - result[at];
    for (size_t i = heaps.size(); i < result.size(); ++i) amount -= result[i];
    return {static_cast<unsigned>(at) + 1, amount};
}

// A move of `heaps` as the prober tells it, its value not yet looked up.
ProbedMove described(const engine::Heaps& heaps, engine::Move m) {
    ProbedMove p;
    p.phrase = engine::describe_move(heaps, m.result);
    p.touches = touches_of(heaps, m.result);
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
    return p;
}

}  // namespace

std::optional<ProbedMove> Prober::best_move(const engine::Heaps& heaps) {
    // A position of a wide table has thousands of moves and `dump` asks this
    // of every position: the children are ranked and looked up without
    // building a move each, and only the best is built. probe()'s first
    // move, though repeated moves are not removed here: a repeat follows the
    // move it repeats (children come heap by heap) with the same value,
    // remoteness and amount and a heap no lower, so it is never the first
    // of the least (TableFiles.BestMoveIsTheProbesFirst checks it).
    const engine::Universe& u = table_.universe();
    u.normalise(heaps);  // throws InputError for a position outside the table
    ranks_.clear();
    keys_.clear();
    engine::Heaps scratch;
    engine::for_each_child(rule(), heaps, [&](const engine::Heaps& child) {
        scratch = child;
        ranks_.push_back(engine::rank_child(u, scratch));
        keys_.push_back(one_heap_move(heaps, child));
    });
    if (keys_.empty()) return std::nullopt;
    const bool rem = table_.has_remoteness();
    values_.resize(ranks_.size());
    remoteness_.resize(rem ? ranks_.size() : 0);
    table_.look_up(ranks_, values_, remoteness_);
    size_t best = 0;
    for (size_t i = 1; i < keys_.size(); ++i) {
        const auto key = [&](size_t j) {
            return MoveKey{values_[j] == 0, rem ? remoteness_[j] : 0, keys_[j].first,
                           keys_[j].second};
        };
        if (before(key(i), key(best))) best = i;
    }
    // The best child again, by its place among the children.
    size_t at = 0;
    std::optional<ProbedMove> out;
    engine::for_each_child(rule(), heaps, [&](const engine::Heaps& child) {
        if (at++ != best) return;
        out = described(heaps, engine::Move{child, ranks_[best]});
        out->value = values_[best];
        if (rem) out->remoteness = remoteness_[best];
    });
    return out;
}

ProbeResult Prober::probe(const engine::Heaps& heaps) {
    const engine::Universe& u = table_.universe();
    const engine::Heaps sorted = u.normalise(heaps);
    ProbeResult r;
    r.heaps = heaps;
    r.rank = u.rank(sorted);
    for (engine::Move& m : moves_.moves(heaps)) r.moves.push_back(described(heaps, std::move(m)));
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
    std::stable_sort(r.moves.begin(), r.moves.end(), better);
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
