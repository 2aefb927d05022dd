#include "engine/checks/verify.h"

#include <fmt/format.h>
#include <oneapi/tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "engine/base/memory.h"
#include "engine/base/names.h"
#include "engine/base/parallel.h"
#include "engine/checks/nim_line_check.h"
#include "engine/game/move_generator.h"
#include "engine/game/moves.h"
#include "engine/quotients/quotient.h"
#include "engine/sequences/reference_values.h"
#include "engine/solve/solver.h"

namespace nimtb::engine {

const char* to_string(Quantity q) {
    static constexpr Named<Quantity> QUANTITIES[] = {{Quantity::value, "value"},
                                                     {Quantity::remoteness, "remoteness"},
                                                     {Quantity::outcome, "outcome"}};
    return name_of(QUANTITIES, q);
}

bool VerifyReport::ok() const {
    return std::all_of(checks.begin(), checks.end(),
                       [](const Check& c) { return !c.must_hold() || c.passed(); });
}

namespace {

uint64_t tokens(const Heaps& h) {
    uint64_t t = 0;
    for (uint32_t a : h) t += a;
    return t;
}

// Counterexamples are ordered by tokens, then rank: the same list whatever
// order or slicing the positions were checked in.
void keep_smallest(std::vector<Counterexample>& list, const Counterexample& ex) {
    auto pos = std::upper_bound(list.begin(), list.end(), ex,
                                [](const Counterexample& a, const Counterexample& b) {
                                    const uint64_t ta = tokens(a.heaps), tb = tokens(b.heaps);
                                    return ta != tb ? ta < tb : a.rank < b.rank;
                                });
    if (pos - list.begin() < static_cast<long>(MAX_COUNTEREXAMPLES)) {
        list.insert(pos, ex);
        if (list.size() > MAX_COUNTEREXAMPLES) list.pop_back();
    }
}

// A test that failed: kept if among the smallest counterexamples.
[[gnu::noinline]] void record_failure(Check& c, const uint32_t* sorted, unsigned k, uint64_t rank,
                                      uint32_t stored, uint32_t expected, Quantity of) {
    Counterexample ex{Heaps(), rank, stored, expected, of};
    for (unsigned i = 0; i < k; ++i) {
        if (sorted[i]) ex.heaps.push_back(sorted[i]);
    }
    keep_smallest(c.counterexamples, ex);
}

// Records one test of a check, keeping the smallest counterexamples (every
// position passes each check this way: the test that held stays inline).
inline void record(Check& c, bool held, const uint32_t* sorted, unsigned k, uint64_t rank,
                   uint32_t stored, uint32_t expected, Quantity of = Quantity::value) {
    ++c.tested;
    if (held) {
        ++c.held;
        return;
    }
    record_failure(c, sorted, k, rank, stored, expected, of);
}

// floor(sqrt(x)), exactly.
uint64_t isqrt(uint64_t x) {
    uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<double>(x)));
    while (r * r > x) --r;
    while ((r + 1) * (r + 1) <= x) ++r;
    return r;
}

// Wythoff: a position of at most two heaps a <= b is P exactly when, with
// n = b - a, a = floor(n phi) (and so b = floor(n phi^2) = a + n). With
// phi = (1 + sqrt 5) / 2, floor(n phi) = floor((n + floor(sqrt(5 n^2))) / 2):
// exact integer arithmetic, no rounding.
bool wythoff_p(uint32_t a, uint32_t b) {
    const uint64_t n = b - a;
    return a == (n + isqrt(5 * n * n)) / 2;
}

// Moore's Nim_k: P exactly when, for every binary digit, the number of
// heaps with that digit set is a multiple of k + 1.
bool moore_p(const uint32_t* heaps, unsigned count, unsigned k) {
    for (unsigned bit = 0; bit < 32; ++bit) {
        unsigned ones = 0;
        for (unsigned i = 0; i < count; ++i) ones += (heaps[i] >> bit) & 1;
        if (ones % (k + 1)) return false;
    }
    return true;
}

SingleHeaps single_heap_values(TableSource& table, const Universe& u, const Rule& rule,
                               Convention convention) {
    SingleHeaps s;
    Heaps h(u.max_heaps(), 0);
    for (uint32_t a = 0; a <= u.max_heap_size(); ++a) {
        h.back() = a;
        s.values.push_back(table.value(u.rank(h)));
    }
    s.period = find_period(rule, convention, s.values);
    return s;
}

