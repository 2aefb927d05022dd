#include "engine/sequences/sequence.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <mutex>
#include <thread>

#include "engine/base/names.h"
#include "engine/sequences/online_prover.h"
#include "engine/sequences/reference_values.h"
#include "engine/sequences/split_values.h"

namespace nimtb::engine {

namespace {

using namespace split_values;

constexpr Named<SequenceMethod> METHODS[] = {{SequenceMethod::automatic, "auto"},
                                             {SequenceMethod::plain, "plain"},
                                             {SequenceMethod::sparse, "sparse"}};

// The sparse method starts once this many heaps are known by the plain one:
// enough values to choose a mask from.
constexpr uint64_t FIRST_SPARSE = 256;
// The sparse method runs on two threads once a heap takes longer than this
// on one: the threads hand each heap over, which costs a few hundred ns.
constexpr std::chrono::nanoseconds TWO_THREADS_FROM{1500};
// The longest stretch of heaps between two looks at the rare heaps' growth.
constexpr uint64_t STRETCH = uint64_t{1} << 20;

// Take rules (nim, subtract, allbut): g(n) = mex { g(n - s) : s a move }.
// A subtraction game reads its listed amounts, O(|S|) a heap. Nim and
// `allbut` allow every amount but a few: the mex of every earlier value
// except those of the few excluded heaps, from counts of the values seen
// (their mex only grows), O(|excluded|) a heap.
class TakeValues {
  public:
    TakeValues(const Rule& rule, uint64_t max_heap)
        : every_but_(rule.kind() != RuleKind::subtract), count_(every_but_ ? VALUES : 0, 0) {
        const uint32_t top = static_cast<uint32_t>(std::min<uint64_t>(max_heap, Rule::MAX_AMOUNT));
        for (const AmountRange& r : rule.ranges()) {
            for (uint64_t a = r.first; a <= std::min(r.last, top); ++a)
                amounts_.push_back(static_cast<uint32_t>(a));
        }
    }
    void value(std::vector<uint16_t>& g, uint64_t n, Options& o) {
        if (!every_but_) {
            o.next();
            for (const uint32_t s : amounts_) {
                if (s > n) break;
                o.add(g[n - s]);
            }
            store(g, n, o.mex());
            return;
        }
        // The listed amounts are the excluded ones here.
        uint32_t v = mex_;
        for (const uint32_t s : amounts_) {
            if (s > n) break;
            if (--count_[g[n - s]] == 0) v = std::min<uint32_t>(v, g[n - s]);
        }
        for (const uint32_t s : amounts_) {
            if (s > n) break;
            ++count_[g[n - s]];
        }
        store(g, n, v);
        ++count_[v];
        while (mex_ < VALUES && count_[mex_]) ++mex_;
    }

