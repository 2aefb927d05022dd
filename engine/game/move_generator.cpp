#include "engine/game/move_generator.h"

#include <algorithm>
#include <set>
#include <utility>

namespace nimtb::engine {

namespace {

// What a move does, by sizes alone: the sizes of the heaps it changes and
// of the parts it leaves of them, each sorted. `child` keeps the heaps'
// order, a split's further parts appended.
std::pair<Heaps, Heaps> shape_of(std::span<const uint32_t> heaps, const Heaps& child) {
    Heaps before, after;
    for (size_t i = 0; i < heaps.size(); ++i) {
        if (i < child.size() && child[i] == heaps[i]) continue;
        before.push_back(heaps[i]);
        if (i < child.size() && child[i]) after.push_back(child[i]);
    }
    for (size_t i = heaps.size(); i < child.size(); ++i)
        if (child[i]) after.push_back(child[i]);
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    return {before, after};
}

}  // namespace

void MoveGenerator::moves(std::span<const uint32_t> heaps, std::vector<Move>& out) const {
    out.clear();
    std::set<std::pair<uint64_t, std::pair<Heaps, Heaps>>> seen;
    Heaps sorted;
    for_each_child(rule_, heaps, [&](const Heaps& child) {
        sorted = child;
        const uint64_t rank = rank_child(universe_, sorted);
        if (seen.insert({rank, shape_of(heaps, child)}).second) out.push_back({child, rank});
    });
}

void MoveGenerator::child_ranks(std::span<const uint32_t> sorted, std::vector<uint64_t>& out) {
    out.clear();
    if (TotalChildren::fits(rule_, universe_)) {
        if (!total_) total_.emplace(rule_, universe_);
        (*total_)(sorted.data(), universe_.rank(sorted), [&](uint64_t c) { out.push_back(c); });
        return;
    }
    if (rule_.take_family() && universe_.is_box()) {
        const uint64_t rank = universe_.rank(sorted);
        auto push = [&](uint32_t, uint32_t, uint64_t child) { out.push_back(child); };
        if (amounts_.all) {
            for_each_take_child<true>(universe_, amounts_, sorted.data(), rank, push);
        } else {
            for_each_take_child<false>(universe_, amounts_, sorted.data(), rank, push);
        }
        return;
    }
    Heaps scratch;
    for_each_child(rule_, sorted, [&](const Heaps& child) {
        scratch = child;
        out.push_back(rank_child(universe_, scratch));
    });
}

}  // namespace nimtb::engine
