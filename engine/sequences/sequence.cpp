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

namespace nimtb::engine {

namespace {

constexpr Named<SequenceMethod> METHODS[] = {{SequenceMethod::automatic, "auto"},
                                             {SequenceMethod::plain, "plain"},
                                             {SequenceMethod::sparse, "sparse"}};

constexpr uint32_t VALUES = 1u << 16;  // values are stored in 16 bits
// The sparse method starts once this many heaps are known by the plain one:
// enough values to choose a mask from.
constexpr uint64_t FIRST_SPARSE = 256;
// The sparse method runs on two threads once a heap takes longer than this
// on one: the threads hand each heap over, which costs a few hundred ns.
constexpr std::chrono::nanoseconds TWO_THREADS_FROM{1500};

bool rare_under(uint32_t mask, uint32_t v) {
    return std::popcount(v & mask) % 2 == 0;
}

// How many heaps >= 1 have each value, and the mask under which the fewest
// of them are rare: with N heaps and H the Walsh-Hadamard transform of the
// counts, H[M] = sum over v of count[v] (-1)^popcount(v & M), the heaps rare
// under M number (N + H[M]) / 2. O(V log V) for values below V.
class ValueCounts {
  public:
    ValueCounts() : count_(VALUES, 0) {}
    void add(uint32_t v) {
        ++count_[v];
        ++heaps_;
        top_ = std::max(top_, v);
    }
    // The best mask and how many heaps are rare under it.
    std::pair<uint32_t, uint64_t> best_mask() const {
        const size_t size = size_t{1} << std::max(1u, std::bit_width(top_));
        std::vector<int64_t> h(count_.begin(), count_.begin() + static_cast<ptrdiff_t>(size));
        for (size_t half = 1; half < size; half *= 2) {
            for (size_t i = 0; i < size; i += 2 * half) {
                for (size_t j = i; j < i + half; ++j) {
                    const int64_t x = h[j], y = h[j + half];
                    h[j] = x + y;
                    h[j + half] = x - y;
                }
            }
        }
        uint32_t best = 1;
        for (uint32_t m = 2; m < size; ++m)
            if (h[m] < h[best]) best = m;
        return {best, static_cast<uint64_t>((static_cast<int64_t>(heaps_) + h[best]) / 2)};
    }

  private:
    std::vector<uint64_t> count_;
    uint64_t heaps_ = 0;
    uint32_t top_ = 0;
};

// The values of one heap's options, marked in a stamp array: seen(v) is true
// when stamp[v] holds the current heap's mark.
class Options {
  public:
    Options() : stamp_(VALUES, 0) {}
    void next() { ++mark_; }
    void add(uint32_t v) { stamp_[v] = mark_; }
    bool seen(uint32_t v) const { return stamp_[v] == mark_; }
    uint32_t mex() const {
        uint32_t v = 0;
        while (seen(v)) ++v;
        return v;
    }

  private:
    std::vector<uint32_t> stamp_;
    uint32_t mark_ = 0;
};

// What a heap of n leaves, with the split options as the sizes m = n - k of
// the parts together.
class Heap {
  public:
    explicit Heap(const SplitMoves& moves) : moves_(moves) {}
    // The options of a heap of n that leave at most one heap, into `o`
    // (but one that leaves heap `skip`), and the sizes to split into `sums`.
    void singles(uint64_t n, const uint16_t* g, uint64_t skip, Options& o,
                 std::vector<uint64_t>& sums) const {
        sums.clear();
        for (const SplitMoves::Digit& d : moves_.digits) {
            if ((d.bits & 1) && n == d.k) o.add(0);
            if ((d.bits & 2) && n > d.k && n - d.k != skip) o.add(g[n - d.k]);
            if ((d.bits & 4) && n >= d.k + 2) sums.push_back(n - d.k);
        }
    }
    // visit(value) for every option of heap n that leaves heap q (< n).
    template <class Visit>
    void options_through(uint64_t n, uint64_t q, const uint16_t* g, Visit&& visit) const {
        for (const SplitMoves::Digit& d : moves_.digits) {
            if ((d.bits & 2) && n > d.k && n - d.k == q) visit(g[q]);
            if ((d.bits & 4) && n >= d.k + 2) {
                const uint64_t m = n - d.k;
                if (q < m && pair(m, m - q)) visit(uint32_t(g[m - q] ^ g[q]));
            }
        }
    }
    // The largest part a of a split of m into a + (m - a), a <= m - a.
    uint64_t last_part(uint64_t m) const { return moves_.unequal ? (m - 1) / 2 : m / 2; }
    bool unequal() const { return moves_.unequal; }
    // Whether a split of m into a + (m - a) is a move (a >= 1).
    bool pair(uint64_t m, uint64_t a) const {
        return a >= 1 && a < m && !(moves_.unequal && 2 * a == m);
    }