// a[first, first + count) widened into out.
void widen(const QuantityArray& a, uint64_t first, uint64_t count, std::vector<uint32_t>& out) {
    out.resize(count);
    if (a.bits() == 8) {
        std::copy_n(a.data<uint8_t>() + first, count, out.begin());
    } else {
        std::copy_n(a.data<uint16_t>() + first, count, out.begin());
    }
}

// What every slice of a verification needs, read-only.
struct Context {
    const Universe& u;
    MoveGenerator gen;  // copied per slice: it keeps state from one position to the next
    const std::vector<uint32_t>& single;
    const std::vector<uint32_t>& normal_single;
    bool normal;
    unsigned moore_k;
    const BipartiteMonoid* quotient;  // misère tables of one-heap rules, when computed
    bool values_are_heaps = false;    // normal_single[h] = h for every h (Nim)
};

// The consistency check of ranks [first, last) by Nim's lines, their
// entries in `values` and `remoteness` (null without); the ranks come as
// LineCheck::next_run needs them (in rank order, or a block of the grouped
// order: verify_grouped).
void check_lines(const Universe& u, LineCheck& lines, uint64_t first, uint64_t last,
                 const uint32_t* values, const uint32_t* remoteness, Check& consistency) {
    const unsigned k = u.max_heaps();
    Heaps heaps = u.unrank(first);
    // Run by run: the positions that share every heap but the smallest.
    std::vector<uint32_t> want_v(size_t{u.max_heap_size()} + 1), want_r(want_v.size());
    for (uint64_t rank = first; rank < last;) {
        const uint32_t start = heaps[0];
        const uint32_t top = k > 1 ? heaps[1] : u.max_heap_size();
        const uint64_t count = std::min<uint64_t>(top - start + 1, last - rank);
        const uint64_t at = rank - first;
        lines.next_run(heaps.data(), count, values + at, remoteness ? remoteness + at : nullptr,
                       want_v.data(), want_r.data());
        for (uint64_t t = 0; t < count; ++t) {
            heaps[0] = static_cast<uint32_t>(start + t);
            const uint32_t v = values[at + t];
            const uint32_t r = remoteness ? remoteness[at + t] : 0;
            const bool consistent = v == want_v[t] && (!remoteness || r == want_r[t]);
            record(consistency, consistent, heaps.data(), k, rank + t, v != want_v[t] ? v : r,
                   v != want_v[t] ? want_v[t] : want_r[t],
                   v != want_v[t] ? Quantity::value : Quantity::remoteness);
        }
        rank += count;
        if (rank < last) u.next(heaps);
    }
}

// The largest the smallest heap gets with the other heaps of `sorted` as
// they are: the positions from sorted[0] up to it have consecutive ranks, a
// run (colex order raises the smallest heap first).
uint32_t run_top(const Universe& u, const uint32_t* sorted) {
    const unsigned k = u.max_heaps();
    uint32_t top = k > 1 ? sorted[1] : u.max_heap_size();
    if (!u.is_box()) {
        uint64_t others = 0;
        for (unsigned i = 1; i < k; ++i) others += sorted[i];
        top = static_cast<uint32_t>(std::min<uint64_t>(top, u.max_total() - others));
    }
    return top;
}

// Adds one to counts[x] for each x of xs[0, n), growing counts as needed.
void tally(std::vector<uint64_t>& counts, const uint32_t* xs, uint64_t n) {
    const uint32_t most = *std::max_element(xs, xs + n);
    if (most >= counts.size()) counts.resize(size_t{most} + 1, 0);
    for (uint64_t t = 0; t < n; ++t) ++counts[xs[t]];
}

// One check over the n positions of a run: held(t) for each; each t where
// it does not is recorded by failed(t) (a second pass, only when some did not).
template <class Held, class Failed>
void test_run(Check& c, uint64_t n, const Held& held, const Failed& failed) {
    uint64_t ok = 0;
    for (uint64_t t = 0; t < n; ++t) ok += held(t);
    c.tested += n;
    c.held += ok;
    if (ok == n) return;
    for (uint64_t t = 0; t < n; ++t) {
        if (!held(t)) failed(t);
    }
}

