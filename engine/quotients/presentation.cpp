// A quotient's presentation (quotient.h): generators, relations, and each
// element's smallest word.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/quotients/quotient.h"

namespace nimtb::engine {

void present_quotient(MisereQuotient& result) {
    const BipartiteMonoid& m = result.monoid;
    std::vector<uint8_t> reach(m.order, 0);
    reach[0] = 1;
    for (uint32_t h = 1; h <= m.max_heap(); ++h) {
        if (reach[m.phi[h]]) continue;
        result.generators.push_back(h);
        // Close the reached set under every generator so far.
        std::vector<uint32_t> todo;
        for (uint32_t x = 0; x < m.order; ++x) {
            if (reach[x]) todo.push_back(x);
        }
        while (!todo.empty()) {
            const uint32_t x = todo.back();
            todo.pop_back();
            for (uint32_t g : result.generators) {
                const uint32_t y = m.mul(x, m.phi[g]);
                if (!reach[y]) reach[y] = 1, todo.push_back(y);
            }
        }
    }
    // Normal forms: each element's smallest word in the generators; they are
    // closed under sub-multisets, so the smallest words that are not normal
    // forms, each equal to its element's normal form, present the monoid.
    HeapAutomaton a;
    a.states = m.order;
    a.letters = result.generators;
    for (uint32_t x = 0; x < m.order; ++x) {
        for (uint32_t g : a.letters) a.next.push_back(m.mul(x, m.phi[g]));
    }
    a.accept = m.p;
    std::vector<uint32_t> block(m.order);
    for (uint32_t x = 0; x < m.order; ++x) block[x] = x;
    const BipartiteMonoid words = monoid_of(a, block, m.order, m.max_heap());
    std::vector<Heaps> normal(m.order);
    for (const Heaps& w : words.name) normal[m.image(w)] = w;
    result.words = normal;
    std::set<Heaps> lefts;
    for (const Heaps& w : words.name) {
        for (uint32_t g : result.generators) {
            const Heaps left = with_heap(w, g);
            if (normal[m.image(left)] == left) continue;
            bool minimal = true;
            for (size_t i = 0; minimal && i < left.size(); ++i) {
                Heaps part = left;
                part.erase(part.begin() + static_cast<std::ptrdiff_t>(i));
                minimal = normal[m.image(part)] == part;
            }
            if (minimal) lefts.insert(left);
        }
    }
    std::vector<Heaps> sorted(lefts.begin(), lefts.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const Heaps& x, const Heaps& y) { return smaller_position(x, y); });
    for (const Heaps& left : sorted) result.relations.push_back({left, normal[m.image(left)]});
}

std::string generator_name(size_t index) {
    if (index < 26) return std::string(1, static_cast<char>('a' + index));
    return fmt::format("g{}", index + 1);
}

std::string word_text(const MisereQuotient& q, const Heaps& word) {
    std::string out;
    for (size_t g = 0; g < q.generators.size(); ++g) {
        const auto power = std::count(word.begin(), word.end(), q.generators[g]);
        if (power == 0) continue;
        if (!out.empty()) out += ' ';
        out += generator_name(g);
        if (power > 1) out += fmt::format("^{}", power);
    }
    return out.empty() ? "1" : out;
}

bool same_quotient(const BipartiteMonoid& q, const BipartiteMonoid& r, uint32_t shift) {
    if (r.max_heap() != q.max_heap() + shift || r.order != q.order) return false;
    for (uint32_t h = 1; h <= shift; ++h) {
        if (r.phi[h] != 0) return false;
    }
    std::vector<uint32_t> f(q.order);
    std::vector<bool> hit(r.order, false);
    for (uint32_t x = 0; x < q.order; ++x) {
        Heaps shifted = q.name[x];
        for (uint32_t& h : shifted) h += shift;
        f[x] = r.image(shifted);
        if (hit[f[x]] || q.p[x] != r.p[f[x]]) return false;
        hit[f[x]] = true;
    }
    for (uint32_t h = 1; h <= q.max_heap(); ++h) {
        if (f[q.phi[h]] != r.phi[h + shift]) return false;
    }
    for (uint32_t x = 0; x < q.order; ++x) {
        for (uint32_t y = 0; y < q.order; ++y) {
            if (f[q.mul(x, y)] != r.mul(f[x], f[y])) return false;
        }
    }
    return true;
}

}  // namespace nimtb::engine