  private:
    const SplitMoves& moves_;
};

void store(std::vector<uint16_t>& g, uint64_t n, uint32_t v) {
    if (v >= VALUES) {
        throw InputError(fmt::format(
            "the value of heap {} is {}, beyond the 16 bits nimtb stores a sequence in", n, v));
    }
    g[n] = static_cast<uint16_t>(v);
}

// The plain method: every pair of every split, O(n) a heap.
void plain_value(const Heap& heap, std::vector<uint16_t>& g, uint64_t n, Options& o,
                 std::vector<uint64_t>& sums) {
    o.next();
    heap.singles(n, g.data(), std::numeric_limits<uint64_t>::max(), o, sums);
    for (const uint64_t m : sums) {
        for (uint64_t a = 1; 2 * a <= m; ++a) {
            if (heap.pair(m, a)) o.add(g[a] ^ g[m - a]);
        }
    }
    store(g, n, o.mex());
}

// The sparse method (long_sequence.h): pairs with a rare heap, then a scan
// of small pairs for the rare values below the candidate.
class Sparse {
  public:
    // What a thread works in: its option marks and step 3's table.
    struct Scratch {
        Options o;
        std::vector<uint8_t> wanted = std::vector<uint8_t>(VALUES, 0);
        std::vector<uint64_t> sums;
    };
    // A heap's options but those that involve heap `skip`, as far as they go.
    struct Partial {
        uint32_t candidate = 0;
        bool exact = false;  // every pair was tried: the marks hold every option but skip's
    };

    Sparse(const Heap& heap, uint32_t mask, const std::vector<uint16_t>& g, uint64_t known)
        : heap_(&heap), mask_(mask) {
        for (uint64_t n = 1; n < known; ++n) {
            if (rare_under(mask_, g[n])) rare_.push_back(n);
        }
        rare_count_ = rare_.size();
        for (uint32_t v = 0; v < VALUES; ++v)
            if (rare_under(mask_, v)) rare_values_.push_back(v);
    }
    Sparse(Sparse&& other) noexcept
        : heap_(other.heap_),
          mask_(other.mask_),
          rare_(std::move(other.rare_)),
          rare_count_(other.rare_count_.load()),
          rare_values_(std::move(other.rare_values_)) {}
    Sparse& operator=(Sparse&& other) noexcept {
        heap_ = other.heap_;
        mask_ = other.mask_;
        rare_ = std::move(other.rare_);
        rare_count_ = other.rare_count_.load();
        rare_values_ = std::move(other.rare_values_);
        return *this;
    }
    uint32_t mask() const { return mask_; }
    uint64_t rare_heaps() const { return rare_count_; }
    // Room for `more` rare heaps, so that appending never moves the list
    // while another thread reads it.
    void reserve(uint64_t more) { rare_.reserve(rare_.size() + more); }

    // g(n) from g(0..n-1), on one thread.
    void value(std::vector<uint16_t>& g, uint64_t n, Scratch& s) {
        const Partial p = partial(g.data(), n, NONE, s);
        publish(g, n, p.exact ? s.o.mex() : p.candidate);
    }