// Bouton's misère rule on nim-heaps g: P exactly when every g <= 1 and the
// number of 1s is odd, or some g >= 2 and the XOR is 0. What it needs of
// a run's heaps g[1..k-1] is kept; p(a) answers with g[0] = a.
struct MisereAbove {
    uint32_t x = 0, ones = 0;
    bool big = false;
    MisereAbove(const uint32_t* g, unsigned k) {
        for (unsigned i = 1; i < k; ++i) {
            x ^= g[i];
            ones += g[i] == 1;
            big |= g[i] >= 2;
        }
    }
    bool p(uint32_t a) const { return big || a >= 2 ? (x ^ a) == 0 : (ones + (a == 1)) % 2 == 1; }
};

// Verifies ranks [first, last), their entries from `values` and `remoteness`
// (null without), into `report` (counts, histograms, checks); the
// consistency check by looking each position's children up, unless `lines`
// checks it apart. A run at a time: what the heaps above the smallest give
// each check is worked out once a run, and each check goes along the run.
void verify_range(const Context& ctx, TableSource& table, uint64_t first, uint64_t last,
                  const uint32_t* values, const uint32_t* remoteness, VerifyReport& report,
                  bool lines) {
    const Universe& u = ctx.u;
    const unsigned k = u.max_heaps();
    const bool normal = ctx.normal;
    Check& consistency = report.check(CheckId::consistency);
    Check& sg = report.check(CheckId::sprague_grundy);
    Check& bouton = report.check(CheckId::bouton);
    Check& misere = report.check(CheckId::misere_nim);
    Check& misere_values = report.check(CheckId::misere_rule_on_values);
    Check& wythoff = report.check(CheckId::wythoff);
    Check& moore = report.check(CheckId::moore);
    Check& quotient = report.check(CheckId::misere_quotient);
    std::vector<uint64_t> children;
    std::vector<uint8_t> seen;
    MoveGenerator gen = ctx.gen;
    Heaps heaps = u.unrank(first);
    std::vector<uint32_t> g(k);
    const bool rem = table.has_remoteness();
    const std::vector<uint32_t>& single = ctx.single;
    const std::vector<uint32_t>& normal_single = ctx.normal_single;
    std::vector<uint64_t> value_counts, remoteness_counts;
    // The quotient's image of the heaps above the smallest, kept as the
    // products of the heaps' elements from each heap up (suffix[i]: heaps
    // i..k-1): the next run changes the lowest heaps only, so only their
    // products are redone.
    std::vector<uint32_t> suffix(k + 1, 0), was(k, UINT32_MAX);
    for (uint64_t rank = first; rank < last;) {
        const uint32_t start = heaps[0];
        const uint64_t n = std::min<uint64_t>(run_top(u, heaps.data()) - start + 1, last - rank);
        const uint32_t* v = values + (rank - first);
        const uint32_t* r = rem ? remoteness + (rank - first) : nullptr;
        // A test of check c that failed at position t of the run.
        const auto failed = [&](Check& c, uint64_t t, uint32_t stored, uint32_t expected,
                                Quantity of) {
            heaps[0] = static_cast<uint32_t>(start + t);
            record_failure(c, heaps.data(), k, rank + t, stored, expected, of);
            heaps[0] = start;
        };
        const auto outcome = [&](Check& c, uint64_t t, bool p) {
            failed(c, t, v[t] == 0 ? 0 : 1, p ? 0 : 1, Quantity::outcome);
        };
        tally(value_counts, v, n);
        for (uint64_t t = 0; t < n; ++t) report.p_positions += v[t] == 0;
        if (rem) tally(remoteness_counts, r, n);

        // 1. Consistency with the definitions, from the stored children
        // (unless check_lines does it); the checks that look at the whole
        // position: position by position.
        if (!lines || wythoff.applies || moore.applies) {
            for (uint64_t t = 0; t < n; ++t) {
                heaps[0] = static_cast<uint32_t>(start + t);
                if (!lines) {
                    gen.child_ranks(heaps, children);
                    seen.assign(children.size() + 2, 0);
                    uint32_t max_all = 0, min_p = UINT32_MAX;
                    for (const uint64_t child : children) {
                        const uint32_t cv = table.value(child);
                        if (cv < seen.size()) seen[cv] = 1;
                        if (rem) {
                            const uint32_t cr = table.remoteness(child);
                            max_all = std::max(max_all, cr);
                            if (cv == 0) min_p = std::min(min_p, cr);
                        }
                    }
                    uint32_t mex = 0;
                    while (seen[mex]) ++mex;
                    const uint32_t want_v = children.empty() ? (normal ? 0 : 1) : mex;
                    const uint32_t want_r =
                        children.empty() ? 0 : 1 + (want_v == 0 ? max_all : min_p);
                    const uint32_t rt = rem ? r[t] : 0;
                    const bool consistent = v[t] == want_v && (!rem || rt == want_r);
                    record(consistency, consistent, heaps.data(), k, rank + t,
                           v[t] != want_v ? v[t] : rt, v[t] != want_v ? want_v : want_r,
                           v[t] != want_v ? Quantity::value : Quantity::remoteness);
                }
                if (wythoff.applies && (k < 3 || heaps[k - 3] == 0)) {
                    const bool p = wythoff_p(k >= 2 ? heaps[k - 2] : 0, heaps[k - 1]);
                    record(wythoff, (v[t] == 0) == p, heaps.data(), k, rank + t, v[t] == 0 ? 0 : 1,
                           p ? 0 : 1, Quantity::outcome);
                }
                if (moore.applies) {
                    const bool p = moore_p(heaps.data(), k, ctx.moore_k);
                    record(moore, (v[t] == 0) == p, heaps.data(), k, rank + t, v[t] == 0 ? 0 : 1,
                           p ? 0 : 1, Quantity::outcome);
                }
            }
            heaps[0] = start;
        }

        // 2-7. The theorems and the finding, along the run.
        if (sg.applies) {
            uint32_t above = 0;
            for (unsigned i = 1; i < k; ++i) above ^= single[heaps[i]];
            const auto want = [&](uint64_t t) { return above ^ single[start + t]; };
            test_run(
                sg, n, [&](uint64_t t) { return v[t] == want(t); },
                [&](uint64_t t) { failed(sg, t, v[t], want(t), Quantity::value); });
        }
        if (bouton.applies) {
            uint32_t above = 0;
            for (unsigned i = 1; i < k; ++i) above ^= heaps[i];
            const auto want = [&](uint64_t t) { return above ^ static_cast<uint32_t>(start + t); };
            test_run(
                bouton, n, [&](uint64_t t) { return v[t] == want(t); },
                [&](uint64_t t) { failed(bouton, t, v[t], want(t), Quantity::value); });
        }
        const MisereAbove on_heaps(heaps.data(), k);
        const auto misere_p = [&](uint64_t t) {
            return on_heaps.p(static_cast<uint32_t>(start + t));
        };
        if (misere.applies) {
            test_run(
                misere, n, [&](uint64_t t) { return (v[t] == 0) == misere_p(t); },
                [&](uint64_t t) { outcome(misere, t, misere_p(t)); });
        }
        if (misere_values.applies) {
            // For Nim the values are the heaps themselves: the rule's answer is Bouton's.
            const bool same = misere.applies && ctx.values_are_heaps;
            for (unsigned i = 0; i < k; ++i) g[i] = same ? heaps[i] : normal_single[heaps[i]];
            const MisereAbove on_values(g.data(), k);
            const auto p = [&](uint64_t t) {
                return same ? misere_p(t) : on_values.p(normal_single[start + t]);
            };
            test_run(
                misere_values, n, [&](uint64_t t) { return (v[t] == 0) == p(t); },
                [&](uint64_t t) { outcome(misere_values, t, p(t)); });
        }
        if (quotient.applies) {
            const BipartiteMonoid& q = *ctx.quotient;
            unsigned changed = k;
            while (changed > 1 && heaps[changed - 1] == was[changed - 1]) --changed;
            for (unsigned j = changed; j-- > 1;) {
                suffix[j] = q.mul(q.phi[heaps[j]], suffix[j + 1]);
                was[j] = heaps[j];
            }
            const uint32_t above = suffix[1];
            const auto p = [&](uint64_t t) { return q.p[q.mul(q.phi[start + t], above)] != 0; };
            test_run(
                quotient, n, [&](uint64_t t) { return (v[t] == 0) == p(t); },
                [&](uint64_t t) { outcome(quotient, t, p(t)); });
        }
        rank += n;
        heaps[0] = static_cast<uint32_t>(start + n - 1);
        if (rank < last) u.next(heaps);
    }
    for (uint32_t i = 0; i < value_counts.size(); ++i) {
        if (value_counts[i]) report.value_histogram[i] += value_counts[i];
    }
    for (uint32_t i = 0; i < remoteness_counts.size(); ++i) {
        if (remoteness_counts[i]) report.remoteness_histogram[i] += remoteness_counts[i];
    }
}

