#include "engine/quotients/structure.h"

#include <algorithm>
#include <bit>
#include <unordered_set>

#include "engine/base/errors.h"
#include "engine/quotients/monoid.h"
#include "engine/quotients/steps.h"

namespace nimtb::engine {

namespace {

constexpr const char* NOT_A_MONOID =
    "a quotient's structure needs a commutative monoid, and this table is not one";

// x^omega for every x: the powers of x, followed until one repeats, end in
// a cycle; the one idempotent of the cycle is x^omega. `walk_of` remembers
// which element's walk last met each power, so each walk costs its own
// length.
std::vector<uint32_t> idempotent_powers(const BipartiteMonoid& m) {
    std::vector<uint32_t> omega(m.order);
    std::vector<uint32_t> walk_of(m.order, UINT32_MAX);
    std::vector<uint32_t> powers;
    for (uint32_t x = 0; x < m.order; ++x) {
        powers.clear();
        uint32_t y = x;
        while (walk_of[y] != x) {
            walk_of[y] = x;
            powers.push_back(y);
            y = m.mul(y, x);
        }
        // y is the first power met twice: the cycle runs from it to the end.
        const auto cycle = std::find(powers.begin(), powers.end(), y);
        const auto e =
            std::find_if(cycle, powers.end(), [&](uint32_t c) { return m.mul(c, c) == c; });
        if (e == powers.end()) throw InputError(NOT_A_MONOID);  // a cycle of powers is a group
        omega[x] = *e;
    }
    return omega;
}

// The number of distinct principal ideals x Q, each held as a bit set.
uint32_t count_principal_ideals(const BipartiteMonoid& m) {
    std::unordered_set<quotient_steps::Bits, VectorHash> ideals;
    for (uint32_t x = 0; x < m.order; ++x) {
        quotient_steps::Bits ideal(quotient_steps::words(m), 0);
        for (uint32_t y = 0; y < m.order; ++y) quotient_steps::set_bit(ideal, m.mul(x, y));
        ideals.insert(std::move(ideal));
    }
    return static_cast<uint32_t>(ideals.size());
}

// n when (m, P) is T_n, by the conditions in structure.h.
std::optional<uint32_t> tame_index(const BipartiteMonoid& m, const QuotientStructure& s) {
    const auto p_size = std::count(m.p.begin(), m.p.end(), 1);
    if (m.order == 1) return p_size == 0 ? std::optional<uint32_t>(0) : std::nullopt;
    if (m.order == 2) {  // {1, a}, a^2 = 1, P = {a}
        return m.mul(1, 1) == 0 && p_size == 1 && m.p[1] ? std::optional<uint32_t>(1)
                                                         : std::nullopt;
    }
    // {1, a} and the kernel K, a group of order 2^n >= 4 of exponent 2.
    const std::vector<uint32_t>& k = s.kernel;
    if (s.idempotents.size() != 2 || k.size() + 2 != m.order || k.size() < 4 ||
        !std::has_single_bit(k.size())) {
        return std::nullopt;
    }
    uint32_t a = 1;
    while (std::binary_search(k.begin(), k.end(), a)) ++a;
    const uint32_t z = s.kernel_identity;
    if (m.mul(a, a) != 0 || m.mul(a, z) == z || p_size != 2 || !m.p[a] || !m.p[z]) {
        return std::nullopt;
    }
    for (uint32_t x : k) {
        if (m.mul(x, x) != z) return std::nullopt;
    }
    return static_cast<uint32_t>(std::countr_zero(k.size()));
}

}  // namespace

QuotientStructure quotient_structure(const BipartiteMonoid& m) {
    QuotientStructure s;
    s.idempotent_power = idempotent_powers(m);
    for (uint32_t x = 0; x < m.order; ++x) {
        if (m.mul(x, x) == x)
            s.idempotents.push_back(IdempotentPart{.idempotent = x,
                                                   .subgroup = {},
                                                   .component = {},
                                                   .lower_covers = {},
                                                   .p_in_subgroup = {}});
    }
    auto part_of = [&](uint32_t e) -> IdempotentPart& {
        return *std::find_if(s.idempotents.begin(), s.idempotents.end(),
                             [&](const IdempotentPart& part) { return part.idempotent == e; });
    };
    for (uint32_t x = 0; x < m.order; ++x) {
        IdempotentPart& part = part_of(s.idempotent_power[x]);
        part.component.push_back(x);
        if (m.mul(x, part.idempotent) == x) {
            part.subgroup.push_back(x);
            if (m.p[x]) part.p_in_subgroup.push_back(x);
        }
    }
    // e < f when e f = e; e is a lower cover of f when no idempotent lies between.
    auto below = [&](uint32_t e, uint32_t f) { return e != f && m.mul(e, f) == e; };
    s.kernel_identity = 0;
    for (IdempotentPart& f : s.idempotents) {
        s.kernel_identity = m.mul(s.kernel_identity, f.idempotent);
        for (const IdempotentPart& e : s.idempotents) {
            if (!below(e.idempotent, f.idempotent)) continue;
            const bool covered = std::any_of(
                s.idempotents.begin(), s.idempotents.end(), [&](const IdempotentPart& g) {
                    return below(e.idempotent, g.idempotent) && below(g.idempotent, f.idempotent);
                });
            if (!covered) f.lower_covers.push_back(e.idempotent);
        }
    }
    if (m.mul(s.kernel_identity, s.kernel_identity) != s.kernel_identity)
        throw InputError(NOT_A_MONOID);  // a product of commuting idempotents is one
    s.kernel = part_of(s.kernel_identity).subgroup;
    s.divisibility_classes = count_principal_ideals(m);
    s.tame = tame_index(m, s);
    return s;
}

}  // namespace nimtb::engine