    // Step 1 to 3 for heap n with every heap below it known but `skip`
    // (n - 1 when another thread is computing it; NONE).
    Partial partial(const uint16_t* values, uint64_t n, uint64_t skip, Scratch& s) const {
        Options& o = s.o;
        o.next();
        heap_->singles(n, values, skip, o, s.sums);
        const std::vector<uint64_t>& sums = s.sums;
        // 1. Every pair with a rare part: all the common values the options hold.
        const uint64_t* rare = rare_.data();
        const size_t rare_count = rare_count_.load(std::memory_order_acquire);
        for (const uint64_t m : sums) {
            const bool unequal = heap_->unequal() && m % 2 == 0;
            for (size_t i = 0; i < rare_count; ++i) {
                const uint64_t a = rare[i];
                if (a >= m) break;
                if ((unequal && 2 * a == m) || m - a == skip) continue;
                o.add(values[a] ^ values[m - a]);
            }
        }
        // 2. The candidate: the smallest common value not among them.
        uint32_t candidate = 0;
        while (rare_under(mask_, candidate) || o.seen(candidate)) ++candidate;
        // 3. The rare values below it that no option reached yet, one byte
        // each: pairs of two common parts may reach them; small ones are
        // tried first, until none is missing or every pair has been tried.
        uint8_t* wanted = s.wanted.data();
        uint32_t missing = 0;
        for (const uint32_t v : rare_values_) {
            if (v >= candidate) break;
            if (!o.seen(v)) {
                wanted[v] = 1;
                ++missing;
            }
        }
        auto reach = [&](uint32_t v) {
            if (wanted[v]) {
                wanted[v] = 0;
                o.add(v);
                --missing;
            }
        };
        // The pairs (a, m - a), a <= m / 2, of every split size m, sixteen
        // values of a at a time: two reads, a XOR and a table read a pair,
        // no branch (a block with a hit is then read pair by pair). A pair
        // with heap `skip` is a = m - skip, at most one a split size.
        auto pair = [&](uint64_t m, uint64_t x) {
            if (m - x != skip) reach(values[x] ^ values[m - x]);
        };
        if (missing && sums.size() == 1) {  // one split size: the loop alone
            const uint64_t m = sums[0], last = heap_->last_part(m);
            // The first sixteen pair by pair: the pair with heap `skip`, if
            // any, is among them, and its value is not to be read.
            uint64_t a = 1;
            for (; missing && a <= std::min<uint64_t>(16, last); ++a) pair(m, a);
            for (; missing && a + 15 <= last; a += 16) {
                uint8_t hit = 0;
                for (uint64_t j = 0; j < 16; ++j) hit |= wanted[values[a + j] ^ values[m - a - j]];
                if (hit)
                    for (uint64_t x = a; x < a + 16; ++x) pair(m, x);
            }
            for (; missing && a <= last; ++a) pair(m, a);
        } else if (missing) {  // several split sizes, in turn for each block
            uint64_t longest = 0;
            for (const uint64_t m : sums) longest = std::max(longest, heap_->last_part(m));
            for (uint64_t a = 1; missing && a <= longest; a += 16) {
                for (const uint64_t m : sums) {
                    const uint64_t last = heap_->last_part(m);
                    if (a > 1 && a + 15 <= last) {  // the first block: see above
                        uint8_t hit = 0;
                        for (uint64_t j = 0; j < 16; ++j)
                            hit |= wanted[values[a + j] ^ values[m - a - j]];
                        if (!hit) continue;
                    }
                    for (uint64_t x = a; x <= std::min(a + 15, last); ++x) pair(m, x);
                }
            }
        }
        if (missing) {
            for (const uint32_t v : rare_values_) {
                if (v >= candidate) break;
                wanted[v] = 0;
            }
        }
        return {candidate, missing > 0};
    }

    // g(n) from a partial that skipped heap n - 1, now that g(n - 1) is
    // known: its options through heap n - 1 added. nullopt when they reach
    // the candidate, so that heap n is to be computed again.
    std::optional<uint32_t> complete(const uint16_t* values, uint64_t n, const Partial& p,
                                     Scratch& s) const {
        bool candidate_reached = false;
        heap_->options_through(n, n - 1, values, [&](uint32_t v) {
            s.o.add(v);
            candidate_reached |= v == p.candidate;
        });
        if (p.exact) return s.o.mex();  // every option is marked
        // Every value below the candidate is reached; the candidate is
        // unless through heap n - 1, and what lies beyond is not known then.
        if (candidate_reached) return std::nullopt;
        return p.candidate;
    }

    // Stores g(n) and, when rare, appends heap n for the threads that read on.
    void publish(std::vector<uint16_t>& g, uint64_t n, uint32_t value) {
        store(g, n, value);
        if (rare_under(mask_, value)) {
            rare_.push_back(n);  // within the room reserved: the list does not move
            rare_count_.store(rare_.size(), std::memory_order_release);
        }
    }

    static constexpr uint64_t NONE = std::numeric_limits<uint64_t>::max();