// The remoteness entries of a slice, null when the table has none.
const uint32_t* rem(const std::vector<uint32_t>& remoteness) {
    return remoteness.empty() ? nullptr : remoteness.data();
}

// A report with the checks of `whole` and nothing counted: a part's.
VerifyReport empty_part(const VerifyReport& whole) {
    VerifyReport part;
    part.checks = whole.checks;
    for (Check& c : part.checks) {
        c.tested = c.held = 0;
        c.counterexamples.clear();  // those merged so far are the report's
    }
    return part;
}

// Adds a slice's report to the whole one.
void merge(VerifyReport& into, const VerifyReport& part) {
    into.p_positions += part.p_positions;
    for (const auto& [v, n] : part.value_histogram) into.value_histogram[v] += n;
    for (const auto& [r, n] : part.remoteness_histogram) into.remoteness_histogram[r] += n;
    for (size_t i = 0; i < into.checks.size(); ++i) {
        Check& c = into.checks[i];
        const Check& p = part.checks[i];
        c.tested += p.tested;
        c.held += p.held;
        for (const Counterexample& ex : p.counterexamples) keep_smallest(c.counterexamples, ex);
    }
}

// Positions a group of the grouped order holds at most here: the group is
// read whole, 8 bytes a position.
constexpr uint64_t GROUP_LIMIT = uint64_t{1} << 24;