  private:
    bool every_but_;
    std::vector<uint32_t> amounts_;  // ascending: subtract's moves, or allbut's exclusions
    std::vector<uint64_t> count_;    // every_but_: how many heaps below n have each value
    uint32_t mex_ = 0;               // every_but_: the mex of the values below n
};

Periodicity unproven(const Rule& rule, uint64_t computed) {
    Periodicity r;
    r.explanation = fmt::format(
        "no theorem proves a period of {} from finitely many values; computed up to heap {}",
        rule.canonical(), computed);
    return r;
}

}  // namespace

SequenceMethod parse_sequence_method(std::string_view text) {
    return parse_name(METHODS, text, "sequence method");
}

const char* to_string(SequenceMethod m) {
    return name_of(METHODS, m);
}

bool SplitMoves::splits() const {
    return std::any_of(digits.begin(), digits.end(), [](const Digit& d) { return d.bits & 4; });
}

std::optional<SplitMoves> split_moves(const Rule& rule) {
    SplitMoves s;
    if (rule.kind() == RuleKind::grundy) {
        s.digits.push_back({0, 4});
        s.unequal = true;
        return s;
    }
    if (rule.kind() != RuleKind::octal) return std::nullopt;
    const std::vector<uint8_t>& d = rule.code_digits();
    for (uint32_t k = 0; k < d.size(); ++k) {
        if (d[k]) s.digits.push_back({k, d[k]});
    }
    return s;
}

SequenceRecord sequence_record(std::span<const uint16_t> values, uint32_t mask) {
    SequenceRecord r;
    r.mask = mask;
    Milestone m{0, 0, 0, 0};
    uint64_t next = uint64_t{1} << 10;
    for (uint64_t n = 0; n < values.size(); ++n) {
        const uint32_t v = values[n];
        if (n == 0 || v > m.largest) {
            m.largest = v;
            m.largest_heap = n;
        }
        if (mask && n >= 1 && split_values::rare_under(mask, v)) {
            ++m.rare_heaps;
            r.rare.push_back({n, v});
        }
        m.heaps = n + 1;
        if (m.heaps == next) {
            r.milestones.push_back(m);
            next *= 2;
        }
    }
    if (r.milestones.empty() || r.milestones.back().heaps != m.heaps) r.milestones.push_back(m);
    return r;
}

uint64_t long_sequence_bytes(uint64_t max_heap) {
    return (max_heap + 1) * sizeof(uint16_t);
}

void check_long_sequence(const Rule& rule, const SequenceOptions& options) {
    if (!rule.one_heap()) {
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps, so a position's value is not the "
                         "XOR of its heaps' values; solve whole positions instead");
    }
    if (options.until_proven && !proof_window(rule, Convention::normal)) {
        throw InputError("no theorem proves a period of " + rule.canonical() +
                         " from finitely many values (subtraction games and octal codes have "
                         "one)");
    }
    const std::optional<SplitMoves> moves = split_moves(rule);
    if (options.method == SequenceMethod::sparse && !(moves && moves->splits())) {
        throw InputError(
            "the sparse-space method is for rules that split heaps (octal codes "
            "with a digit 4 to 7, grundy); " +
            rule.canonical() + " does not");
    }
}

