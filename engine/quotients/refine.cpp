// Step 3 of quotient.h: finer monoids after a candidate is refuted, by
// the candidate's pairs and along its least failure.
#include <map>
#include <set>
#include <stdexcept>

#include "engine/base/parallel.h"
#include "engine/quotients/steps.h"

namespace nimtb::engine::quotient_steps {

// With keep_old, a monoid finer than `m` for heaps 1..m.max_heap(): each
// heap of a free part maps to (phi(heap), one count of its part), the
// others to (phi(heap), no counts). Without, a free part's heap maps to
// (identity, one count): smaller, but not finer. Its P-portion is not m's:
// each element is predicted P exactly when its smallest position has moves
// and none of them reaches an element predicted P (elements met in the
// order of their smallest positions, so options come first). Reduced by
// Moore's algorithm.
//
// Why this converges with keep_old (docs/QUOTIENTS.md): if every position
// before F is predicted right by m, each is by the refinement too (a
// position is either its class's smallest, predicted from its options, or
// shares its class with a smaller position that shared m's class and its
// outcome); and if F's heaps all have free parts counting past their
// numbers of copies in F, F is the smallest of its class, so it is
// predicted right as well.
BipartiteMonoid refine_with_free_parts(const BipartiteMonoid& m, const std::vector<FreePart>& parts,
                                       bool keep_old, const std::vector<std::vector<Heaps>>& moves,
                                       const Limits& limits) {
    const uint32_t n = m.max_heap();
    struct Field {
        unsigned shift;
        uint64_t mask;
        uint32_t index, period, size;
    };
    std::vector<Field> fields;
    unsigned bits = static_cast<unsigned>(std::bit_width(m.order - 1));
    for (const FreePart& f : parts) {
        const auto width = static_cast<unsigned>(std::bit_width(f.size() - 1));
        fields.push_back({bits, (uint64_t{1} << width) - 1, f.index, f.period, f.size()});
        bits += width;
    }
    if (bits > 64) {
        throw ResourceError(
            fmt::format("quotient: a candidate for heap {} would have more than 2^64 elements", n));
    }
    const uint64_t base_mask = (uint64_t{1} << std::bit_width(m.order - 1)) - 1;
    auto mul = [&](uint64_t a, uint64_t b) {
        uint64_t out = m.mul(uint32_t(a & base_mask), uint32_t(b & base_mask));
        for (const Field& f : fields) {
            uint64_t c = ((a >> f.shift) & f.mask) + ((b >> f.shift) & f.mask);
            while (c >= f.size) c -= f.period;
            out |= c << f.shift;
        }
        return out;
    };
    std::vector<uint64_t> phi(size_t{n} + 1);
    for (uint32_t h = 0; h <= n; ++h) {
        phi[h] = m.phi[h];
        for (size_t k = 0; k < parts.size(); ++k) {
            if (parts[k].heap != h) continue;
            if (!keep_old) phi[h] = 0;
            phi[h] |= uint64_t{1} << fields[k].shift;
        }
    }
    auto image = [&](const Heaps& g) {
        uint64_t x = 0;
        for (uint32_t h : g) x = mul(x, phi[h]);
        return x;
    };
    std::vector<uint32_t> letters;
    std::vector<std::vector<uint64_t>> options(size_t{n} + 1);
    for (uint32_t h = 1; h <= n; ++h) {
        if (moves[h].empty()) continue;
        letters.push_back(h);
        for (const Heaps& o : moves[h]) options[h].push_back(image(o));
        std::sort(options[h].begin(), options[h].end());
        options[h].erase(std::unique(options[h].begin(), options[h].end()), options[h].end());
    }
    Numbering number(bits);
    std::vector<uint64_t> elements;
    std::vector<uint8_t> p;
    std::vector<uint64_t> suffix;
    in_position_order(
        letters, [&](uint64_t x, size_t l) { return mul(x, phi[letters[l]]); },
        [&](uint64_t x, const Heaps& name) {
            // The element of name without its i-th heap: prefix times suffix.
            suffix.assign(name.size() + 1, 0);
            for (size_t i = name.size(); i-- > 0;) suffix[i] = mul(suffix[i + 1], phi[name[i]]);
            bool is_p = !name.empty();
            uint64_t prefix = 0;
            for (size_t i = 0; is_p && i < name.size(); prefix = mul(prefix, phi[name[i]]), ++i) {
                if (i > 0 && name[i] == name[i - 1]) continue;
                const uint64_t rest = mul(prefix, suffix[i + 1]);
                for (uint64_t t : options[name[i]]) {
                    if (p[number[mul(rest, t)]]) {
                        is_p = false;
                        break;
                    }
                }
            }
            elements.push_back(x);
            p.push_back(is_p);
        },
        number, n, limits);
    HeapAutomaton a;
    a.states = static_cast<uint32_t>(elements.size());
    a.letters = letters;
    a.accept = std::move(p);
    limits.within_budget(uint64_t{elements.size()} * letters.size() * sizeof(uint32_t), n,
                         "a candidate");
    a.next.reserve(elements.size() * letters.size());
    for (uint64_t x : elements) {
        for (uint32_t h : letters) a.next.push_back(number[mul(x, phi[h])]);
    }
    std::vector<uint32_t> block;
    const uint32_t blocks = minimize(a, block);
    limits.within_order(blocks, n);
    return monoid_of(a, block, blocks, n);
}

namespace {

// {z : y z in u}, or-ed into `out`, 64 z at a time.
void or_preimage(const BipartiteMonoid& m, uint32_t y, const Bits& u, uint64_t* out) {
    const uint32_t* row = &m.table[size_t{y} * m.order];
    for (uint32_t base = 0; base < m.order; base += 64) {
        const uint32_t end = std::min(m.order - base, 64u);
        uint64_t w = 0;
        for (uint32_t i = 0; i < end; ++i) {
            const uint32_t t = row[base + i];
            w |= ((u[t >> 6] >> (t & 63)) & 1) << i;
        }
        out[base >> 6] |= w;
    }
}

// Transposes a 64 x 64 matrix of bits in place: bit j of a[i] becomes bit
// i of a[j]. Six rounds, each swapping the off-diagonal blocks of every
// 2j x 2j block (Hacker's Delight, 7-3, with bit 0 the first column).
void transpose64(uint64_t* a) {
    uint64_t mask = 0x00000000ffffffffull;
    for (unsigned j = 32; j != 0; j >>= 1, mask ^= mask << j) {
        for (unsigned k = 0; k < 64; k = (k + j + 1) & ~j) {
            const uint64_t t = ((a[k] >> j) ^ a[k + j]) & mask;
            a[k] ^= t << j;
            a[k + j] ^= t;
        }
    }
}

// The contexts z in which a move in heap h reaches P: some option image t
// has t z in P.
Bits winning_contexts(const BipartiteMonoid& m, const std::vector<uint32_t>& option_images) {
    Bits w(words(m), 0);
    for (uint32_t t : option_images) add_p_contexts(m, t, w);
    return w;
}

// Each heap with moves and its number of copies in `g`.
std::map<uint32_t, uint32_t> copies(const Heaps& g, const std::vector<std::vector<Heaps>>& moves) {
    std::map<uint32_t, uint32_t> out;
    for (uint32_t h : g) {
        if (!moves[h].empty()) ++out[h];
    }
    return out;
}

}  // namespace

// A finer monoid for heaps < n after `candidate` was refuted. Each position
// G is followed by the pair (phi(G), U(G)), U(G) the contexts z in which a
// move inside G reaches P: pairs multiply as (x, U)(y, V) = (xy, y\U ∪
// x\V), y\U = {z : yz in U}, so the pairs of all positions are the finite
// monoid the heaps' pairs generate (breadth first). Each pair is predicted P
// exactly when it has moves and none reaches P (by the candidate, right for
// positions below heap n); reduced, and restricted to heaps below n.
BipartiteMonoid refine_by_pairs(const BipartiteMonoid& candidate,
                                const std::vector<std::vector<Heaps>>& moves,
                                const Limits& limits) {
    const BipartiteMonoid& m = candidate;
    const uint32_t n = m.max_heap();
    std::vector<uint32_t> letters, letter_of(size_t{n} + 1, UINT32_MAX), gen_x;
    std::vector<Bits> gen_u;
    {
        std::map<std::pair<uint32_t, Bits>, uint32_t> seen;
        for (uint32_t h = 1; h <= n; ++h) {
            if (moves[h].empty()) continue;
            Bits w = winning_contexts(m, images(m, moves[h]));
            auto [it, fresh] =
                seen.try_emplace({m.phi[h], w}, static_cast<uint32_t>(letters.size()));
            if (fresh) {
                letters.push_back(h);
                gen_x.push_back(m.phi[h]);
                gen_u.push_back(std::move(w));
            }
            letter_of[h] = it->second;
        }
    }
    const size_t nw = words(m);
    std::vector<uint32_t> xs;
    std::vector<Bits> us;
    std::unordered_map<Bits, uint32_t, VectorHash> index;
    HeapAutomaton a;
    a.letters = letters;
    auto add = [&](uint32_t x, bool moved, Bits u) {
        Bits key(nw + 1);
        key[0] = (uint64_t{x} << 1) | (moved ? 1 : 0);
        std::copy(u.begin(), u.end(), key.begin() + 1);
        auto [it, fresh] = index.try_emplace(std::move(key), static_cast<uint32_t>(xs.size()));
        if (fresh) {
            // Each pair: its contexts twice (the state and the key), its
            // transitions and the index's node.
            limits.within_budget(xs.size() * (2 * nw * 8 + letters.size() * 4 + 96), n, "refining");
            xs.push_back(x);
            us.push_back(std::move(u));
            a.accept.push_back(moved && !bit(us.back(), 0));
        }
        return it->second;
    };
    add(0, false, Bits(nw, 0));
    // x\U(h) for each element x and letter h, computed when first needed.
    const size_t nl = letters.size();
    limits.within_budget(uint64_t{m.order} * nl * nw * 8, n, "refining");
    std::vector<Bits> from_letter(size_t{m.order} * nl);
    // States are expanded in batches: the preimages of a batch on every
    // core, then its new states added in order (so the numbering is the
    // same for every number of threads).
    constexpr uint32_t BATCH = 256;
    std::vector<uint64_t> successors, columns;
    std::vector<uint32_t> fresh_x;
    for (uint32_t done = 0; done < xs.size();) {
        limits.check();
        const auto end = static_cast<uint32_t>(std::min<size_t>(xs.size(), done + BATCH));
        fresh_x.clear();
        for (uint32_t s = done; s < end && nl > 0; ++s) {
            if (from_letter[size_t{xs[s]} * nl].empty()) {
                for (size_t l = 0; l < nl; ++l) from_letter[size_t{xs[s]} * nl + l].assign(nw, 0);
                fresh_x.push_back(xs[s]);
            }
        }
        sync_parallel_for(size_t{0}, fresh_x.size() * nl, [&](size_t i) {
            const uint32_t x = fresh_x[i / nl];
            or_preimage(m, x, gen_u[i % nl], from_letter[size_t{x} * nl + i % nl].data());
        });
        // Each successor's contexts, x\U(h) | h\U, for the batch's states
        // and every letter h. h\U = {z : h z in U} is a gather along h's row
        // of the table, bit by bit, and was most of the time (69 % of
        // octal:0.54 to heap 90). Done 64 states at a time instead: with the
        // batch's contexts transposed (columns[t]: bit i = t in U of state
        // i), h\U for 64 states at z is columns[h z], a word copied, and 64
        // such words transposed back give 64 z of each state's contexts
        // (0.54 to heap 100: 48.3 s before, 19.8 s after, the same quotient).
        const uint32_t batch = end - done;
        const size_t blocks = (batch + 63) / 64;
        columns.assign(size_t{m.order} * blocks, 0);
        sync_parallel_for(size_t{0}, blocks * nw, [&](size_t k) {
            const size_t block = k / nw, zw = k % nw;
            uint64_t bits[64];
            for (size_t i = 0; i < 64; ++i) {
                const size_t s = done + block * 64 + i;
                bits[i] = s < end ? us[s][zw] : 0;
            }
            transpose64(bits);
            for (size_t j = 0; j < 64 && zw * 64 + j < m.order; ++j) {
                columns[(zw * 64 + j) * blocks + block] = bits[j];
            }
        });
        successors.assign(size_t{batch} * nl * nw, 0);
        sync_parallel_for(size_t{0}, nl * blocks, [&](size_t k) {
            const size_t l = k / blocks, block = k % blocks;
            const uint32_t* row = &m.table[size_t{gen_x[l]} * m.order];
            uint64_t bits[64];
            for (size_t zw = 0; zw < nw; ++zw) {
                for (size_t j = 0; j < 64; ++j) {
                    const size_t z = zw * 64 + j;
                    bits[j] = z < m.order ? columns[size_t{row[z]} * blocks + block] : 0;
                }
                transpose64(bits);
                for (size_t i = 0; i < 64 && block * 64 + i < batch; ++i) {
                    const size_t s = block * 64 + i;
                    successors[(s * nl + l) * nw + zw] =
                        bits[i] | from_letter[size_t{xs[done + s]} * nl + l][zw];
                }
            }
        });
        for (uint32_t s = done; s < end; ++s) {
            for (size_t l = 0; l < nl; ++l) {
                const uint64_t* out = &successors[((s - done) * nl + l) * nw];
                a.next.push_back(add(m.mul(xs[s], gen_x[l]), true, Bits(out, out + nw)));
            }
        }
        done = end;
    }
    a.states = static_cast<uint32_t>(xs.size());
    std::vector<uint32_t> block;
    const uint32_t blocks = minimize(a, block);
    limits.within_order(blocks, n);
    BipartiteMonoid r = monoid_of(a, block, blocks, n);
    for (uint32_t h = 1; h <= n; ++h) {
        if (letter_of[h] != UINT32_MAX) r.phi[h] = r.phi[letters[letter_of[h]]];
    }
    return submonoid(r, n - 1);
}

// A refinement of `m` whose least failure comes after `failure`, m's least
// failure. F's class in m holds a smaller position of the other outcome,
// its smallest; free parts for heaps whose copies differ between the two
// tell them apart: one such heap, then two, then every heap of either. Each
// part counts one past the failure's copies, then by twos. A part first
// replaces its heap's old element (a smaller candidate, kept only when its
// least failure does come after F), then stands beside it (which moves the
// least failure on whenever it predicts F right, and with every heap free
// always does: refine_with_free_parts() says why).
Candidate refine_past_failure(const BipartiteMonoid& m, const QuotientFailure& failure,
                              const std::vector<std::vector<Heaps>>& moves, const Limits& limits) {
    const std::map<uint32_t, uint32_t> ours = copies(failure.position, moves);
    const std::map<uint32_t, uint32_t> theirs = copies(m.name[m.image(failure.position)], moves);
    std::vector<FreePart> differing, all;
    std::set<uint32_t> heaps;
    for (const auto& [h, c] : ours) heaps.insert(h);
    for (const auto& [h, c] : theirs) heaps.insert(h);
    for (uint32_t h : heaps) {
        const uint32_t c = ours.count(h) ? ours.at(h) : 0;
        const FreePart part{h, c + 1, 2};
        all.push_back(part);
        if (c != (theirs.count(h) ? theirs.at(h) : 0)) differing.push_back(part);
    }
    const bool truth = !failure.predicted_p;
    Candidate out;
    auto moves_on = [&](const std::vector<FreePart>& parts, bool keep_old) {
        try {
            out.m = refine_with_free_parts(m, parts, keep_old, moves, limits);
        } catch (const ResourceError&) {
            if (keep_old && parts.size() == all.size()) throw;
            return false;
        }
        if (bool(out.m.p[out.m.image(failure.position)]) != truth) return false;
        out.failure = least_failure(out.m, moves, limits);
        return keep_old || !out.failure ||
               smaller_position(failure.position, out.failure->position);
    };
    std::vector<std::vector<FreePart>> choices;
    for (const FreePart& f : differing) choices.push_back({f});
    for (size_t i = 0; i < differing.size(); ++i) {
        for (size_t j = i + 1; j < differing.size(); ++j) {
            choices.push_back({differing[i], differing[j]});
        }
    }
    choices.push_back(all);
    for (const std::vector<FreePart>& parts : choices) {
        if (moves_on(parts, false) || moves_on(parts, true)) return out;
    }
    throw std::logic_error("quotient: a refinement with every heap of the failure free failed");
}

}  // namespace nimtb::engine::quotient_steps