// Nim's line check on every thread: the ranks in the grouped solve order
// (solve_order.h: groups contiguous in rank and in rank order; within a
// group, levels whose blocks touch disjoint lines, since two positions of
// a level on one line share a block — the fact the solver's line kernel
// rests on, and which its tests check against every child the rules give).
// A group's levels' blocks are line-checked in parallel, one level after
// the other, while its positions' other checks run beside them as tasks
// in slices (they need no order), filling the threads a level with few
// blocks leaves idle. A source several threads may read is read by each
// task for its own positions; any other is read a group at a time first.
void verify_grouped(const Context& ctx, TableSource& table, LineCheck& lines, VerifyReport& report,
                    const std::function<void(uint64_t, uint64_t)>& progress) {
    const Universe& u = ctx.u;
    const unsigned k = u.max_heaps();
    const uint64_t h = u.max_heap_size();
    unsigned p = 1;
    while (p + 1 < k && binomial(h + k - p, k - p) > GROUP_LIMIT) ++p;
    const SolveOrder order = make_order(u, std::min(p + 2, k - 1), p);
    const VerifyReport blank = empty_part(report);
    tbb::enumerable_thread_specific<Check> consistency(blank.check(CheckId::consistency));
    const bool each_task_reads = table.thread_safe();
    std::vector<uint32_t> values, remoteness;  // a group, unless each task reads its own
    struct Entries {
        std::vector<uint32_t> values, remoteness;
    };
    // Separate per thread for the blocks and the slices: a thread waiting
    // for a level may run a slice.
    tbb::enumerable_thread_specific<Entries> block_entries, slice_entries;
    for (size_t g = 0; g < order.groups.size(); ++g) {
        const Group& group = order.groups[g];
        const size_t end =
            g + 1 < order.groups.size() ? order.groups[g + 1].first_level : order.levels();
        if (!each_task_reads) table.read(group.first, group.count, values, remoteness);
        // The entries of ranks [first, first + count) of the group.
        using Pointers = std::pair<const uint32_t*, const uint32_t*>;
        auto entries = [&](uint64_t first, uint64_t count, Entries& own) -> Pointers {
            if (each_task_reads) {
                table.read(first, count, own.values, own.remoteness);
                return {own.values.data(), rem(own.remoteness)};
            }
            const uint64_t at = first - group.first;
            return {values.data() + at, remoteness.empty() ? nullptr : remoteness.data() + at};
        };
        const uint64_t slice = std::max<uint64_t>(group.count / 16, 1 << 14);
        const uint64_t slices = (group.count + slice - 1) / slice;
        std::vector<VerifyReport> parts(slices, blank);
        tbb::task_group others;
        try {
            for (uint64_t s = 0; s < slices; ++s) {
                sync_run(others, [&, s] {
                    const uint64_t first = group.first + s * slice;
                    const uint64_t n = std::min(group.first + group.count - first, slice);
                    const auto [v, r] = entries(first, n, slice_entries.local());
                    verify_range(ctx, table, first, first + n, v, r, parts[s], true);
                });
            }
            for (size_t level = group.first_level; level < end; ++level) {
                sync_parallel_for_with(
                    tbb::blocked_range<size_t>(order.level_start[level],
                                               order.level_start[level + 1], 1),
                    [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t b = r.begin(); b != r.end(); ++b) {
                            const Block& block = order.blocks[b];
                            const auto [v, rm] =
                                entries(block.first, block.count, block_entries.local());
                            check_lines(u, lines, block.first, block.first + block.count, v, rm,
                                        consistency.local());
                        }
                    },
                    tbb::simple_partitioner());
            }
        } catch (...) {
            sync_wait(others);
            throw;
        }
        sync_wait(others);
        for (const VerifyReport& part : parts) merge(report, part);
        if (progress) progress(group.first + group.count, u.size());
    }
    VerifyReport by_lines = blank;
    for (const Check& c : consistency) {
        Check& into = by_lines.check(CheckId::consistency);
        into.tested += c.tested;
        into.held += c.held;
        for (const Counterexample& ex : c.counterexamples) keep_smallest(into.counterexamples, ex);
    }
    merge(report, by_lines);
}

}  // namespace

