// Step 2 of quotient.h: the exact check, as the least failure.
#include <set>

#include "engine/quotients/steps.h"

namespace nimtb::engine::quotient_steps {

// The smallest position that `m` predicts inconsistently with its options'
// predictions: predicted P with no move or with a move to a position
// predicted P, or predicted N with moves and none to a position predicted
// P. Every position smaller than it is then predicted consistently, so (by
// induction over the order, options being smaller) correctly, and it is
// itself predicted wrongly. nullopt when there is none: `m` predicts every
// position whose heaps have at most m.max_heap() tokens.
//
// A position G is followed by (phi(G), has moves, T(G)), T(G) the elements
// of its options: T(G + h) = T(G) phi(h) ∪ phi(G) T(h). A failure predicted
// P has a move, in some heap h, to P: then the smallest position Y_y of y =
// phi(G - h) with h added is one too, so the least of these is min over y
// and h of Y_y + h. Failures predicted N are found by walking positions in
// order: when G and H have one element, both have moves or neither, and
// G < H with U(T(G)) ⊆ U(T(H)) (U(T) the contexts z with tz in P for some t
// in T), every failure H + X predicted N has G + X before it, predicted N
// and failing too, so H is not walked further.
//
// With a cap (limits.capped_heap, a heap that no move makes), only
// positions with at most max_copies copies of the capped heap are asked
// about; they are closed under moves, so the induction holds among them.
// Smallest positions are then taken per (element, copies): a smallest
// position less a heap is still the smallest of its pair. And G covers H
// only when it has no more copies, so that G + X is asked about whenever
// H + X is. (Should the capped heap share its letter with a smaller heap,
// that heap stands for it uncapped: more positions are asked about, never
// fewer.)
std::optional<QuotientFailure> least_failure(const BipartiteMonoid& m,
                                             const std::vector<std::vector<Heaps>>& moves,
                                             const Limits& limits) {
    if (m.p[0]) return QuotientFailure{Heaps{}, true};
    const uint32_t q = m.order;
    const size_t nw = words(m);
    // Letters: one per kind of heap (phi, has moves, option elements), the
    // smallest heap of each; a larger heap of a kind leads to larger
    // positions that fail exactly when the smaller one's do.
    struct Letter {
        uint32_t heap, x;
        std::vector<uint32_t> options;  // elements of the heap's options
    };
    std::vector<Letter> letters;
    {
        std::set<std::pair<uint32_t, std::vector<uint32_t>>> seen;
        for (uint32_t h = 1; h <= m.max_heap(); ++h) {
            std::vector<uint32_t> t = images(m, moves[h]);
            if (seen.emplace(m.phi[h], t).second) letters.push_back({h, m.phi[h], std::move(t)});
        }
    }
    std::vector<uint32_t> letter_heaps;
    for (const Letter& l : letters) letter_heaps.push_back(l.heap);
    // Copies of the capped heap a position may hold: 0 to levels - 1.
    const uint32_t levels = limits.capped_heap ? limits.max_copies + 1 : 1;
    auto capped = [&](size_t letter) -> uint32_t {
        return limits.capped_heap && letters[letter].heap == limits.capped_heap;
    };
    // Each state's smallest position, a state being an element and its
    // copies (x levels + c); `over` stands for every position past the cap.
    const uint64_t states = uint64_t{q} * levels, over = states;
    std::vector<Heaps> name(states);
    std::vector<uint8_t> named(states, 0);
    Numbering number(static_cast<unsigned>(std::bit_width(states)));
    number.set(over, 0);  // met already: never walked
    in_position_order(
        letter_heaps,
        [&](uint64_t xc, size_t l) -> uint64_t {
            const uint64_t c = xc % levels + capped(l);
            if (xc == over || c == levels) return over;
            return uint64_t{m.mul(uint32_t(xc / levels), letters[l].x)} * levels + c;
        },
        [&](uint64_t xc, const Heaps& position) { name[xc] = position, named[xc] = 1; }, number,
        m.max_heap(), limits);
    // The least failure predicted P with a move to P.
    std::optional<Heaps> least;
    for (uint64_t yc = 0; yc < states; ++yc) {
        if (!named[yc]) continue;
        const auto y = static_cast<uint32_t>(yc / levels);
        for (size_t li = 0; li < letters.size(); ++li) {
            const Letter& l = letters[li];
            if (yc % levels + capped(li) == levels) continue;
            if (!m.p[m.mul(y, l.x)]) continue;
            for (uint32_t t : l.options) {
                if (!m.p[m.mul(y, t)]) continue;
                Heaps g = with_heap(name[yc], l.heap);
                if (!least || smaller_position(g, *least)) least = std::move(g);
                break;
            }
        }
    }
    std::optional<QuotientFailure> failure;
    if (least) failure = QuotientFailure{*least, true};
    // The contexts in which each element is P.
    std::vector<Bits> p_of(q, Bits(nw, 0));
    for (uint32_t t = 0; t < q; ++t) add_p_contexts(m, t, p_of[t]);
    struct State {
        Heaps position;
        uint32_t x, copies;  // copies of the capped heap
        bool moves;
        std::vector<uint32_t> options;
        Bits u;
    };
    std::vector<State> kept{{Heaps{}, 0, 0, false, {}, Bits(nw, 0)}};
    std::vector<std::vector<uint32_t>> frontier(size_t{q} * 2);  // kept states by (x, moves)
    const uint64_t least_tokens = least ? tokens(*least) : 0;
    PositionWalk walk(letter_heaps);
    auto none = [](uint32_t) { return uint64_t{0}; };
    walk.expand(0, 0, none);
    std::vector<uint32_t> stamp(q, 0);
    uint32_t stamp_now = 0;
    State s;
    walk.run([&](uint32_t node) -> const Heaps& { return kept[node].position; },
             [](uint64_t) { return true; },
             [&](uint32_t node, uint32_t letter, uint64_t, uint64_t tokens) {
                 const State& parent = kept[node];
                 const Letter& l = letters[letter];
                 if (least && (tokens > least_tokens ||
                               (tokens == least_tokens &&
                                !smaller_position(with_heap(parent.position, l.heap), *least)))) {
                     return false;
                 }
                 s.copies = parent.copies + capped(letter);
                 if (s.copies == levels) return true;  // past the cap: not asked about
                 s.x = m.mul(parent.x, l.x);
                 s.moves = parent.moves || !l.options.empty();
                 s.options.clear();
                 s.u.assign(nw, 0);
                 ++stamp_now;
                 auto add = [&](uint32_t t) {
                     if (stamp[t] == stamp_now) return;
                     stamp[t] = stamp_now;
                     s.options.push_back(t);
                     for (size_t i = 0; i < nw; ++i) s.u[i] |= p_of[t][i];
                 };
                 for (uint32_t t : parent.options) add(m.mul(t, l.x));
                 for (uint32_t t : l.options) add(m.mul(parent.x, t));
                 if (m.p[s.x] ? !s.moves : s.moves && !bit(s.u, 0)) {
                     failure = QuotientFailure{with_heap(parent.position, l.heap), bool(m.p[s.x])};
                     return false;
                 }
                 std::vector<uint32_t>& same = frontier[size_t{s.x} * 2 + s.moves];
                 for (uint32_t k : same) {
                     if (kept[k].copies > s.copies) continue;
                     const Bits& v = kept[k].u;
                     size_t i = 0;
                     while (i < nw && (v[i] & ~s.u[i]) == 0) ++i;
                     if (i == nw) return true;  // dominated
                 }
                 // Each kept position: its contexts, options and position,
                 // and a successor per letter waiting in the walk.
                 limits.within_budget(kept.size() * (nw * 8 + 128 + letters.size() * 16),
                                      m.max_heap(), "checking a candidate");
                 const auto id = static_cast<uint32_t>(kept.size());
                 same.push_back(id);
                 s.position = with_heap(parent.position, l.heap);
                 kept.push_back(std::move(s));
                 s = State{};
                 walk.expand(id, tokens, none);
                 return true;
             },
             limits);
    return failure;
}

}  // namespace nimtb::engine::quotient_steps
