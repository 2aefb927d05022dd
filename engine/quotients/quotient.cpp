#include "engine/quotients/quotient.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "engine/base/errors.h"
#include "engine/base/parallel.h"
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

// Thrown when the deadline has come; misere_quotient returns what it has.
struct TimeUp {};

// What stops a computation: Ctrl-C (or its like), a deadline, and the
// limits on a candidate's order and on the memory of any one step (a
// candidate's automaton, the failure search, the pairs). Past a limit the
// heap stops with a ResourceError, and the command names the largest
// quotient computed.
struct Limits {
    const std::atomic<bool>* cancel = nullptr;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    uint32_t max_order = DEFAULT_QUOTIENT_ORDER;
    // Not a stop but a bound on the check (QuotientOptions::max_copies):
    // when capped_heap is set, the least failure is sought only among
    // positions with at most max_copies copies of it.
    uint32_t capped_heap = 0, max_copies = 0;

    // Room for the multiplication table (order^2 products of 4 bytes) twice
    // over, and never less than 2 GiB.
    uint64_t memory() const {
        return std::max(uint64_t{2} << 30, uint64_t{8} * max_order * max_order);
    }

    void check() const {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        if (deadline && std::chrono::steady_clock::now() >= *deadline) throw TimeUp();
    }
    void within_budget(uint64_t bytes, uint32_t heap, const char* what) const {
        if (bytes > memory()) {
            throw ResourceError(fmt::format("quotient: {} for heap {} needs more than {} GiB", what,
                                            heap, memory() >> 30));
        }
    }
    // A candidate of more elements than a quotient may have is refused
    // before its multiplication table is built.
    void within_order(uint32_t blocks, uint32_t heap) const {
        if (blocks > max_order) {
            throw ResourceError(fmt::format(
                "quotient: a candidate for heap {} has more than {} elements", heap, max_order));
        }
    }
};

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

// Adds to `out` the contexts z with t z in P.
void add_p_contexts(const BipartiteMonoid& m, uint32_t t, Bits& out) {
    for (uint32_t z = 0; z < m.order; ++z) {
        if (m.p[m.mul(t, z)]) set_bit(out, z);
    }
}

// True when a with one more heap x comes before b with one more heap y,
// both of one number of tokens and heaps (the order of monoid.h).
bool before(const Heaps& a, uint32_t x, const Heaps& b, uint32_t y) {
    size_t i = 0, j = 0;
    bool x_read = false, y_read = false;
    for (size_t k = 0; k <= a.size(); ++k) {
        uint32_t u, v;
        if (!x_read && (i == a.size() || x >= a[i])) {
            u = x, x_read = true;
        } else {
            u = a[i++];
        }
        if (!y_read && (j == b.size() || y >= b[j])) {
            v = y, y_read = true;
        } else {
            v = b[j++];
        }
        if (u != v) return u < v;
    }
    return false;
}

// Positions made from the empty one by adding heaps (letters), walked in
// the order of positions. A position with one more heap has more tokens,
// so positions wait in buckets by tokens, each sorted when its turn comes.
// A successor is a walked position (a node, numbered by the caller) with
// one letter more, and a value the caller computes when it is queued.
class PositionWalk {
  public:
    explicit PositionWalk(std::vector<uint32_t> letters) : letters_(std::move(letters)) {}

    // Queues `node` (a position of `tokens` tokens) with each letter;
    // value(letter index) is that successor's value.
    template <class Value>
    void expand(uint32_t node, uint64_t tokens, Value&& value) {
        for (uint32_t l = 0; l < letters_.size(); ++l) {
            const uint64_t t = tokens + letters_[l];
            if (buckets_.size() <= t) buckets_.resize(t + 1);
            buckets_[t].push_back({node, l, value(l)});
        }
    }

    // Calls visit(node, letter index, value, tokens) for each queued
    // successor in order while it returns true; wanted(value) false drops a
    // successor unvisited. position_of(node) is a node's position.
    template <class PositionOf, class Wanted, class Visit>
    void run(PositionOf&& position_of, Wanted&& wanted, Visit&& visit, const Limits& limits) {
        for (uint64_t t = 1; t < buckets_.size(); ++t) {
            limits.check();
            std::vector<Successor> bucket = std::move(buckets_[t]);
            std::erase_if(bucket, [&](const Successor& s) { return !wanted(s.value); });
            std::sort(bucket.begin(), bucket.end(), [&](const Successor& a, const Successor& b) {
                const Heaps& pa = position_of(a.node);
                const Heaps& pb = position_of(b.node);
                if (pa.size() != pb.size()) return pa.size() > pb.size();
                return before(pa, letters_[a.letter], pb, letters_[b.letter]);
            });
            for (const Successor& s : bucket) {
                if (!visit(s.node, s.letter, s.value, t)) return;
            }
        }
    }

