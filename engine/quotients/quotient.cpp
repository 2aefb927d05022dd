#include "engine/quotients/quotient.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "engine/base/errors.h"
#include "engine/base/parallel.h"
#include "engine/quotients/steps.h"

namespace nimtb::engine {

using quotient_steps::Bits;
using quotient_steps::Candidate;
using quotient_steps::extend;
using quotient_steps::heap_moves;
using quotient_steps::least_failure;
using quotient_steps::Limits;
using quotient_steps::refine_by_pairs;
using quotient_steps::refine_past_failure;
using quotient_steps::refine_with_free_parts;
using quotient_steps::TimeUp;

namespace {

// Refinements along the candidates' pairs a heap may try before it is
// refined along least failures.
constexpr unsigned PAIR_REFINEMENTS = 3;

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
                    next = extended(refine_by_pairs(paired, moves, limits));
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
            c.m = refine_with_free_parts(base, {{n, 2, 2}}, true, moves, limits);
            c.failure = least_failure(c.m, moves, limits);
            if (c.failure) refute(c.m, *c.failure);
        }
        while (c.failure) {
            c = refine_past_failure(c.m, *c.failure, moves, limits);
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

}  // namespace

std::optional<QuotientFailure> check_quotient(const Rule& rule, const BipartiteMonoid& m,
                                              const std::atomic<bool>* cancel) {
    if (!rule.one_heap()) throw InputError("quotient: the rule's moves touch several heaps");
    const std::vector<std::vector<Heaps>> moves = heap_moves(rule, m.max_heap());
    return least_failure(m, moves,
                         Limits{cancel, std::nullopt, std::max(m.order, DEFAULT_QUOTIENT_ORDER)});
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
    if (options.resume && (options.resume->monoid.max_heap() > max_heap ||
                           options.resume->max_copies || options.max_copies)) {
        throw InputError(fmt::format(
            "quotient: a quotient resumed must be one of heaps up to at most {}, and no predictor",
            max_heap));
    }
    const std::vector<std::vector<Heaps>> moves = heap_moves(rule, max_heap);
    MisereQuotient result;
    result.orders.push_back(1);
    result.max_copies = options.max_copies;
    BipartiteMonoid q;
    if (options.resume) {
        q = options.resume->monoid;
        result.orders = options.resume->orders;
        result.candidates = options.resume->candidates;
    }
    const bool proven_already = options.until_proven && prove_quotient(rule, q);
    const Limits stop{options.cancel, options.deadline, options.max_order};
    Limits last = stop;
    if (options.max_copies) last.capped_heap = max_heap, last.max_copies = *options.max_copies;
    QuotientFrontier frontier;
    // Stopped in heap n: its refuted candidates are the frontier's, not
    // Q_{n-1}'s (so that a run resumed from Q_{n-1} counts them once).
    auto keep_frontier = [&](uint32_t n) {
        if (frontier.heap != n) return;
        result.candidates -= frontier.candidates;
        if (frontier.candidates) result.frontier = frontier;
    };
    for (uint32_t n = q.max_heap() + 1; n <= max_heap && !proven_already; ++n) {
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
            keep_frontier(n);
            break;
        } catch (const ResourceError& e) {
            if (options.deadline) {
                result.stopped = e.what();
                keep_frontier(n);
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