void ArraySource::read(uint64_t first, uint64_t count, std::vector<uint32_t>& values,
                       std::vector<uint32_t>& remoteness) {
    widen(values_, first, count, values);
    if (has_remoteness()) {
        widen(remoteness_, first, count, remoteness);
    } else {
        remoteness.clear();
    }
}

VerifyReport verify(const Rule& rule, Convention convention, const Universe& u, TableSource& table,
                    const std::function<void(uint64_t, uint64_t)>& progress, bool line_check) {
    VerifyReport report;
    report.positions = u.size();
    const bool normal = convention == Convention::normal;
    const bool is_nim = rule.take_family() && rule.allows_all_up_to(u.max_heap_size());

    auto check = [](const char* name, const char* description, bool applies, Basis basis) {
        Check c;
        c.name = name;
        c.description = description;
        c.applies = applies;
        c.basis = basis;
        return c;
    };
    report.checks = {
        check("consistency",
              "every value is the mex of its children's values and every remoteness meets its "
              "definition",
              true, Basis::definition),
        check("sprague-grundy", "value = XOR of the values of its single heaps",
              normal && rule.one_heap(), Basis::theorem),
        check("bouton", "value = XOR of the heap sizes (Nim)", normal && is_nim, Basis::theorem),
        check("misere-nim",
              "P exactly when all heaps <= 1 and their number is odd, or some heap >= 2 and the "
              "XOR is 0",
              !normal && is_nim, Basis::theorem),
        check("misere-rule-on-values",
              "the misere-Nim rule applied to the heaps' normal-play values predicts the outcome",
              !normal && !is_nim && rule.one_heap(), Basis::observation),
        check("wythoff",
              "a position of at most two heaps a <= b is P exactly when a = floor(n phi), "
              "n = b - a",
              normal && rule.kind() == RuleKind::wythoff, Basis::theorem),
        check("moore", "P exactly when every binary digit is set in a multiple of k+1 heaps",
              normal && rule.kind() == RuleKind::moore, Basis::theorem),
        check("misere-quotient",
              "the misère quotient of the heaps up to the largest (computed and checked from the "
              "rules) predicts the outcome: P exactly when the product of the heaps' classes is in "
              "its P-portion",
              !normal && rule.one_heap(), Basis::theorem),
    };
    static_assert(CHECK_COUNT == 8, "one entry per CheckId, in order");
    std::optional<BipartiteMonoid> quotient;
    if (Check& q = report.check(CheckId::misere_quotient); q.applies) {
        if (u.max_heap_size() > VERIFY_QUOTIENT_MAX_HEAP) {
            q.applies = false;
            q.skipped = fmt::format("heaps above {} are beyond the quotients verify computes",
                                    VERIFY_QUOTIENT_MAX_HEAP);
        } else {
            try {
                QuotientOptions options;
                options.max_order = VERIFY_QUOTIENT_MAX_ORDER;
                MisereQuotient m = misere_quotient(rule, u.max_heap_size(), options);
                q.description += fmt::format(" (order {})", m.monoid.order);
                quotient = std::move(m.monoid);
            } catch (const ResourceError& e) {
                q.applies = false;
                q.skipped = fmt::format(
                    "beyond the quotients verify computes ({} elements at "
                    "most): {}",
                    VERIFY_QUOTIENT_MAX_ORDER, e.what());
            }
        }
    }
    report.single_heaps = single_heap_values(table, u, rule, convention);
    std::vector<uint32_t> normal_single;
    if (report.check(CheckId::misere_rule_on_values).applies) {
        // The normal-play values of single heaps, by the Sprague-Grundy method.
        normal_single = grundy_sequence(rule, u.max_heap_size());
    }
    Context ctx{u,
                MoveGenerator(rule, u),
                report.single_heaps.values,
                normal_single,
                normal,
                rule.kind() == RuleKind::moore ? rule.moore_k() : 0,
                quotient ? &*quotient : nullptr};
    // Where the single heaps' normal values are the heaps themselves (Nim),
    // the rule on values is Bouton's misère rule on the heaps: one answer for both.
    ctx.values_are_heaps = !normal_single.empty();
    for (uint32_t h = 0; h < normal_single.size(); ++h)
        ctx.values_are_heaps = ctx.values_are_heaps && normal_single[h] == h;
    // Nim in a box: the consistency check line by line (nim_line_check.h), in
    // one pass in rank order, when its lines fit in the memory left (the
    // table is in memory already, or streams from disk); a quarter is kept
    // for the rest.
    std::optional<LineCheck> lines;
    const uint64_t available = available_memory();
    if (line_check && LineCheck::applies(rule, u) &&
        (available == 0 || LineCheck::bytes(u, table.has_remoteness()) <= available / 4 * 3)) {
        lines.emplace(u, convention, table.has_remoteness());
    }
    if (lines && u.max_heaps() >= 3) {
        verify_grouped(ctx, table, *lines, report, progress);
        return report;
    }
    if (lines || !table.thread_safe()) {
        // One pass in rank order: a streaming source reads its chunks in
        // sequence, a slice of at most 2^24 positions at a time (a power of
        // two, so that slices end where chunks do). The line check of a
        // slice runs beside its other checks, on two threads.
        const uint64_t step = std::bit_floor(
            std::min<uint64_t>(std::max<uint64_t>(u.size() / 100, 1 << 16), uint64_t{1} << 24));
        std::vector<uint32_t> values, remoteness;
        for (uint64_t first = 0; first < u.size(); first += step) {
            const uint64_t last = std::min(u.size(), first + step);
            table.read(first, last - first, values, remoteness);
            if (lines) {
                // Two tasks, through the loop ThreadSanitizer can follow (parallel.h).
                VerifyReport by_lines = empty_part(report), rest = empty_part(report);
                sync_parallel_for_with(
                    tbb::blocked_range<int>(0, 2, 1),
                    [&](const tbb::blocked_range<int>& r) {
                        for (int task = r.begin(); task != r.end(); ++task) {
                            if (task == 0) {
                                check_lines(u, *lines, first, last, values.data(), rem(remoteness),
                                            by_lines.check(CheckId::consistency));
                            } else {
                                verify_range(ctx, table, first, last, values.data(),
                                             rem(remoteness), rest, true);
                            }
                        }
                    },
                    tbb::simple_partitioner());
                merge(report, by_lines);
                merge(report, rest);
            } else {
                verify_range(ctx, table, first, last, values.data(), rem(remoteness), report,
                             false);
            }
            if (progress) progress(last, u.size());
        }
        return report;
    }
    // Slices verified in parallel, a batch at a time so that progress is
    // reported from this thread; merged in slice order.
    const uint64_t slice = std::max<uint64_t>(u.size() / 1024, 1 << 14);
    const uint64_t slices = (u.size() + slice - 1) / slice;
    const uint64_t batch = 16;
    for (uint64_t b = 0; b < slices; b += batch) {
        const uint64_t e = std::min(slices, b + batch);
        std::vector<VerifyReport> parts(e - b);
        sync_parallel_for(b, e, [&](uint64_t s) {
            VerifyReport& part = parts[s - b];
            part = empty_part(report);
            const uint64_t first = s * slice, last = std::min(u.size(), (s + 1) * slice);
            std::vector<uint32_t> values, remoteness;
            table.read(first, last - first, values, remoteness);
            verify_range(ctx, table, first, last, values.data(), rem(remoteness), part, false);
        });
        for (const VerifyReport& part : parts) merge(report, part);
        if (progress) progress(std::min(u.size(), e * slice), u.size());
    }
    return report;
}

}  // namespace nimtb::engine