    uint32_t letter(uint32_t index) const { return letters_[index]; }

  private:
    struct Successor {
        uint32_t node, letter;
        uint64_t value;
    };
    std::vector<uint32_t> letters_;
    std::vector<std::vector<Successor>> buckets_;
};

// The number of each element met, UINT32_MAX for the others: a table when
// elements are packed in at most DENSE_BITS bits, a hash map when wider (a
// refinement's product, most of whose packed values are never reached).
class Numbering {
  public:
    static constexpr unsigned DENSE_BITS = 26;

    explicit Numbering(unsigned bits) : dense_(bits <= DENSE_BITS) {
        if (dense_) table_.assign(uint64_t{1} << bits, UINT32_MAX);
    }
    uint32_t operator[](uint64_t x) const {
        if (dense_) return table_[x];
        const auto it = map_.find(x);
        return it == map_.end() ? UINT32_MAX : it->second;
    }
    void set(uint64_t x, uint32_t number) {
        if (dense_) {
            table_[x] = number;
        } else {
            map_.emplace(x, number);
        }
    }

  private:
    bool dense_;
    std::vector<uint32_t> table_;
    std::unordered_map<uint64_t, uint32_t> map_;
};

// Numbers each element reachable from the identity (0) by the letters
// (heap sizes) in the order of its smallest position, and calls
// visit(element, that position) in that order. step(element, i) multiplies
// by letter i. Adding a heap keeps the order of positions, so each element
// is first met at its smallest.
template <class Step, class Visit>
void in_position_order(const std::vector<uint32_t>& letters, Step&& step, Visit&& visit,
                       Numbering& number, uint32_t heap, const Limits& limits) {
    std::vector<Heaps> positions{Heaps{}};
    PositionWalk walk(letters);
    number.set(0, 0);
    visit(uint64_t{0}, Heaps{});
    walk.expand(0, 0, [&](uint32_t l) { return step(uint64_t{0}, size_t{l}); });
    walk.run([&](uint32_t node) -> const Heaps& { return positions[node]; },
             [&](uint64_t x) { return number[x] == UINT32_MAX; },
             [&](uint32_t node, uint32_t letter, uint64_t x, uint64_t tokens) {
                 if (number[x] != UINT32_MAX) return true;
                 const auto id = static_cast<uint32_t>(positions.size());
                 // Each element: its position, its number and a successor per letter.
                 limits.within_budget(uint64_t{id} * (letters.size() * 16 + 192), heap,
                                      "a candidate");
                 number.set(x, id);
                 positions.push_back(with_heap(positions[node], walk.letter(letter)));
                 visit(x, static_cast<const Heaps&>(positions.back()));
                 walk.expand(id, tokens, [&](uint32_t l) { return step(x, size_t{l}); });
                 return true;
             },
             limits);
}

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

// The candidate for heaps 1..n from `base`, right for heaps < n.
BipartiteMonoid extend(const BipartiteMonoid& base, uint32_t n,
                       const std::vector<std::vector<Heaps>>& moves, const Limits& limits) {
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
    std::unordered_map<std::vector<uint8_t>, uint32_t, VectorHash> seen{{base.p, 0}};
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
    limits.within_budget(uint64_t{a.states} * a.letters.size() * sizeof(uint32_t), n,
                         "a candidate");
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
    limits.within_order(blocks, n);
    return monoid_of(a, block, blocks, n);
}

