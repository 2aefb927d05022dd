#include "engine/quotients/genus.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "engine/base/errors.h"
#include "engine/game/moves.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

namespace {

// The positions and their moves, each position's options as indices of
// smaller positions (rank order is a topological order: every move lowers
// the rank).
struct Closure {
    std::vector<uint64_t> first;    // options of p: option[first[p] .. first[p + 1])
    std::vector<uint32_t> option;
    std::vector<uint64_t> heap_at;  // the index of the single heap h
    bool splits = false;
};

// Past this many moves in all (4 bytes each) the closure is refused, as past
// max_positions.
constexpr uint64_t MAX_MOVES = 400'000'000;

void check_cancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) throw Cancelled();
}

Closure closure_of(const Rule& rule, uint32_t max_heap, const GenusOptions& options) {
    Closure c;
    c.splits = rule.adds_heaps();
    const auto too_many = [&](const std::string& what) {
        uint32_t fits = max_heap;
        while (fits > 0 && genus_positions(rule, fits) > options.max_positions) --fits;
        return ResourceError(fmt::format(
            "the genus of heaps up to {} needs {}; at most {} positions are held, which reach "
            "heap {}: ask for fewer heaps",
            max_heap, what, options.max_positions, fits));
    };
    const auto too_many_moves = [&](const std::string& where) {
        return ResourceError(fmt::format("the genus of heaps up to {} needs more than {} moves "
                                         "(the limit was passed at {}): ask for fewer heaps",
                                         max_heap, MAX_MOVES, where));
    };
    const uint64_t size = genus_positions(rule, max_heap);
    if (size > options.max_positions)
        throw too_many(fmt::format("the values of {} (every position of at most {} tokens in all)",
                                   size == std::numeric_limits<uint64_t>::max()
                                       ? std::string("more positions than a table can hold")
                                       : fmt::format("{} positions", size),
                                   max_heap));
    c.first.reserve(size + 1);
    c.first.push_back(0);
    if (!c.splits) {
        // Single heaps: heap h is position h. A take family's amounts are
        // listed once (asking the rule of each amount of each heap would
        // cost max_heap^2 / 2 questions).
        const bool takes = rule.kind() == RuleKind::nim || rule.kind() == RuleKind::subtract ||
                           rule.kind() == RuleKind::allbut;
        const std::vector<uint32_t> amounts = takes ? rule.amounts_up_to(max_heap) : std::vector<uint32_t>{};
        if (takes) {
            // Heap h has a move for each amount up to h: count them first.
            const auto moves_to = [&](uint64_t top) {
                uint64_t n = 0;
                for (uint32_t s : amounts) n += s <= top ? top - s + 1 : 0;
                return n;
            };
            if (moves_to(max_heap) > MAX_MOVES) {
                uint64_t lo = 0, hi = max_heap;  // the largest heap whose moves fit
                while (lo < hi) {
                    const uint64_t mid = (lo + hi + 1) / 2;
                    if (moves_to(mid) <= MAX_MOVES) lo = mid;
                    else hi = mid - 1;
                }
                throw ResourceError(fmt::format(
                    "the genus of heaps up to {} needs {} moves; at most {} are held, which reach "
                    "heap {}: ask for fewer heaps",
                    max_heap, moves_to(max_heap), MAX_MOVES, lo));
            }
        }
        for (uint32_t h = 0; h <= max_heap; ++h) {
            if ((h & 0xfff) == 0) check_cancel(options.cancel);
            const uint32_t heap[1] = {h};
            if (takes) {
                for (uint32_t s : amounts) {
                    if (s > h) break;
                    c.option.push_back(h - s);
                }
            } else {
                for_each_child(rule, std::span<const uint32_t>(heap, 1), [&](std::span<const uint32_t> child) {
                    uint32_t left = 0;
                    for (uint32_t x : child) left += x;  // at most one non-empty heap
                    c.option.push_back(left);
                });
            }
            if (c.option.size() > MAX_MOVES) throw too_many_moves(fmt::format("heap {}", h));
            c.first.push_back(c.option.size());
            c.heap_at.push_back(h);
        }
        return c;
    }
    const Universe u = Universe::total_bounded(max_heap);
    Heaps heaps, child;
    for (uint64_t r = 0; r < u.size(); ++r) {
        if ((r & 0xfff) == 0) check_cancel(options.cancel);
        heaps = u.unrank(r);
        heaps.erase(std::remove(heaps.begin(), heaps.end(), 0u), heaps.end());
        for_each_child(rule, heaps, [&](std::span<const uint32_t> after) {
            child.assign(after.begin(), after.end());
            c.option.push_back(static_cast<uint32_t>(rank_child(u, child)));
        });
        if (c.option.size() > MAX_MOVES)
            throw too_many_moves(fmt::format("the position {}", format_heaps(heaps)));
        c.first.push_back(c.option.size());
    }
    for (uint32_t h = 0; h <= max_heap; ++h) c.heap_at.push_back(h ? u.rank_compact(&h, 1) : 0);
    return c;
}