  private:
    const Heap* heap_;
    uint32_t mask_;
    std::vector<uint64_t> rare_;  // heaps >= 1 whose value is rare, ascending
    std::atomic<size_t> rare_count_{0};
    std::vector<uint32_t> rare_values_;  // the values rare under the mask, ascending
};

// Heaps [first, stop) by the sparse method on two threads, heap n on thread
// n % 2. A heap depends on heap n - 1 only through a move that takes one
// token and leaves one heap, or a split of n into 1 + (n - 1): each thread
// computes its heap without those (partial) while the other thread finishes
// heap n - 1, then adds them (complete), or computes the heap again when
// they reach its candidate. `after(n)`, called on the thread that stored
// g(n), in order of n, returns true to stop (heaps after it are dropped).
// Returns the heap after the last stored.
template <class After>
uint64_t sparse_two_threads(Sparse& sparse, std::vector<uint16_t>& g, uint64_t first, uint64_t stop,
                            After after) {
    sparse.reserve(stop - first);
    std::atomic<uint64_t> stored{first};  // heaps below it are stored (release)
    std::atomic<bool> halt{false};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto run = [&](unsigned parity) {
        Sparse::Scratch s;
        try {
            for (uint64_t n = first + parity; n < stop; n += 2) {
                // Heaps below n - 1 are stored: this thread stored n - 2.
                for (unsigned spins = 0; stored.load(std::memory_order_acquire) < n - 1; ++spins) {
                    if (halt.load(std::memory_order_relaxed)) return;
                    if (spins > 256) std::this_thread::yield();  // the other thread was preempted
                }
                const Sparse::Partial p = sparse.partial(g.data(), n, n - 1, s);
                for (unsigned spins = 0; stored.load(std::memory_order_acquire) < n; ++spins) {
                    if (halt.load(std::memory_order_relaxed)) return;
                    if (spins > 256) std::this_thread::yield();
                }
                if (halt.load(std::memory_order_relaxed)) return;  // heap n - 1 was the last
                std::optional<uint32_t> v = sparse.complete(g.data(), n, p, s);
                if (!v) {
                    const Sparse::Partial again = sparse.partial(g.data(), n, Sparse::NONE, s);
                    v = again.exact ? s.o.mex() : again.candidate;
                }
                sparse.publish(g, n, *v);
                const bool stop_here = after(n);
                if (stop_here) halt = true;  // seen by the other thread with heap n
                stored.store(n + 1, std::memory_order_release);
                if (stop_here) return;
            }
        } catch (...) {
            std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            halt = true;
        }
    };
    std::thread other(run, 1u);
    run(0u);
    other.join();
    if (failure) std::rethrow_exception(failure);
    return stored.load();
}

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
    const std::vector<uint8_t>& d = rule.octal_digits();
    for (uint32_t k = 0; k < d.size(); ++k) {
        if (d[k]) s.digits.push_back({k, d[k]});
    }
    return s;
}

uint64_t long_sequence_bytes(uint64_t max_heap) {
    return (max_heap + 1) * sizeof(uint16_t);
}

LongSequence long_sequence(const Rule& rule, uint64_t max_heap, const SequenceOptions& options) {
    if (!rule.one_heap()) {
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps, so a position's value is not the "
                         "XOR of its heaps' values; solve whole positions instead");
    }
    const std::optional<ProofWindow> window = proof_window(rule, Convention::normal);
    if (options.until_proven && !window) {
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
    LongSequence out;
    std::optional<PeriodProver> prover;
    if (window) prover.emplace(*window);
    auto check = [&](uint64_t n) {
        // A stop is asked for every 4096 heaps (a few ms of Grundy's game at
        // 2^27), the progress told every 65536.
        if ((n & 0xfff) == 0) {
            if (options.cancel && options.cancel->load(std::memory_order_relaxed))
                throw Cancelled();
            if (options.progress && (n & 0xffff) == 0) options.progress(n, max_heap);
        }
        if (prover && prover->add(std::span<const uint16_t>(out.values.data(), n + 1)))
            return options.until_proven;
        // A run until a proof grows its values as it goes: most proofs need
        // far fewer heaps than the limit.
        if (n + 1 == out.values.size() && n < max_heap)
            out.values.resize(std::min(max_heap + 1, 2 * out.values.size()));
        return false;
    };
    out.values.assign(options.until_proven ? std::min<uint64_t>(max_heap + 1, 4096) : max_heap + 1,
                      0);
    std::vector<uint16_t>& g = out.values;
    uint64_t n = 0;
    bool done = false;

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
            // again at every doubling of the heap when another has clearly
            // fewer (as the values grow, a higher bit may split them better).
            ValueCounts counts;
            for (uint64_t k = 1; k < n; ++k) counts.add(g[k]);
            Sparse sparse(heap, counts.best_mask().first, g, n);
            Sparse::Scratch scratch;
            out.method = SequenceMethod::sparse;
            const unsigned threads = options.threads
                                         ? options.threads
                                         : std::max(1u, std::thread::hardware_concurrency());
            uint64_t next_look = 2 * n;
            // Two threads pay once a heap costs more than their handing over
            // (measured on the stretches run on one), unless asked for.
            bool two = options.threads >= 2;
            while (n <= max_heap && !done) {
                if (n == next_look) {
                    const auto [mask, rare] = counts.best_mask();
                    if (mask != sparse.mask() && 5 * rare < 4 * sparse.rare_heaps())
                        sparse = Sparse(heap, mask, g, n);
                    next_look = 2 * n;
                }
                // A stretch: to the next look at the mask, the last heap, or
                // the end of the values held (check() grows them between
                // stretches). On two threads, even heaps on this one, so that
                // progress and cancellation stay here.
                const uint64_t stop =
                    std::max(n + 1, std::min({next_look, max_heap + 1, g.size() - 1}));
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
    return out;
}

}  // namespace nimtb::engine