LongSequence long_sequence(const Rule& rule, uint64_t max_heap, const SequenceOptions& options) {
    check_long_sequence(rule, options);
    const std::optional<ProofWindow> window = proof_window(rule, Convention::normal);
    const std::optional<SplitMoves> moves = split_moves(rule);
    LongSequence out;
    std::optional<PeriodProver> prover;
    if (window) prover.emplace(*window);
    auto check = [&](uint64_t n) {
        // A stop is asked for every 4096 heaps (a few ms of Grundy's game at
        // 2^27), the progress told every 65536.
        if ((n & 0xfff) == 0) {
            if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
                if (options.save) options.save(std::span<const uint16_t>(out.values.data(), n + 1));
                throw Cancelled();
            }
            if (options.progress && (n & 0xffff) == 0) options.progress(n, max_heap);
            if (options.save && n % SAVE_EVERY == 0)
                options.save(std::span<const uint16_t>(out.values.data(), n + 1));
        }
        if (prover && prover->add(std::span<const uint16_t>(out.values.data(), n + 1)))
            return options.until_proven;
        // A run until a proof grows its values as it goes: most proofs need
        // far fewer heaps than the limit.
        if (n + 1 == out.values.size() && n < max_heap)
            out.values.resize(std::min(max_heap + 1, 2 * out.values.size()));
        return false;
    };
    uint64_t n = 0;  // the next heap
    bool done = false;
    const uint64_t room =
        options.until_proven ? std::min<uint64_t>(max_heap + 1, 4096) : max_heap + 1;
    if (options.resume) {
        const uint64_t known = options.resume->size();
        if (!(moves && moves->splits()) || known == 0 || known > max_heap + 1)
            throw InputError("a sequence resumes for a take-and-break rule, up to its last heap");
        out.values = std::move(*options.resume);
        out.values.resize(std::max(room, std::min(max_heap + 1, 2 * known)));
        // The prover reads the values heap after heap, as they were computed.
        for (; n < known && !done; ++n) {
            done = prover && prover->add(std::span<const uint16_t>(out.values.data(), n + 1)) &&
                   options.until_proven;
        }
    } else {
        out.values.assign(room, 0);
    }
    const uint64_t resumed_at = n;
    std::vector<uint16_t>& g = out.values;

    if (rule.take_family()) {
        TakeValues take(rule, max_heap);
        Options o;
        for (; n <= max_heap && !done; ++n) {
            take.value(g, n, o);
            done = check(n);
        }
    } else if (!moves) {
        // Lasker's Nim: the general method, heap by heap.
        std::vector<char> seen;
        for (; n <= max_heap && !done; ++n) {
            store(g, n, grundy_value(rule, static_cast<uint32_t>(n), g, seen));
            done = check(n);
        }
    } else {
        const Heap heap(*moves);
        Options o;
        std::vector<uint64_t> sums;
        const bool sparse_wanted = moves->splits() && options.method != SequenceMethod::plain;
        const uint64_t first_sparse = options.method == SequenceMethod::sparse
                                          ? std::min<uint64_t>(64, max_heap + 1)
                                          : FIRST_SPARSE;
        for (; n <= max_heap && n < first_sparse && !done; ++n) {
            plain_value(heap, g, n, o, sums);
            done = check(n);
        }
        if (sparse_wanted && n <= max_heap && !done) {
            // The mask under which the fewest heaps so far are rare, chosen
            // again when another has clearly fewer: looked for at every
            // doubling of the heap, and whenever the mask's rare heaps have
            // grown by a quarter since the last look (as the values grow, a
            // higher bit may split them better: Grundy's game under mask 254
            // has 1,274 rare heaps up to 2^25 and 6,617 up to 2^26, where
            // values of 256 and more have come; under 510, 1,286).
            ValueCounts counts;
            for (uint64_t k = 1; k < n; ++k) counts.add(g[k]);
            Sparse sparse(heap, counts.best_mask().first, g, n);
            Sparse::Scratch scratch;
            out.method = SequenceMethod::sparse;
            const unsigned threads = options.threads
                                         ? options.threads
                                         : std::max(1u, std::thread::hardware_concurrency());
            uint64_t next_look = 2 * n;
            uint64_t looked_rare = sparse.rare_heaps();
            // Two threads pay once a heap costs more than their handing over
            // (measured on the stretches run on one), unless asked for.
            bool two = options.threads >= 2;
            while (n <= max_heap && !done) {
                if (n == next_look || 4 * sparse.rare_heaps() > 5 * looked_rare + 256) {
                    const auto [mask, rare] = counts.best_mask();
                    if (mask != sparse.mask() && 5 * rare < 4 * sparse.rare_heaps())
                        sparse = Sparse(heap, mask, g, n);
                    if (n == next_look) next_look = 2 * n;
                    looked_rare = sparse.rare_heaps();
                }
                // A stretch: to the next look at the mask (at most STRETCH
                // heaps, so that the rare heaps' growth is seen), the last
                // heap, or the end of the values held (check() grows them
                // between stretches). On two threads, even heaps on this one,
                // so that progress and cancellation stay here.
                const uint64_t stop =
                    std::max(n + 1, std::min({next_look, n + STRETCH, max_heap + 1, g.size() - 1}));
                if (two && n % 2 == 0 && stop >= n + 256) {
                    n = sparse_two_threads(sparse, g, n, stop, [&](uint64_t k) {
                        counts.add(g[k]);
                        return done = check(k);
                    });
                    continue;
                }
                const auto start = std::chrono::steady_clock::now();
                const uint64_t from = n;
                for (; n < stop && !done; ++n) {
                    sparse.value(g, n, scratch);
                    counts.add(g[n]);
                    done = check(n);
                }
                if (options.threads == 0 && threads >= 2 && n - from >= 256) {
                    const auto spent = std::chrono::steady_clock::now() - start;
                    two = spent / (n - from) > TWO_THREADS_FROM;
                }
            }
            out.mask = sparse.mask();
            out.rare_heaps = sparse.rare_heaps();
        } else if (sparse_wanted && resumed_at > first_sparse) {
            out.method = SequenceMethod::sparse;  // all of it resumed, computed so before
        }
        for (; n <= max_heap && !done; ++n) {
            plain_value(heap, g, n, o, sums);
            done = check(n);
        }
    }
    g.resize(n);
    if (options.progress) options.progress(n - 1, max_heap);
    if (prover) prover->finish(g);
    out.period = prover ? prover->result(g) : unproven(rule, n - 1);
    out.record = sequence_record(g, out.method == SequenceMethod::sparse ? out.mask : 0);
    return out;
}

}  // namespace nimtb::engine