// The least value not in `seen` (values of one position's options).
uint16_t mex(std::vector<uint16_t>& seen) {
    uint64_t mask = 0;
    bool big = false;
    for (uint16_t v : seen) {
        if (v < 64) mask |= uint64_t{1} << v;
        else big = true;
    }
    if (~mask != 0) {
        const auto m = static_cast<uint16_t>(std::countr_one(mask));
        if (m < 64 || !big) return m;
    }
    std::sort(seen.begin(), seen.end());
    uint16_t m = 0;
    for (uint16_t v : seen) {
        if (v == m) ++m;
        else if (v > m) break;
    }
    return m;
}

// One layer: the normal values (normal), γ0 (previous null), or γn from γ(n-1).
std::vector<uint16_t> layer(const Closure& c, bool normal, const std::vector<uint16_t>* previous,
                            const std::atomic<bool>* cancel) {
    const size_t n = c.first.size() - 1;
    std::vector<uint16_t> out(n);
    std::vector<uint16_t> seen;
    for (size_t p = 0; p < n; ++p) {
        if ((p & 0xffff) == 0) check_cancel(cancel);
        seen.clear();
        for (uint64_t i = c.first[p]; i < c.first[p + 1]; ++i) seen.push_back(out[c.option[i]]);
        if (previous) {
            seen.push_back((*previous)[p]);
            seen.push_back(static_cast<uint16_t>((*previous)[p] ^ 1));
        } else if (!normal && seen.empty()) {
            out[p] = 1;  // misère: no move, the player to move wins
            continue;
        }
        const uint16_t m = mex(seen);
        if (m == std::numeric_limits<uint16_t>::max())
            throw ResourceError("a genus value passed 65534");
        out[p] = m;
    }
    return out;
}

}  // namespace

std::string Genus::text() const {
    const bool wide = std::any_of(superscript.begin(), superscript.end(), [](uint32_t v) { return v > 9; });
    std::string s;
    for (size_t i = 0; i < superscript.size(); ++i)
        s += fmt::format("{}{}", wide && i ? "," : "", superscript[i]);
    return fmt::format("{}^{{{}}}", normal, s);
}

bool Genus::tame() const {
    const uint32_t g = normal;
    if (superscript == std::vector<uint32_t>{g, g ^ 2}) return true;  // a heap of two or more
    return g <= 1 && superscript == std::vector<uint32_t>{g ^ 1, g ^ 2, g};  // heaps of one
}

uint64_t genus_positions(const Rule& rule, uint32_t max_heap) {
    if (!rule.one_heap())
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps; the genus is for rules whose "
                         "moves touch one heap");
    if (!rule.adds_heaps()) return uint64_t{max_heap} + 1;
    if (max_heap > Universe::MAX_TOTAL) return std::numeric_limits<uint64_t>::max();
    return Universe::total_bounded(max_heap).size();
}

GenusTable genus_of_heaps(const Rule& rule, uint32_t max_heap, const GenusOptions& options) {
    const Closure c = closure_of(rule, max_heap, options);
    GenusTable t;
    t.positions = c.first.size() - 1;
    t.splits = c.splits;
    const auto report = [&](uint64_t done) {
        if (options.progress) options.progress(done, MAX_GENUS_COPIES + 2);
    };
    const std::vector<uint16_t> normal = layer(c, true, nullptr, options.cancel);
    report(1);
    // γn of each heap for every n, and the last three layers at every position.
    std::vector<std::vector<uint32_t>> gammas(max_heap + 1);
    std::vector<std::vector<uint16_t>> last;
    for (uint32_t n = 0;; ++n) {
        if (n > MAX_GENUS_COPIES)
            throw ResourceError(fmt::format("the genus superscripts did not settle within {} "
                                            "copies of *2",
                                            MAX_GENUS_COPIES));
        last.push_back(layer(c, false, n ? &last.back() : nullptr, options.cancel));
        report(n + 2);
        for (uint32_t h = 0; h <= max_heap; ++h) gammas[h].push_back(last.back()[c.heap_at[h]]);
        if (n >= 2 && last.back() == last[last.size() - 3]) {
            t.copies = n;
            t.alternates_from = n - 2;
            break;
        }
        if (last.size() > 3) last.erase(last.begin());
    }
    // Each heap's superscript: up to the first pair of its alternating tail,
    // the least s with γ(k+2) = γk for every k >= s.
    for (uint32_t h = 0; h <= max_heap; ++h) {
        const std::vector<uint32_t>& g = gammas[h];
        uint32_t s = t.alternates_from;
        while (s > 0 && g[s + 1] == g[s - 1]) --s;
        Genus genus;
        genus.normal = normal[c.heap_at[h]];
        genus.superscript.assign(g.begin(), g.begin() + s + 2);
        t.heaps.push_back(std::move(genus));
    }
    return t;
}

}  // namespace nimtb::engine