// A heap given a part of its own in a refinement: its copies counted up to
// `index`, then modulo `period` (the cyclic monoid C(index, period)).
struct FreePart {
    uint32_t heap, index, period;
    uint32_t size() const { return index + period; }
};

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
BipartiteMonoid refined(const BipartiteMonoid& m, const std::vector<FreePart>& parts, bool keep_old,
                        const std::vector<std::vector<Heaps>>& moves, const Limits& limits) {
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

// The contexts z in which a move in heap h reaches P: some option image t
// has t z in P.
Bits winning_contexts(const BipartiteMonoid& m, const std::vector<uint32_t>& option_images) {
    Bits w(words(m), 0);
    for (uint32_t t : option_images) add_p_contexts(m, t, w);
    return w;
}

// Refinements along the candidates' pairs a heap may try before it is
// refined along least failures.
constexpr unsigned PAIR_REFINEMENTS = 3;

// A finer monoid for heaps < n after `candidate` was refuted. Each position
// G is followed by the pair (phi(G), U(G)), U(G) the contexts z in which a
// move inside G reaches P: pairs multiply as (x, U)(y, V) = (xy, y\U ∪
// x\V), y\U = {z : yz in U}, so the pairs of all positions are the finite
// monoid the heaps' pairs generate (breadth first). Each pair is predicted P
// exactly when it has moves and none reaches P (by the candidate, right for
// positions below heap n); reduced, and restricted to heaps below n.
BipartiteMonoid refine(const BipartiteMonoid& candidate,
                       const std::vector<std::vector<Heaps>>& moves, const Limits& limits) {
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
    std::vector<uint64_t> successors;
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
        successors.assign(size_t{end - done} * nl * nw, 0);
        sync_parallel_for(done, end, [&](uint32_t s) {
            for (size_t l = 0; l < nl; ++l) {
                uint64_t* out = &successors[((s - done) * nl + l) * nw];
                const Bits& v = from_letter[size_t{xs[s]} * nl + l];
                std::copy(v.begin(), v.end(), out);
                or_preimage(m, gen_x[l], us[s], out);
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

// Each heap with moves and its number of copies in `g`.
std::map<uint32_t, uint32_t> copies(const Heaps& g, const std::vector<std::vector<Heaps>>& moves) {
    std::map<uint32_t, uint32_t> out;
    for (uint32_t h : g) {
        if (!moves[h].empty()) ++out[h];
    }
    return out;
}

// A candidate and its least failure, if any.
struct Candidate {
    BipartiteMonoid m;
    std::optional<QuotientFailure> failure;
};

// A refinement of `m` whose least failure comes after `failure`, m's least
// failure. F's class in m holds a smaller position of the other outcome,
// its smallest; free parts for heaps whose copies differ between the two
// tell them apart: one such heap, then two, then every heap of either. Each
// part counts one past the failure's copies, then by twos. A part first
// replaces its heap's old element (a smaller candidate, kept only when its
// least failure does come after F), then stands beside it (which moves the
// least failure on whenever it predicts F right, and with every heap free
// always does: refined() says why).
Candidate recalibrated(const BipartiteMonoid& m, const QuotientFailure& failure,
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
            out.m = refined(m, parts, keep_old, moves, limits);
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

// A lower bound on the order of the quotient that `m` is a candidate for,
// `m` predicting every position of fewer than `tokens` tokens right: for a
// split h + k = tokens - 1, the rows of P over the elements whose smallest
// positions have at most k tokens (contexts), one row for each element
// whose smallest position has at most h. Each row entry is the outcome of
// a position of fewer than `tokens` tokens, so two rows that differ are two
// positions that play tells apart. The best of five splits around the middle.
uint32_t certified_order(const BipartiteMonoid& m, uint64_t tokens,
                         const std::atomic<bool>* cancel) {
    if (tokens == 0) return 0;
    std::vector<uint64_t> weight(m.order);
    for (uint32_t x = 0; x < m.order; ++x) weight[x] = engine::tokens(m.name[x]);
    uint32_t best = 0;
    for (const uint64_t eighths : {2, 3, 4, 5, 6}) {
        const uint64_t h = (tokens - 1) * eighths / 8, k = tokens - 1 - h;
        std::vector<uint32_t> elements, contexts;
        for (uint32_t x = 0; x < m.order; ++x) {
            if (weight[x] <= h) elements.push_back(x);
            if (weight[x] <= k) contexts.push_back(x);
        }
        const size_t nw = (contexts.size() + 63) / 64;
        std::vector<uint64_t> rows(elements.size() * nw, 0);
        sync_parallel_for(size_t{0}, elements.size(), [&](size_t i) {
            if (cancel && cancel->load(std::memory_order_relaxed)) return;
            uint64_t* row = &rows[i * nw];
            for (size_t j = 0; j < contexts.size(); ++j) {
                if (m.p[m.mul(elements[i], contexts[j])]) row[j >> 6] |= uint64_t{1} << (j & 63);
            }
        });
        if (cancel && cancel->load()) throw Cancelled();
        std::unordered_set<Bits, VectorHash> distinct;
        for (size_t i = 0; i < elements.size(); ++i) {
            distinct.emplace(rows.begin() + ptrdiff_t(i * nw),
                             rows.begin() + ptrdiff_t((i + 1) * nw));
        }
        best = std::max(best, static_cast<uint32_t>(distinct.size()));
    }
    return best;
}

// Q_n from Q_{n-1}: the periodic extension; while it fails, the same from
// the candidate's pairs (up to PAIR_REFINEMENTS times); then refinements
// along each least failure of the first candidate until none is left. When
// it stops short (the deadline, a limit), `frontier` says how far it got.
BipartiteMonoid next_quotient(const BipartiteMonoid& q, uint32_t n,
                              const std::vector<std::vector<Heaps>>& moves, uint32_t& refuted,
                              QuotientFrontier& frontier, const Limits& limits) {
    frontier = QuotientFrontier{n, 0, 0, {}, 0};
    const BipartiteMonoid* last = nullptr;  // the last candidate refuted
    auto refute = [&](const BipartiteMonoid& m, const QuotientFailure& f) {
        ++refuted;
        ++frontier.candidates;
        frontier.order = m.order;
        frontier.failure = f;
        last = &m;
    };
    auto extended = [&](const BipartiteMonoid& base) -> std::optional<BipartiteMonoid> {
        try {
            BipartiteMonoid m = extend(base, n, moves, limits);
            if (m.order <= limits.max_order) return m;
        } catch (const ResourceError&) {
        }
        return std::nullopt;
    };
    std::optional<BipartiteMonoid> first;
    std::optional<QuotientFailure> failure;
    BipartiteMonoid paired;  // the last candidate from pairs
    Candidate c;
    // Q_n maps onto Q_{n-1} (positions of smaller heaps that no position
    // tells apart, none of smaller heaps does), so it is never smaller.
    auto stopped = [&] {
        if (!last || !limits.deadline) return;  // reported only with a deadline
        frontier.at_least =
            std::max(q.order, certified_order(*last, frontier.tokens(), limits.cancel));
    };
    try {
        first = extended(q);
        if (first) {
            if (!(failure = least_failure(*first, moves, limits))) return *first;
            refute(*first, *failure);
            paired = *first;
            for (unsigned attempt = 0; attempt < PAIR_REFINEMENTS; ++attempt) {
                std::optional<BipartiteMonoid> next;
                try {
                    next = extended(refine(paired, moves, limits));
                } catch (const ResourceError&) {  // too many pairs: refine along failures instead
                }
                if (!next) break;
                const std::optional<QuotientFailure> f = least_failure(*next, moves, limits);
                if (!f) return *next;
                paired = std::move(*next);
                refute(paired, *f);
            }
            const bool first_was_last = last == &*first;
            c = {std::move(*first), failure};
            if (first_was_last) last = &c.m;
        } else {  // heap n as a free part of its own
            BipartiteMonoid base = q;
            base.phi.push_back(0);
            c.m = refined(base, {{n, 2, 2}}, true, moves, limits);
            c.failure = least_failure(c.m, moves, limits);
            if (c.failure) refute(c.m, *c.failure);
        }
        while (c.failure) {
            c = recalibrated(c.m, *c.failure, moves, limits);
            if (c.failure) refute(c.m, *c.failure);
        }
    } catch (const TimeUp&) {
        stopped();
        throw;
    } catch (const ResourceError&) {
        stopped();
        throw;
    }
    return c.m;
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
    return least_failure(m, moves,
                         Limits{cancel, std::nullopt, std::max(m.order, DEFAULT_QUOTIENT_ORDER)});
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
    if (options.max_order < 2 || options.max_order > MAX_QUOTIENT_ORDER) {
        throw InputError(fmt::format("quotient: the largest order may be 2 to {}, not {}",
                                     MAX_QUOTIENT_ORDER, options.max_order));
    }
    if (options.max_copies &&
        (*options.max_copies == 0 || options.until_proven || options.deadline)) {
        throw InputError(
            "quotient: a cap on the copies of the largest heap must be at least 1, and goes "
            "without a deadline or a proof for every heap size");
    }
    const std::vector<std::vector<Heaps>> moves = heap_moves(rule, max_heap);
    MisereQuotient result;
    result.orders.push_back(1);
    result.max_copies = options.max_copies;
    BipartiteMonoid q;
    const Limits stop{options.cancel, options.deadline, options.max_order};
    Limits last = stop;
    if (options.max_copies) last.capped_heap = max_heap, last.max_copies = *options.max_copies;
    QuotientFrontier frontier;
    for (uint32_t n = 1; n <= max_heap; ++n) {
        try {
            stop.check();
            if (moves[n].empty()) {
                q.phi.push_back(0);  // a heap without moves is the empty game
            } else {
                q = next_quotient(q, n, moves, result.candidates, frontier,
                                  n == max_heap ? last : stop);
            }
        } catch (const TimeUp&) {
            result.stopped = fmt::format("the time ran out while computing Q_{}", n);
            if (frontier.heap == n && frontier.candidates) result.frontier = frontier;
            break;
        } catch (const ResourceError& e) {
            if (options.deadline) {
                result.stopped = e.what();
                if (frontier.heap == n && frontier.candidates) result.frontier = frontier;
                break;
            }
            throw ResourceError(fmt::format("{}; Q_{} is the largest computed", e.what(), n - 1));
        }
        result.orders.push_back(q.order);
        if (options.progress) options.progress(n, q.order);
        if (options.until_proven && (result.proof = prove_quotient(rule, q))) break;
    }
    if (!result.proof && !options.max_copies) result.proof = prove_quotient(rule, q);
    result.monoid = std::move(q);
    present_quotient(result);
    return result;
}

}  // namespace nimtb::engine
