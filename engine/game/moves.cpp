#include "engine/game/moves.h"

namespace nimtb::engine {

namespace {

// "a", "a and b", "a, b and c".
std::string and_list(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += i + 1 == items.size() ? " and " : ", ";
        out += items[i];
    }
    return out;
}

}  // namespace

std::string move_phrase(uint64_t heap, std::vector<uint64_t> leaves) {
    std::erase(leaves, 0);
    std::sort(leaves.begin(), leaves.end());
    uint64_t taken = heap;
    std::vector<std::string> parts;
    for (uint64_t l : leaves) {
        taken -= l;
        parts.push_back(std::to_string(l));
    }
    if (taken == 0) return "split " + std::to_string(heap) + " into " + and_list(parts);
    std::string out = "take " + std::to_string(taken) + " from the " + std::to_string(heap);
    if (parts.size() >= 2) out += ", leaving " + and_list(parts);
    return out;
}

std::string describe_move(std::span<const uint32_t> before, std::span<const uint32_t> after) {
    std::vector<size_t> changed;
    for (size_t i = 0; i < before.size(); ++i) {
        if (after[i] != before[i]) changed.push_back(i);
    }
    auto n = [](uint32_t x) { return std::to_string(x); };
    if (after.size() > before.size() && changed.size() == 1) {  // a split: parts appended
        std::vector<uint64_t> leaves{after[changed[0]]};
        leaves.insert(leaves.end(), after.begin() + static_cast<ptrdiff_t>(before.size()),
                      after.end());
        return move_phrase(before[changed[0]], std::move(leaves));
    }
    if (changed.empty()) return "pass";
    std::vector<std::string> from, each;
    bool same = true;
    const uint32_t first = before[changed[0]] - after[changed[0]];
    for (size_t i : changed) {
        const uint32_t s = before[i] - after[i];
        same &= s == first;
        from.push_back("from the " + n(before[i]));
        each.push_back(n(s) + " from the " + n(before[i]));
    }
    if (same) return "take " + n(first) + " " + and_list(from);
    return "take " + and_list(each);
}

std::optional<LineShape> line_shape(const Rule& rule, const Universe& u) {
    if (!rule.take_family() || !u.is_box()) return std::nullopt;
    LineShape shape;
    const uint32_t h = u.max_heap_size();
    for (uint32_t s = h; s >= 1 && shape.lag == 0; --s) {
        if (!rule.allows(s)) shape.lag = s;
    }
    for (uint32_t s = 1; s < shape.lag; ++s) {
        if (rule.allows(s)) shape.near.push_back(s);
    }
    return shape;
}

uint64_t rank_child(const Universe& u, Heaps& child) {
    std::sort(child.begin(), child.end());
    size_t zeros = 0;
    while (zeros < child.size() && child[zeros] == 0) ++zeros;
    return u.rank_compact(child.data() + zeros, static_cast<unsigned>(child.size() - zeros));
}

void check_closed(const Rule& rule, const Universe& u) {
    if (!rule.adds_heaps()) return;
    if (u.is_box()) {
        throw InputError("the rule " + rule.canonical() +
                         " splits heaps, so a universe of at most K heaps of at most H tokens "
                         "does not hold its moves; solve it with " +
                         mention(Option::max_total) + " (every position of at most N tokens)");
    }
    if (u.max_heaps() < u.max_total()) {
        throw InputError("the rule " + rule.canonical() + " splits heaps, so a limit of " +
                         std::to_string(u.max_heaps()) + " heaps does not hold its moves; give " +
                         mention(Option::max_total_only));
    }
}

}  // namespace nimtb::engine
