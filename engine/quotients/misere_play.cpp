#include "engine/quotients/misere_play.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/game/moves.h"

namespace nimtb::engine {

namespace {

MisereMove make_move(uint64_t heap, std::vector<uint64_t> leaves) {
    std::sort(leaves.begin(), leaves.end());
    MisereMove m;
    m.heap = heap;
    m.taken = heap;
    for (uint64_t l : leaves) m.taken -= l;
    m.phrase = move_phrase(heap, leaves);
    m.leaves = std::move(leaves);
    return m;
}

// Calls visit(leaves) for moves of heap h that meet every element an
// option of h can have: all of them within the quotient's heaps; beyond
// (a proven quotient of an octal code or a subtraction game), splits with
// the smaller part below preperiod + period stand for the rest, as moving
// a period from one part to the other keeps both elements.
template <class Visit>
bool any_option(const Rule& rule, const MisereQuotient& q, uint64_t h, Visit&& visit) {
    if (h <= q.monoid.max_heap()) {
        const uint32_t before[] = {static_cast<uint32_t>(h)};
        bool found = false;
        for_each_child(rule, before, [&](std::span<const uint32_t> child) {
            if (found) return;
            std::vector<uint64_t> leaves;
            for (uint32_t part : child) {
                if (part) leaves.push_back(part);
            }
            found = visit(std::move(leaves));
        });
        return found;
    }
    if (rule.kind() == RuleKind::subtract) {
        for (const AmountRange& r : rule.ranges()) {
            for (uint64_t s = r.first; s <= r.last && s <= h; ++s) {
                if (visit(s == h ? std::vector<uint64_t>{} : std::vector<uint64_t>{h - s}))
                    return true;
            }
        }
        return false;
    }
    const std::vector<uint8_t>& digits = rule.code_digits();
    const uint64_t reach = uint64_t{q.proof->preperiod} + q.proof->period;
    for (uint64_t k = 0; k < digits.size() && k <= h; ++k) {
        const uint8_t d = digits[k];
        if ((d & 1) && h == k && visit(std::vector<uint64_t>{})) return true;
        if ((d & 2) && h > k && visit(std::vector<uint64_t>{h - k})) return true;
        if (d & 4) {
            for (uint64_t a = 1; a <= reach && 2 * a <= h - k; ++a) {
                if (visit(std::vector<uint64_t>{h - k - a, a})) return true;
            }
        }
    }
    return false;
}

}  // namespace

uint32_t position_element(const MisereQuotient& q, std::span<const uint64_t> heaps) {
    uint32_t x = 0;
    for (uint64_t h : heaps) x = q.monoid.mul(x, heap_element(q, h));
    return x;
}

std::optional<MisereMove> misere_winning_move(const Rule& rule, const MisereQuotient& q,
                                              std::span<const uint64_t> heaps) {
    const BipartiteMonoid& m = q.monoid;
    if (m.p[position_element(q, heaps)]) return std::nullopt;
    for (size_t i = 0; i < heaps.size(); ++i) {
        if (std::find(heaps.begin(), heaps.begin() + static_cast<std::ptrdiff_t>(i), heaps[i]) !=
            heaps.begin() + static_cast<std::ptrdiff_t>(i))
            continue;  // an equal heap was tried
        uint32_t rest = 0;
        for (size_t j = 0; j < heaps.size(); ++j) {
            if (j != i) rest = m.mul(rest, heap_element(q, heaps[j]));
        }
        std::optional<MisereMove> move;
        any_option(rule, q, heaps[i], [&](std::vector<uint64_t> leaves) {
            if (!m.p[m.mul(rest, position_element(q, leaves))]) return false;
            move = make_move(heaps[i], std::move(leaves));
            move->index = i;
            return true;
        });
        if (move) return move;
    }
    return std::nullopt;
}

}  // namespace nimtb::engine
