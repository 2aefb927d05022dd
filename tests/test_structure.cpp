// The structure of misère quotients (engine/quotients/structure.h), each
// figure found again here from its textbook definition by another route:
// divisibility through principal ideals, Archimedean components as the
// classes of "each divides a power of the other", the kernel as the
// intersection of all ideals, and tameness by searching for an isomorphism
// onto T_n built by hand as misère Nim's quotient.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "engine/quotients/quotient.h"
#include "engine/quotients/structure.h"

namespace nimtb::engine {
namespace {

using Ideal = std::vector<bool>;

Ideal principal_ideal(const BipartiteMonoid& m, uint32_t x) {
    Ideal ideal(m.order);
    for (uint32_t y = 0; y < m.order; ++y) ideal[m.mul(x, y)] = true;
    return ideal;
}

uint32_t power(const BipartiteMonoid& m, uint32_t x, uint32_t k) {
    uint32_t y = 0;
    while (k--) y = m.mul(y, x);
    return y;
}

// Every figure of quotient_structure(m) against the definitions.
void expect_structure(const BipartiteMonoid& m, const std::string& what) {
    SCOPED_TRACE(what);
    const QuotientStructure s = quotient_structure(m);
    std::vector<Ideal> ideal(m.order);
    for (uint32_t x = 0; x < m.order; ++x) ideal[x] = principal_ideal(m, x);
    auto divides = [&](uint32_t x, uint32_t y) { return bool(ideal[x][y]); };

    std::vector<uint32_t> idempotents;
    for (uint32_t x = 0; x < m.order; ++x) {
        if (m.mul(x, x) == x) idempotents.push_back(x);
    }
    ASSERT_EQ(s.idempotents.size(), idempotents.size());

    // Archimedean: x and y alike when each divides some power of the other.
    auto archimedean = [&](uint32_t x, uint32_t y) {
        bool x_divides = false, y_divides = false;
        for (uint32_t k = 1; k <= m.order && !(x_divides && y_divides); ++k) {
            x_divides = x_divides || divides(x, power(m, y, k));
            y_divides = y_divides || divides(y, power(m, x, k));
        }
        return x_divides && y_divides;
    };
    // The kernel: what every principal ideal holds.
    std::vector<uint32_t> kernel;
    for (uint32_t z = 0; z < m.order; ++z) {
        bool everywhere = true;
        for (uint32_t x = 0; x < m.order; ++x) everywhere = everywhere && ideal[x][z];
        if (everywhere) kernel.push_back(z);
    }
    EXPECT_EQ(s.kernel, kernel);

    for (size_t i = 0; i < idempotents.size(); ++i) {
        const uint32_t e = idempotents[i];
        const IdempotentPart& part = s.idempotents[i];
        ASSERT_EQ(part.idempotent, e);
        std::vector<uint32_t> component, subgroup, p_in_subgroup, covers;
        for (uint32_t x = 0; x < m.order; ++x) {
            if (archimedean(x, e)) component.push_back(x);
            if (ideal[x] == ideal[e]) {  // mutual divisibility with e
                subgroup.push_back(x);
                if (m.p[x]) p_in_subgroup.push_back(x);
            }
            EXPECT_EQ(s.idempotent_power[x] == e, archimedean(x, e)) << x;
        }
        for (uint32_t f : idempotents) {
            const bool f_below = f != e && m.mul(f, e) == f;
            bool between = false;
            for (uint32_t g : idempotents) {
                between = between || (g != f && g != e && m.mul(f, g) == f && m.mul(g, e) == g);
            }
            if (f_below && !between) covers.push_back(f);
        }
        EXPECT_EQ(part.component, component) << "component of " << e;
        EXPECT_EQ(part.subgroup, subgroup) << "subgroup of " << e;
        EXPECT_EQ(part.p_in_subgroup, p_in_subgroup) << "P in the subgroup of " << e;
        EXPECT_EQ(part.lower_covers, covers) << "lower covers of " << e;
        if (std::find(kernel.begin(), kernel.end(), e) != kernel.end()) {
            EXPECT_EQ(s.kernel_identity, e);
            EXPECT_EQ(subgroup, kernel);
        }
    }
    std::set<Ideal> distinct(ideal.begin(), ideal.end());
    EXPECT_EQ(s.divisibility_classes, distinct.size());
}

// T_n by hand: 1, a, then b_v for v < 2^n (positions of misère Nim with a
// heap of two or more and nim-sum v). a b_v = b_{v xor 1}, b_v b_w =
// b_{v xor w}, P = {a, b_0}; T_0 = {1} and T_1 = {1, a}.
BipartiteMonoid tame(uint32_t n) {
    BipartiteMonoid t;
    const uint32_t groups = n >= 2 ? 1u << n : 0;
    t.order = n == 0 ? 1 : 2 + groups;
    t.table.assign(size_t{t.order} * t.order, 0);
    t.p.assign(t.order, 0);
    auto b = [](uint32_t v) { return 2 + v; };
    for (uint32_t x = 0; x < t.order; ++x) {
        for (uint32_t y = 0; y < t.order; ++y) {
            uint32_t product;
            if (x == 0 || y == 0)
                product = x + y;
            else if (x == 1 && y == 1)
                product = 0;
            else if (x == 1 || y == 1)
                product = b((std::max(x, y) - 2) ^ 1);
            else
                product = b((x - 2) ^ (y - 2));
            t.table[size_t{x} * t.order + y] = product;
        }
    }
    if (n >= 1) t.p[1] = 1;
    if (n >= 2) t.p[b(0)] = 1;
    return t;
}

// Whether some bijection f from q's monoid onto t keeps products and P:
// the generators' images fix f, each element being a word in them.
bool isomorphic(const MisereQuotient& q, const BipartiteMonoid& t) {
    const BipartiteMonoid& m = q.monoid;
    if (m.order != t.order) return false;
    std::vector<uint32_t> image(q.generators.size(), 0);
    while (true) {
        std::vector<uint32_t> f(m.order, 0);
        for (uint32_t x = 0; x < m.order; ++x) {
            for (uint32_t h : q.words[x]) {
                const size_t g =
                    std::find(q.generators.begin(), q.generators.end(), h) - q.generators.begin();
                f[x] = t.mul(f[x], image.at(g));
            }
        }
        bool good = std::set<uint32_t>(f.begin(), f.end()).size() == m.order;
        for (uint32_t x = 0; x < m.order && good; ++x) {
            good = m.p[x] == t.p[f[x]];
            for (uint32_t y = 0; y < m.order && good; ++y)
                good = f[m.mul(x, y)] == t.mul(f[x], f[y]);
        }
        if (good) return true;
        size_t g = 0;
        while (g < image.size() && ++image[g] == t.order) image[g++] = 0;
        if (g == image.size()) return false;
    }
}

// Whether some bijection keeps products and P, by trying them all
// (element by element, dropping a partial map as soon as a product of
// mapped elements disagrees): for monoids of a dozen elements.
bool isomorphic(const BipartiteMonoid& m, const BipartiteMonoid& t) {
    if (m.order != t.order) return false;
    std::vector<uint32_t> f(m.order, UINT32_MAX);
    std::vector<bool> used(t.order, false);
    std::function<bool(uint32_t)> extend = [&](uint32_t x) {
        if (x == m.order) return true;
        for (uint32_t y = 0; y < t.order; ++y) {
            if (used[y] || m.p[x] != t.p[y]) continue;
            f[x] = y;
            bool consistent = true;
            for (uint32_t u = 0; u <= x && consistent; ++u) {
                const uint32_t product = m.mul(x, u);
                consistent = f[product] == UINT32_MAX || f[product] == t.mul(y, f[u]);
            }
            used[y] = true;
            if (consistent && extend(x + 1)) return true;
            used[y] = false;
            f[x] = UINT32_MAX;
        }
        return false;
    };
    return extend(0);
}

TEST(Structure, FiguresMatchTheirDefinitions) {
    for (uint32_t n = 1; n <= 14; ++n) {
        expect_structure(misere_quotient(Rule::parse("octal:0.07"), n).monoid,
                         "0.07 to " + std::to_string(n));
    }
    for (uint32_t n = 1; n <= 12; ++n) {
        expect_structure(misere_quotient(Rule::parse("octal:0.77"), n).monoid,
                         "0.77 to " + std::to_string(n));
    }
    expect_structure(misere_quotient(Rule::nim(), 15).monoid, "nim to 15");
    expect_structure(misere_quotient(Rule::parse("octal:0.54"), 20).monoid, "0.54 to 20");
    expect_structure(misere_quotient(Rule::parse("subtract:1,3,4"), 20).monoid,
                     "subtract:1,3,4 to 20");
    for (uint32_t n = 0; n <= 4; ++n) expect_structure(tame(n), "T_" + std::to_string(n));
}

TEST(Structure, DawsonsKaylesAtHeap30AndKaylesWhole) {
    const MisereQuotient dawson = misere_quotient(Rule::parse("octal:0.07"), 30);
    ASSERT_EQ(dawson.monoid.order, 360u);
    expect_structure(dawson.monoid, "0.07 to 30");
    MisereQuotient kayles;
    for (uint32_t n = 100; !kayles.proof; n += 40) {  // proven at heap 167
        QuotientOptions until;
        until.until_proven = true;
        kayles = misere_quotient(Rule::parse("octal:0.77"), n, until);
    }
    ASSERT_EQ(kayles.monoid.order, 40u);
    expect_structure(kayles.monoid, "0.77 proven");
}

TEST(Structure, TameExactlyWhereIsomorphicToTn) {
    std::vector<MisereQuotient> cases;
    auto add = [&](const char* rule, uint32_t heaps) {
        for (uint32_t n = 1; n <= heaps; ++n)
            cases.push_back(misere_quotient(Rule::parse(rule), n));
    };
    add("octal:0.07", 12);
    add("octal:0.77", 6);
    add("nim", 15);
    for (const char* rule :
         {"subtract:1,2", "subtract:2", "subtract:1,3,4", "octal:0.33", "octal:0.15"}) {
        add(rule, 10);
    }
    // Quotients of 8 and 10 elements among these, and larger.
    for (const char* rule : {"octal:0.14", "octal:0.16", "octal:0.26", "octal:0.53", "octal:0.54",
                             "octal:0.56", "octal:0.57"}) {
        add(rule, 11);
    }
    size_t tame_ones = 0, wild_ones = 0;
    for (const MisereQuotient& q : cases) {
        const BipartiteMonoid& m = q.monoid;
        const std::optional<uint32_t> found = quotient_structure(m).tame;
        std::optional<uint32_t> iso;
        for (uint32_t n = 0; n <= 4 && !iso; ++n) {
            if (isomorphic(q, tame(n))) iso = n;
        }
        EXPECT_EQ(found, iso) << "order " << m.order << " to heap " << m.max_heap();
        (found ? tame_ones : wild_ones) += 1;
    }
    EXPECT_GT(tame_ones, 20u);
    EXPECT_GT(wild_ones, 10u);

    // Every wild quotient above has an order no T_n has; these near misses,
    // each one condition away from T_2 or T_3 (P changed, the kernel
    // cyclic, a acting trivially on it), test the conditions themselves.
    std::vector<BipartiteMonoid> near;
    for (uint32_t n : {2u, 3u}) {
        BipartiteMonoid t = tame(n);
        t.p[1] = 0;  // P = {b_0}
        near.push_back(t);
        t.p[1] = 1, t.p[3] = 1;  // P = {a, b_0, b_1}
        near.push_back(t);
        t = tame(n);
        for (uint32_t v = 0; v < (1u << n); ++v)
            t.table[t.order + 2 + v] = t.table[(2 + v) * t.order + 1] = 2 + v;
        near.push_back(t);  // a b_v = b_v
    }
    BipartiteMonoid cyclic =
        tame(2);  // the kernel Z/4: b_v b_w = b_{v + w mod 4}, a b_v = b_{v + 2}
    for (uint32_t v = 0; v < 4; ++v) {
        for (uint32_t w = 0; w < 4; ++w) cyclic.table[(2 + v) * 6 + 2 + w] = 2 + (v + w) % 4;
        cyclic.table[6 + 2 + v] = cyclic.table[(2 + v) * 6 + 1] = 2 + (v + 2) % 4;
    }
    near.push_back(cyclic);
    for (const BipartiteMonoid& m : near) {
        EXPECT_FALSE(quotient_structure(m).tame);
        EXPECT_FALSE(isomorphic(m, tame(2)) || isomorphic(m, tame(3)));
        EXPECT_TRUE(isomorphic(tame(2), tame(2)) && isomorphic(tame(3), tame(3)));
    }
    // The yardsticks: Kayles tame to heap 4, Dawson's Kayles to 9.
    EXPECT_EQ(quotient_structure(misere_quotient(Rule::parse("octal:0.77"), 4).monoid).tame, 2u);
    EXPECT_FALSE(quotient_structure(misere_quotient(Rule::parse("octal:0.77"), 5).monoid).tame);
    EXPECT_EQ(quotient_structure(misere_quotient(Rule::parse("octal:0.07"), 9).monoid).tame, 2u);
    EXPECT_FALSE(quotient_structure(misere_quotient(Rule::parse("octal:0.07"), 10).monoid).tame);
    EXPECT_EQ(quotient_structure(misere_quotient(Rule::nim(), 7).monoid).tame, 3u);
}

}  // namespace
}  // namespace nimtb::engine
