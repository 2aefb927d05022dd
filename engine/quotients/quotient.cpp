#include "engine/quotients/quotient.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "engine/base/errors.h"
#include "engine/game/moves.h"

namespace nimtb::engine {

namespace {

using Bits = std::vector<uint64_t>;

bool bit(const Bits& b, uint32_t i) {
    return (b[i >> 6] >> (i & 63)) & 1;
}
void set_bit(Bits& b, uint32_t i) {
    b[i >> 6] |= uint64_t{1} << (i & 63);
}

void check_cancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

// The options of every heap 1..max_heap, each a position (largest heap
// first, empty heaps dropped), without repeats.
std::vector<std::vector<Heaps>> heap_moves(const Rule& rule, uint32_t max_heap) {
    std::vector<std::vector<Heaps>> of(size_t{max_heap} + 1);
    for (uint32_t h = 1; h <= max_heap; ++h) {
        const uint32_t heap[] = {h};
        std::set<Heaps> options;
        for_each_child(rule, heap, [&](const Heaps& child) {
            Heaps o;
            for (uint32_t part : child) {
                if (part != 0) o.push_back(part);
            }
            std::sort(o.begin(), o.end(), std::greater<>());
            options.insert(std::move(o));
        });
        of[h].assign(options.begin(), options.end());
    }
    return of;
}

std::vector<uint32_t> images(const BipartiteMonoid& m, const std::vector<Heaps>& positions) {
    std::vector<uint32_t> out;
    for (const Heaps& o : positions) out.push_back(m.image(o));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

size_t words(const BipartiteMonoid& m) {
    return (m.order + 63) / 64;
}

// {z : y z in u}
Bits preimage(const BipartiteMonoid& m, uint32_t y, const Bits& u) {
    Bits out(words(m), 0);
    const uint32_t* row = &m.table[size_t{y} * m.order];
    for (uint32_t z = 0; z < m.order; ++z) {
        if (bit(u, row[z])) set_bit(out, z);
    }
    return out;
}

// The contexts z in which a move in heap h reaches P: some option image t
// has t z in P.
Bits winning_contexts(const BipartiteMonoid& m, const std::vector<uint32_t>& option_images) {
    Bits w(words(m), 0);
    for (uint32_t t : option_images) {
        for (uint32_t z = 0; z < m.order; ++z) {
            if (m.p[m.mul(t, z)]) set_bit(w, z);
        }
    }
    return w;
}

// The contexts z with x z in P.
Bits p_contexts(const BipartiteMonoid& m, uint32_t x) {
    Bits out(words(m), 0);
    for (uint32_t z = 0; z < m.order; ++z) {
        if (m.p[m.mul(x, z)]) set_bit(out, z);
    }
    return out;
}

// The monoid of pairs (phi(G), U(G)) that the heaps with moves generate,
// breadth first from the empty position (state 0). Heaps whose pairs are
// equal share one letter, the smallest such heap.
struct PairClosure {
    std::vector<uint32_t> letters;    // a heap per distinct pair
    std::vector<uint32_t> letter_of;  // heap -> letter index, or UINT32_MAX (no moves)
    std::vector<uint32_t> x;          // per state
    std::vector<Bits> u;              // per state
    std::vector<uint32_t> next;       // states * letters
    std::vector<uint32_t> parent, parent_letter;
    std::optional<uint32_t> failure;  // (c) failed at this state

    Heaps position(uint32_t s) const {
        Heaps out;
        for (; s != 0; s = parent[s]) out.push_back(letters[parent_letter[s]]);
        std::sort(out.begin(), out.end(), std::greater<>());
        return out;
    }
};

constexpr size_t MAX_PAIR_STATES = 4'000'000;
// Positions whose outcomes learn may remember (about 150 bytes each).
constexpr size_t MAX_ORACLE_POSITIONS = 2'000'000;
// Refinements a heap may try before its quotient is learned from outcomes.
constexpr unsigned REFINEMENTS = 3;

// winning_contexts of every heap with moves (empty for the others).
std::vector<Bits> winning_contexts(const BipartiteMonoid& m,
                                   const std::vector<std::vector<Heaps>>& moves) {
    std::vector<Bits> w(size_t{m.max_heap()} + 1);
    for (uint32_t h = 1; h <= m.max_heap(); ++h) {
        if (!moves[h].empty()) w[h] = winning_contexts(m, images(m, moves[h]));
    }
    return w;
}

// `winning` is winning_contexts(m, moves). saturated: U(G) holds the contexts
// where phi(G) z is in P too, and the closure stops at the first state whose
// U lacks the identity (check (c)).
PairClosure pair_closure(const BipartiteMonoid& m, const std::vector<std::vector<Heaps>>& moves,
                         const std::vector<Bits>& winning, bool saturated,
                         const std::atomic<bool>* cancel) {
    PairClosure c;
    const uint32_t n = m.max_heap();
    c.letter_of.assign(size_t{n} + 1, UINT32_MAX);
    std::vector<Bits> gen_u;
    std::vector<uint32_t> gen_x;
    {
        std::map<std::pair<uint32_t, Bits>, uint32_t> seen;
        for (uint32_t h = 1; h <= n; ++h) {
            if (moves[h].empty()) continue;
            Bits w = winning[h];
            if (saturated) {
                const Bits pz = p_contexts(m, m.phi[h]);
                for (size_t i = 0; i < w.size(); ++i) w[i] |= pz[i];
            }
            auto [it, fresh] =
                seen.try_emplace({m.phi[h], w}, static_cast<uint32_t>(c.letters.size()));
            if (fresh) {
                c.letters.push_back(h);
                gen_x.push_back(m.phi[h]);
                gen_u.push_back(std::move(w));
            }
            c.letter_of[h] = it->second;
        }
    }
    const size_t nw = words(m);
    std::unordered_map<Bits, uint32_t, VectorHash> index;
    auto key_of = [&](uint32_t x, bool moved, const Bits& u) {
        Bits key(nw + 1);
        key[0] = (uint64_t{x} << 1) | (moved ? 1 : 0);
        std::copy(u.begin(), u.end(), key.begin() + 1);
        return key;
    };
    auto add = [&](uint32_t x, bool moved, Bits u, uint32_t parent, uint32_t letter) {
        auto [it, fresh] =
            index.try_emplace(key_of(x, moved, u), static_cast<uint32_t>(c.x.size()));
        if (fresh) {
            if (c.x.size() >= MAX_PAIR_STATES) {
                throw ResourceError(fmt::format(
                    "quotient: the check needs more than {} pairs at heap {}", MAX_PAIR_STATES, n));
            }
            c.x.push_back(x);
            c.u.push_back(std::move(u));
            c.parent.push_back(parent);
            c.parent_letter.push_back(letter);
        }
        return it->second;
    };
    add(0, false, saturated ? p_contexts(m, 0) : Bits(nw, 0), 0, 0);
    const size_t letters = c.letters.size();
    for (uint32_t s = 0; s < c.x.size(); ++s) {
        if ((s & 1023) == 0) check_cancel(cancel);
        for (size_t l = 0; l < letters; ++l) {
            Bits u = preimage(m, gen_x[l], c.u[s]);
            const Bits v = preimage(m, c.x[s], gen_u[l]);
            for (size_t i = 0; i < nw; ++i) u[i] |= v[i];
            const bool lacks_identity = !bit(u, 0);
            const uint32_t t =
                add(m.mul(c.x[s], gen_x[l]), true, std::move(u), s, static_cast<uint32_t>(l));
            c.next.push_back(t);
            if (saturated && lacks_identity) {
                c.failure = t;
                return c;
            }
        }
    }
    return c;
}

std::optional<QuotientFailure> check(const BipartiteMonoid& m,
                                     const std::vector<std::vector<Heaps>>& moves,
                                     const std::atomic<bool>* cancel) {
    if (m.p[0]) return QuotientFailure{Heaps{}, true};
    // (a) a heap without moves is the empty game: adding it changes no prediction.
    for (uint32_t h = 1; h <= m.max_heap(); ++h) {
        if (!moves[h].empty()) continue;
        for (uint32_t y = 0; y < m.order; ++y) {
            if (m.p[m.mul(y, m.phi[h])] != m.p[y]) {
                return QuotientFailure{with_heap(m.name[y], h), bool(m.p[m.mul(y, m.phi[h])])};
            }
        }
    }
    // (b) no P-position has a move to a P-position.
    const std::vector<Bits> winning = winning_contexts(m, moves);
    for (uint32_t h = 1; h <= m.max_heap(); ++h) {
        if (moves[h].empty()) continue;
        for (uint32_t y = 0; y < m.order; ++y) {
            if (m.p[m.mul(y, m.phi[h])] && bit(winning[h], y)) {
                return QuotientFailure{with_heap(m.name[y], h), true};
            }
        }
    }
    // (c) every other position has a move to a P-position.
    const PairClosure c = pair_closure(m, moves, winning, true, cancel);
    if (c.failure) return QuotientFailure{c.position(*c.failure), false};
    return std::nullopt;
}

// The candidate for heaps 1..n from `base`, right for heaps < n.
BipartiteMonoid extend(const BipartiteMonoid& base, uint32_t n,
                       const std::vector<std::vector<Heaps>>& moves) {
    const uint32_t q = base.order;
    const std::vector<uint32_t> t = images(base, moves[n]);
    // The option images of each element's smallest position: all smaller.
    std::vector<std::vector<uint32_t>> name_options(q);
    for (uint32_t x = 0; x < q; ++x) {
        const Heaps& name = base.name[x];
        std::vector<uint32_t> out;
        for (size_t i = 0; i < name.size(); ++i) {
            if (i > 0 && name[i] == name[i - 1]) continue;
            Heaps rest = name;
            rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
            const uint32_t r = base.image(rest);
            for (const Heaps& o : moves[name[i]]) out.push_back(base.mul(r, base.image(o)));
        }
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        name_options[x] = std::move(out);
    }
    // Column k: is Y + k copies of heap n a P-position, for Y of each element.
    std::vector<std::vector<uint8_t>> columns{base.p};
    std::map<std::vector<uint8_t>, uint32_t> seen{{base.p, 0}};
    uint32_t index = 0, period = 0;
    for (;;) {
        const std::vector<uint8_t>& prev = columns.back();
        std::vector<uint8_t> col(q, 0);
        for (uint32_t x = 0; x < q; ++x) {
            bool p = true;
            for (uint32_t o : t) {
                if (prev[base.mul(x, o)]) {
                    p = false;
                    break;
                }
            }
            for (size_t i = 0; p && i < name_options[x].size(); ++i) p = !col[name_options[x][i]];
            col[x] = p;
        }
        auto [it, fresh] = seen.try_emplace(col, static_cast<uint32_t>(columns.size()));
        if (!fresh) {
            index = it->second;
            period = static_cast<uint32_t>(columns.size()) - index;
            break;
        }
        columns.push_back(std::move(col));
        if (columns.size() > 4096) {
            throw ResourceError(
                fmt::format("quotient: heap {} has no period within 4096 copies", n));
        }
    }
    const uint32_t length = index + period;
    auto norm = [&](uint32_t c) { return c < length ? c : index + (c - index) % period; };
    HeapAutomaton a;
    a.states = q * length;
    for (uint32_t j = 1; j <= n; ++j) {
        if (!moves[j].empty()) a.letters.push_back(j);
    }
    a.next.resize(size_t{a.states} * a.letters.size());
    a.accept.resize(a.states);
    for (uint32_t x = 0; x < q; ++x) {
        for (uint32_t c = 0; c < length; ++c) {
            const uint32_t s = x * length + c;
            a.accept[s] = columns[c][x];
            for (size_t l = 0; l < a.letters.size(); ++l) {
                const uint32_t j = a.letters[l];
                a.next[size_t{s} * a.letters.size() + l] =
                    j < n ? base.mul(x, base.phi[j]) * length + c : x * length + norm(c + 1);
            }
        }
    }
    std::vector<uint32_t> block;
    const uint32_t blocks = minimize(a, block);
    return monoid_of(a, block, blocks, n);
}

// A finer monoid for heaps < n after `candidate` was refuted: the pairs of
// all positions, each predicted P exactly when it has moves and none
// reaches P (by the candidate, right for positions below heap n), reduced.
BipartiteMonoid refine(const BipartiteMonoid& candidate,
                       const std::vector<std::vector<Heaps>>& moves,
                       const std::atomic<bool>* cancel) {
    const uint32_t n = candidate.max_heap();
    const PairClosure c =
        pair_closure(candidate, moves, winning_contexts(candidate, moves), false, cancel);
    HeapAutomaton a;
    a.states = static_cast<uint32_t>(c.x.size());
    a.letters = c.letters;
    a.next = c.next;
    a.accept.resize(a.states);
    for (uint32_t s = 1; s < a.states; ++s) a.accept[s] = !bit(c.u[s], 0);
    std::vector<uint32_t> block;
    const uint32_t blocks = minimize(a, block);
    BipartiteMonoid r = monoid_of(a, block, blocks, n);
    for (uint32_t h = 1; h <= n; ++h) {
        if (c.letter_of[h] != UINT32_MAX) r.phi[h] = r.phi[c.letters[c.letter_of[h]]];
    }
    return submonoid(r, n - 1);
}

// Calls visit(option) for each option of `g` while it returns true.
template <class Visit>
void for_each_option(const Heaps& g, const std::vector<std::vector<Heaps>>& moves, Visit&& visit) {
    for (size_t i = 0; i < g.size(); ++i) {
        if (i > 0 && g[i] == g[i - 1]) continue;
        for (const Heaps& o : moves[g[i]]) {
            Heaps next = g;
            next.erase(next.begin() + static_cast<std::ptrdiff_t>(i));
            next.insert(next.end(), o.begin(), o.end());
            std::sort(next.begin(), next.end(), std::greater<>());
            if (!visit(static_cast<const Heaps&>(next))) return;
        }
    }
}

// Outcomes by the definition: positions whose heaps `below` covers answered
// by it (exact for them), the others by their options, remembered. `what`
// names the work in the message when too many are needed.
class OutcomeOracle {
  public:
    OutcomeOracle(const std::vector<std::vector<Heaps>>& moves, const BipartiteMonoid& below,
                  std::string what)
        : moves_(moves), below_(below), what_(std::move(what)) {}

    // Misère: true for a P-position; g largest heap first.
    bool p(const Heaps& g) {
        if (g.empty() || g[0] <= below_.max_heap()) return below_.p[below_.image(g)];
        if (auto it = memo_.find(g); it != memo_.end()) return it->second;
        bool p = false;  // without moves, the player to move has won
        for (uint32_t h : g) p = p || !moves_[h].empty();
        for_each_option(g, moves_, [&](const Heaps& o) { return p = !this->p(o); });
        if (memo_.size() >= MAX_ORACLE_POSITIONS) {
            throw ResourceError(
                fmt::format("quotient: {} needs the outcomes of more than {} positions", what_,
                            MAX_ORACLE_POSITIONS));
        }
        memo_.emplace(g, p);
        return p;
    }

  private:
    const std::vector<std::vector<Heaps>>& moves_;
    const BipartiteMonoid& below_;
    std::string what_;
    std::unordered_map<Heaps, bool, VectorHash> memo_;
};

// A position `m` predicts wrongly, from one whose prediction its options'
// predictions contradict (as the check names it): if that prediction is
// right, an option's is wrong, and so on down.
Heaps mispredicted(Heaps g, const BipartiteMonoid& m, const std::vector<std::vector<Heaps>>& moves,
                   OutcomeOracle& oracle, const std::atomic<bool>* cancel) {
    while (oracle.p(g) == bool(m.p[m.image(g)])) {
        check_cancel(cancel);
        std::optional<Heaps> wrong;
        for_each_option(g, moves, [&](const Heaps& o) {
            if (oracle.p(o) != bool(m.p[m.image(o)])) wrong = o;
            return !wrong;
        });
        // An option predicted wrongly exists when `m` is a monoid generated by
        // its phi and its names represent their elements.
        if (!wrong) throw std::logic_error("quotient: a failure its options do not explain");
        g = *wrong;
    }
    return g;
}

Heaps joined(const Heaps& a, const Heaps& b) {
    Heaps out(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), std::greater<>());
    return out;
}

// Q_n learned from outcomes (Angluin's L*, for a commutative monoid): the
// states are positions told apart by the suffixes; the hypothesis is checked
// exactly, and a position it predicts wrongly yields a new suffix (Rivest and
// Schapire's split of the position along the hypothesis). `suffixes` carries
// over from heap to heap.
BipartiteMonoid learn(const std::vector<std::vector<Heaps>>& moves, const BipartiteMonoid& below,
                      uint32_t n, std::vector<Heaps>& suffixes, unsigned& refuted,
                      const std::atomic<bool>* cancel) {
    OutcomeOracle oracle(moves, below, fmt::format("learning Q_{}", n));
    std::vector<uint32_t> letters;
    std::vector<size_t> letter_of(size_t{n} + 1, SIZE_MAX);
    for (uint32_t h = 1; h <= n; ++h) {
        if (!moves[h].empty()) letter_of[h] = letters.size(), letters.push_back(h);
    }
    std::map<Heaps, std::vector<uint8_t>> rows;  // each position's outcomes with the suffixes
    auto row = [&](const Heaps& position) -> const std::vector<uint8_t>& {
        std::vector<uint8_t>& r = rows[position];
        while (r.size() < suffixes.size())
            r.push_back(oracle.p(joined(position, suffixes[r.size()])));
        return r;
    };
    // Given a position whose outcome differs from what the states reached
    // along `path` (heaps read in order from the empty position) predict at
    // its end, adds the suffix that splits a state.
    std::vector<Heaps> reps;
    std::vector<uint32_t> next, parent, parent_heap;
    auto access = [&](uint32_t s) {  // the heaps read from the empty position to reach s
        Heaps path;
        for (; s != 0; s = parent[s]) path.push_back(parent_heap[s]);
        std::reverse(path.begin(), path.end());
        return path;
    };
    auto split = [&](const Heaps& path, size_t end, const Heaps& tail) {
        // H_i = reps[x_i] + path[i..end) + tail; H_0 is the position, H_end
        // the state's representative with tail: their outcomes differ.
        std::vector<uint32_t> x{0};
        for (size_t i = 0; i < end; ++i)
            x.push_back(next[x.back() * letters.size() + letter_of[path[i]]]);
        auto h = [&](size_t i) {
            Heaps rest(path.begin() + static_cast<std::ptrdiff_t>(i),
                       path.begin() + static_cast<std::ptrdiff_t>(end));
            std::sort(rest.begin(), rest.end(), std::greater<>());
            return oracle.p(joined(joined(reps[x[i]], rest), tail));
        };
        size_t lo = 0, hi = end;
        const bool first = h(lo);
        while (hi - lo > 1) {
            const size_t mid = (lo + hi) / 2;
            (h(mid) == first ? lo : hi) = mid;
        }
        Heaps suffix(path.begin() + static_cast<std::ptrdiff_t>(hi),
                     path.begin() + static_cast<std::ptrdiff_t>(end));
        suffix = joined(suffix, tail);
        std::sort(suffix.begin(), suffix.end(), std::greater<>());
        suffixes.push_back(suffix);
    };
    if (suffixes.empty()) suffixes.push_back(Heaps{});
    for (;;) {
        check_cancel(cancel);
        // The hypothesis, breadth first from the empty position.
        reps.assign(1, Heaps{});
        next.clear();
        parent.assign(1, 0);
        parent_heap.assign(1, 0);
        std::map<std::vector<uint8_t>, uint32_t> state_of{{row(Heaps{}), 0}};
        for (uint32_t s = 0; s < reps.size(); ++s) {
            for (uint32_t g : letters) {
                Heaps t = with_heap(reps[s], g);
                auto [it, fresh] = state_of.try_emplace(row(t), static_cast<uint32_t>(reps.size()));
                if (fresh) {
                    if (reps.size() >= MAX_QUOTIENT_ORDER) {
                        throw ResourceError(fmt::format("quotient: Q_{} has more than {} elements",
                                                        n, MAX_QUOTIENT_ORDER));
                    }
                    reps.push_back(std::move(t));
                    parent.push_back(s);
                    parent_heap.push_back(g);
                }
                next.push_back(it->second);
            }
        }
        const size_t nl = letters.size();
        // Reading two heaps in either order must reach one state.
        bool commutes = true;
        for (uint32_t s = 0; s < reps.size() && commutes; ++s) {
            for (size_t a = 0; a < nl && commutes; ++a) {
                for (size_t b = a + 1; b < nl && commutes; ++b) {
                    const uint32_t ab = next[next[s * nl + a] * nl + b],
                                   ba = next[next[s * nl + b] * nl + a];
                    if (ab == ba) continue;
                    commutes = false;
                    const std::vector<uint8_t>& ra = row(reps[ab]);
                    const std::vector<uint8_t>& rb = row(reps[ba]);
                    size_t e = 0;
                    while (ra[e] == rb[e]) ++e;
                    const Heaps w =
                        joined(with_heap(with_heap(reps[s], letters[a]), letters[b]), suffixes[e]);
                    const bool truth = oracle.p(w);
                    Heaps path = access(s);
                    if (bool(ra[e]) != truth) {
                        path.push_back(letters[a]), path.push_back(letters[b]);
                    } else {
                        path.push_back(letters[b]), path.push_back(letters[a]);
                    }
                    split(path, path.size(), suffixes[e]);
                }
            }
        }
        if (!commutes) {
            ++refuted;
            continue;
        }
        HeapAutomaton a;
        a.states = static_cast<uint32_t>(reps.size());
        a.letters = letters;
        a.next = next;
        for (const Heaps& r : reps) a.accept.push_back(row(r)[0]);
        std::vector<uint32_t> block(a.states);
        for (uint32_t s = 0; s < a.states; ++s) block[s] = s;
        BipartiteMonoid m = monoid_of(a, block, a.states, n);
        std::optional<QuotientFailure> failure = check(m, moves, cancel);
        if (!failure) return m;
        ++refuted;
        // Descend to a position predicted wrongly, then split along it.
        const Heaps g = mispredicted(failure->position, m, moves, oracle, cancel);
        Heaps path;
        for (uint32_t h : g) {
            if (!moves[h].empty()) path.push_back(h);
        }
        split(path, path.size(), Heaps{});
    }
}

// Q_n from Q_{n-1}: extend and check, refine while that settles it, else
// learn.
BipartiteMonoid next_quotient(const BipartiteMonoid& q, uint32_t n,
                              const std::vector<std::vector<Heaps>>& moves,
                              std::vector<Heaps>& suffixes, uint32_t& refuted,
                              const std::atomic<bool>* cancel) {
    BipartiteMonoid base = q;
    for (unsigned attempt = 0; attempt < REFINEMENTS; ++attempt) {
        BipartiteMonoid candidate = extend(base, n, moves);
        if (candidate.order > MAX_QUOTIENT_ORDER) break;  // a guess too large: learn instead
        if (!check(candidate, moves, cancel)) return candidate;
        ++refuted;
        base = refine(candidate, moves, cancel);
    }
    return learn(moves, q, n, suffixes, refuted, cancel);
}

// A window theorem of quotient.h: phi(h + p) = phi(h) for every h from n0
// to N - p proves the quotient whole when N >= needed(n0, p).
struct Window {
    uint64_t a, b, c;  // needed(n0, p) = a n0 + b p + c - 1 + p
    uint64_t first;    // the smallest n0 the theorem allows
    std::string why;
    uint64_t needed(uint64_t n0, uint64_t p) const { return a * n0 + b * p + c - 1 + p; }
};

std::optional<Window> window_of(const Rule& rule) {
    if (rule.kind() == RuleKind::subtract) {
        const uint64_t s = rule.ranges().back().last;
        return Window{1, 0, s, 0,
                      fmt::format("a move takes at most {} tokens and leaves one heap, so heap "
                                  "h's options are phi of the {} heaps below it",
                                  s, s)};
    }
    if (rule.kind() == RuleKind::octal) {
        const uint64_t t = rule.octal_digits().size() - 1;
        return Window{2, 1, t, 1,
                      fmt::format("a move takes at most {} token{} and a split (a, b) of heap "
                                  "h + p is the split (a, b - p) of heap h",
                                  t, t == 1 ? "" : "s")};
    }
    return std::nullopt;
}

}  // namespace

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

std::optional<QuotientFailure> check_quotient(const Rule& rule, const BipartiteMonoid& m,
                                              const std::atomic<bool>* cancel) {
    if (!rule.one_heap()) throw InputError("quotient: the rule's moves touch several heaps");
    const std::vector<std::vector<Heaps>> moves = heap_moves(rule, m.max_heap());
    std::optional<QuotientFailure> failure = check(m, moves, cancel);
    if (!failure) return failure;
    const BipartiteMonoid nothing_below;  // every position by the definition
    OutcomeOracle oracle(moves, nothing_below, "finding a position it predicts wrongly");
    const Heaps g = mispredicted(failure->position, m, moves, oracle, cancel);
    return QuotientFailure{g, bool(m.p[m.image(g)])};
}

bool quotient_provable(const Rule& rule) {
    return window_of(rule).has_value();
}

std::optional<QuotientProof> prove_quotient(const Rule& rule, const BipartiteMonoid& m) {
    const std::optional<Window> w = window_of(rule);
    if (!w) return std::nullopt;
    const uint64_t n = m.max_heap();
    for (uint64_t p = 1; p <= n; ++p) {
        // phi repeats with period p from `start` up to heap n.
        uint64_t start = n - p + 1;
        while (start > 0 && m.phi[start - 1] == m.phi[start - 1 + p]) --start;
        const uint64_t n0 = std::max(start, w->first);
        if (w->needed(n0, p) > n) continue;
        QuotientProof proof;
        proof.preperiod = static_cast<uint32_t>(start);
        proof.period = static_cast<uint32_t>(p);
        proof.explanation = fmt::format(
            "phi has period {} from heap {}: phi(h + {}) = phi(h) for every h from {} to {}, "
            "and {}; so each heap beyond {} meets the exact check as heap h - {} does, and Q_{} "
            "is the quotient of heaps of every size",
            p, start, p, n0, n - p, w->why, n, p, n);
        return proof;
    }
    return std::nullopt;
}

uint32_t heap_element(const MisereQuotient& q, uint64_t heap) {
    const BipartiteMonoid& m = q.monoid;
    if (heap <= m.max_heap()) return m.phi[heap];
    if (!q.proof) {
        throw InputError(fmt::format(
            "a heap of {} is beyond the quotient's heaps (at most {}), which is not proven for "
            "larger ones",
            heap, m.max_heap()));
    }
    const uint64_t start = q.proof->preperiod, period = q.proof->period;
    return m.phi[start + (heap - start) % period];
}

MisereQuotient misere_quotient(const Rule& rule, uint32_t max_heap,
                               const QuotientOptions& options) {
    if (!rule.one_heap()) {
        throw InputError(
            fmt::format("quotient: {} moves on several heaps at once; misère quotients need moves "
                        "that touch one heap",
                        rule.canonical()));
    }
    if (max_heap > MAX_QUOTIENT_HEAP) {
        throw InputError(fmt::format("quotient: the largest heap may be at most {}, not {}",
                                     MAX_QUOTIENT_HEAP, max_heap));
    }
    const std::vector<std::vector<Heaps>> moves = heap_moves(rule, max_heap);
    MisereQuotient result;
    result.orders.push_back(1);
    BipartiteMonoid q;
    std::vector<Heaps> suffixes;  // learn's, kept from heap to heap
    for (uint32_t n = 1; n <= max_heap; ++n) {
        check_cancel(options.cancel);
        if (moves[n].empty()) {
            q.phi.push_back(0);  // a heap without moves is the empty game
        } else {
            try {
                q = next_quotient(q, n, moves, suffixes, result.candidates, options.cancel);
            } catch (const ResourceError& e) {
                const std::string what = e.what();
                if (what.find("largest computed") != std::string::npos) throw;
                throw ResourceError(fmt::format("{}; Q_{} is the largest computed", what, n - 1));
            }
        }
        result.orders.push_back(q.order);
        if (options.progress) options.progress(n, q.order);
        if (options.until_proven && (result.proof = prove_quotient(rule, q))) break;
    }
    if (!result.proof) result.proof = prove_quotient(rule, q);
    result.monoid = std::move(q);
    present_quotient(result);
    return result;
}

}  // namespace nimtb::engine
