#pragma once
// What a misère quotient is made of, read from its multiplication table
// (docs/QUOTIENTS.md states each definition; Grillet's "Commutative
// Semigroups" and Siegel's "The structure and classification of misère
// quotients" give the theory). Q is a finite commutative monoid, so:
// - every x has exactly one idempotent power, x^omega (the powers of x run
//   into a cycle, which is a group and holds one idempotent);
// - the Archimedean component of an idempotent e is {x : x^omega = e}: the
//   components partition Q, one per idempotent;
// - the maximal subgroup H_e (the largest group inside Q with identity e)
//   is {x in e's component : x e = x}, and it is also the class of e under
//   mutual divisibility (x Q = e Q);
// - idempotents are ordered by e <= f when e f = e; the product of all of
//   them is the least, and its subgroup is the kernel, the smallest ideal;
// - (Q, P) is tame when it is isomorphic, P onto P, to T_n, the quotient of
//   misère Nim with heaps below 2^n: T_0 = {1}, T_1 = {1, a} with a^2 = 1
//   and P = {a}, and for n >= 2, {1, a} and an ideal K that is a group of
//   order 2^n, every element its own inverse, with a z != z for K's
//   identity z, and P = {a, z}. The same conditions decide it here (any
//   isomorphism maps these parts onto T_n's, and any monoid with them maps
//   onto T_n by a group isomorphism of K that sends a z to a's image).

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/quotients/monoid.h"

namespace nimtb::engine {

struct IdempotentPart {
    uint32_t idempotent = 0;
    std::vector<uint32_t> subgroup;       // H_e, ascending
    std::vector<uint32_t> component;      // the Archimedean component, ascending
    std::vector<uint32_t> lower_covers;   // the idempotents just below e, ascending
    std::vector<uint32_t> p_in_subgroup;  // H_e's elements in the P-portion
};

struct QuotientStructure {
    std::vector<IdempotentPart> idempotents;  // ascending by element
    uint32_t kernel_identity = 0;             // the least idempotent
    std::vector<uint32_t> kernel;             // its subgroup, the smallest ideal
    uint32_t divisibility_classes = 0;        // classes of x ~ y when x Q = y Q
    std::vector<uint32_t> idempotent_power;   // x^omega for every element x
    std::optional<uint32_t> tame;             // n when (Q, P) is isomorphic to T_n
};

// The structure of `m` (its order, table and P-portion; phi is not read).
// Throws InputError where the table shows it is no commutative monoid (a
// cycle of powers without an idempotent, idempotents whose product is not
// one); other damage is not looked for.
// Time: a pass over each element's powers, and the order^2 products of the
// principal ideals; memory: order^2 bits.
QuotientStructure quotient_structure(const BipartiteMonoid& m);

}  // namespace nimtb::engine
