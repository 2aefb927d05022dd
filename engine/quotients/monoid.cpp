#include "engine/quotients/monoid.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

namespace nimtb::engine {

uint64_t tokens(std::span<const uint32_t> heaps) {
    uint64_t sum = 0;
    for (uint32_t h : heaps) sum += h;
    return sum;
}

bool smaller_position(std::span<const uint32_t> a, std::span<const uint32_t> b) {
    const uint64_t ta = tokens(a), tb = tokens(b);
    if (ta != tb) return ta < tb;
    if (a.size() != b.size()) return a.size() > b.size();
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

Heaps with_heap(Heaps position, uint32_t heap) {
    position.insert(std::upper_bound(position.begin(), position.end(), heap, std::greater<>()),
                    heap);
    return position;
}

uint32_t BipartiteMonoid::image(std::span<const uint32_t> heaps) const {
    uint32_t x = 0;
    for (uint32_t h : heaps) {
        if (h != 0) x = mul(x, phi[h]);
    }
    return x;
}

uint32_t minimize(const HeapAutomaton& a, std::vector<uint32_t>& block) {
    const size_t letters = a.letters.size();
    block.assign(a.states, 0);
    const bool mixed =
        std::find(a.accept.begin(), a.accept.end(), a.accept[0] ? 0 : 1) != a.accept.end();
    for (uint32_t s = 0; s < a.states; ++s) block[s] = mixed ? a.accept[s] : 0;
    uint32_t blocks = mixed ? 2 : 1;
    std::vector<uint32_t> refined(a.states);
    std::vector<uint32_t> signature(letters + 1);
    std::unordered_map<std::vector<uint32_t>, uint32_t, VectorHash> ids;
    for (;;) {
        ids.clear();
        for (uint32_t s = 0; s < a.states; ++s) {
            signature[0] = block[s];
            for (size_t l = 0; l < letters; ++l) signature[l + 1] = block[a.step(s, l)];
            refined[s] =
                ids.try_emplace(signature, static_cast<uint32_t>(ids.size())).first->second;
        }
        const auto count = static_cast<uint32_t>(ids.size());
        block.swap(refined);
        if (count == blocks) return count;
        blocks = count;
    }
}

BipartiteMonoid monoid_of(const HeapAutomaton& a, const std::vector<uint32_t>& block,
                          uint32_t blocks, uint32_t max_heap) {
    // Dijkstra over blocks: a name grows by a heap, and adding a heap keeps
    // the order, so each block is first reached by its smallest name. Each
    // element after the identity is its parent's name with one letter more.
    struct Entry {
        CountedPosition name;
        uint32_t state, parent, letter;
    };
    auto later = [](const Entry& x, const Entry& y) { return y.name < x.name; };
    std::priority_queue<Entry, std::vector<Entry>, decltype(later)> queue(later);
    std::vector<uint32_t> element_of(blocks, UINT32_MAX);
    std::vector<uint32_t> state_of, parent, letter;
    std::vector<Heaps> names;
    queue.push({CountedPosition{}, 0, 0, 0});
    while (!queue.empty()) {
        Entry e = queue.top();
        queue.pop();
        if (element_of[block[e.state]] != UINT32_MAX) continue;
        const auto x = static_cast<uint32_t>(names.size());
        element_of[block[e.state]] = x;
        state_of.push_back(e.state);
        parent.push_back(e.parent);
        letter.push_back(e.letter);
        for (uint32_t l = 0; l < a.letters.size(); ++l) {
            const uint32_t t = a.step(e.state, l);
            if (element_of[block[t]] == UINT32_MAX)
                queue.push({e.name.with(a.letters[l]), t, x, l});
        }
        names.push_back(std::move(e.name.heaps));
    }
    BipartiteMonoid m;
    m.order = static_cast<uint32_t>(names.size());
    // x times y: read y's name from x's state, one letter after its parent's.
    m.table.assign(size_t{m.order} * m.order, 0);
    std::vector<uint32_t> reached(m.order);
    for (uint32_t x = 0; x < m.order; ++x) {
        reached[0] = state_of[x];
        for (uint32_t y = 1; y < m.order; ++y) reached[y] = a.step(reached[parent[y]], letter[y]);
        for (uint32_t y = 0; y < m.order; ++y)
            m.table[size_t{x} * m.order + y] = element_of[block[reached[y]]];
    }
    std::vector<int> letter_of(size_t{max_heap} + 1, -1);
    for (size_t l = 0; l < a.letters.size(); ++l) {
        if (a.letters[l] <= max_heap) letter_of[a.letters[l]] = static_cast<int>(l);
    }
    m.p.resize(m.order);
    for (uint32_t x = 0; x < m.order; ++x) m.p[x] = a.accept[state_of[x]];
    m.phi.assign(size_t{max_heap} + 1, 0);
    for (uint32_t h = 1; h <= max_heap; ++h) {
        if (letter_of[h] >= 0)
            m.phi[h] = element_of[block[a.step(0, static_cast<size_t>(letter_of[h]))]];
    }
    m.name = std::move(names);
    return m;
}

namespace {

// `m` acting on its elements: one letter for each heap up to max_heap whose
// phi is not the identity, P accepted.
HeapAutomaton automaton_of(const BipartiteMonoid& m, uint32_t max_heap) {
    HeapAutomaton a;
    a.states = m.order;
    for (uint32_t h = 1; h <= max_heap; ++h) {
        if (m.phi[h] != 0) a.letters.push_back(h);
    }
    a.next.resize(size_t{a.states} * a.letters.size());
    for (uint32_t x = 0; x < m.order; ++x) {
        for (size_t l = 0; l < a.letters.size(); ++l) {
            a.next[x * a.letters.size() + l] = m.mul(x, m.phi[a.letters[l]]);
        }
    }
    a.accept = m.p;
    return a;
}

}  // namespace

BipartiteMonoid submonoid(const BipartiteMonoid& m, uint32_t max_heap) {
    const HeapAutomaton a = automaton_of(m, max_heap);
    std::vector<uint32_t> block(m.order);
    for (uint32_t x = 0; x < m.order; ++x) block[x] = x;
    return monoid_of(a, block, m.order, max_heap);
}

std::vector<uint32_t> quotient_orders(const BipartiteMonoid& m) {
    std::vector<uint32_t> orders{1};
    std::vector<uint32_t> block;
    for (uint32_t h = 1; h <= m.max_heap(); ++h) {
        orders.push_back(minimize(automaton_of(submonoid(m, h), h), block));
    }
    return orders;
}

}  // namespace nimtb::engine
