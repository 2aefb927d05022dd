#include "engine/game/universe.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace nimtb::engine {

__extension__ typedef unsigned __int128 Uint128;

uint64_t binomial(uint64_t n, uint64_t k) {
    if (k > n) return 0;
    k = std::min(k, n - k);
    Uint128 result = 1;
    // result * (n - k + i) / i stays an integer at every step: it is C(n-k+i, i).
    for (uint64_t i = 1; i <= k; ++i) {
        result = result * (n - k + i) / i;
        if (result > std::numeric_limits<uint64_t>::max())
            return std::numeric_limits<uint64_t>::max();
    }
    return static_cast<uint64_t>(result);
}

std::vector<uint64_t> parse_heap_sizes(std::string_view text, uint64_t max,
                                       std::string_view max_text) {
    std::vector<uint64_t> heaps;
    auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    auto is_sep = [&](char c) { return is_space(c) || c == ','; };
    // At most one comma between two heaps, and none before the first or
    // after the last: "3,,4" has an empty heap, not two.
    bool comma = false;
    auto empty_heap = [&] {
        return InputError("heap " + std::to_string(heaps.size() + 1) +
                          " is empty between commas: write heap sizes separated by spaces or "
                          "commas, as in '3 4 5' or '3,4,5'");
    };
    for (size_t i = 0; i < text.size();) {
        if (is_space(text[i])) {
            ++i;
            continue;
        }
        if (text[i] == ',') {
            if (comma || heaps.empty()) throw empty_heap();
            comma = true;
            ++i;
            continue;
        }
        comma = false;
        size_t j = i;
        while (j < text.size() && !is_sep(text[j])) ++j;
        const std::string_view word = text.substr(i, j - i);
        const std::string where =
            "heap " + std::to_string(heaps.size() + 1) + " (" + quoted(word) + ")";
        if (word.front() == '-') {
            throw InputError(where +
                             " is negative: heap sizes are whole numbers 0 or more, "
                             "as in '3 4 5'");
        }
        uint64_t value = 0;
        auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
        if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > max)) {
            throw InputError(where + " is too large: a heap holds at most " +
                             std::string(max_text) + " tokens");
        }
        if (ec != std::errc() || end != word.data() + word.size()) {
            throw InputError(where +
                             " is not a number: write heap sizes separated by spaces "
                             "or commas, as in '3 4 5'");
        }
        heaps.push_back(value);
        i = j;
    }
    if (comma) throw empty_heap();
    return heaps;
}

Heaps parse_heaps(std::string_view text) {
    const std::vector<uint64_t> sizes = parse_heap_sizes(text, UINT32_MAX, "4294967295");
    return Heaps(sizes.begin(), sizes.end());
}

std::string format_heaps(std::span<const uint32_t> heaps) {
    std::string out;
    for (uint32_t h : heaps) {
        if (h == 0) continue;
        if (!out.empty()) out += ' ';
        out += std::to_string(h);
    }
    return out.empty() ? "(empty)" : out;
}

Bounds Bounds::box(uint64_t k, uint64_t h) {
    if (k < 1) throw InputError("a box holds at least 1 heap, not 0");
    if (k > MAX_HEAPS)
        throw ResourceError("a box of " + std::to_string(k) +
                            " heaps is beyond nimtb's tables: a box holds at most " +
                            std::to_string(MAX_HEAPS) +
                            " heaps (a total of N tokens holds up to N)");
    if (h > MAX_HEAP_SIZE)
        throw ResourceError("heaps of " + std::to_string(h) +
                            " tokens are beyond nimtb's tables: they hold heaps of at most " +
                            std::to_string(MAX_HEAP_SIZE) +
                            " (for one heap of more, nimtb sequence)");
    if (binomial(h + k, k) == std::numeric_limits<uint64_t>::max())
        throw ResourceError(
            "a universe of " + std::to_string(k) + " heaps of at most " + std::to_string(h) +
            " tokens has more than 2^64 positions, more than any machine's memory holds; choose "
            "fewer heaps or smaller ones");
    return {static_cast<unsigned>(k), static_cast<uint32_t>(h), 0};
}

Bounds Bounds::total(uint64_t n, uint64_t k) {
    if (n < 1) throw InputError("a total of 0 tokens holds no move: give 1 or more");
    if (n > MAX_TOTAL)
        throw ResourceError("a universe of at most " + std::to_string(n) +
                            " tokens is beyond nimtb's tables: they hold at most " +
                            std::to_string(MAX_TOTAL) + " tokens in all");
    // No position has more non-empty heaps than tokens.
    const unsigned heaps = static_cast<unsigned>(k == 0 ? n : std::min(k, n));
    return {heaps, static_cast<uint32_t>(n), static_cast<uint32_t>(n)};
}

std::string Bounds::describe() const {
    if (!is_box()) {
        return "at most " + std::to_string(total_) + (total_ == 1 ? " token" : " tokens") +
               " in all" +
               (k_ < total_ ? ", on at most " + std::to_string(k_) + (k_ == 1 ? " heap" : " heaps")
                            : std::string());
    }
    return "at most " + std::to_string(k_) + (k_ == 1 ? " heap" : " heaps") + " of at most " +
           std::to_string(h_) + (h_ == 1 ? " token" : " tokens");
}

Universe::Universe(const Bounds& b)
    : k_(b.max_heaps()), h_(b.max_heap_size()), total_(b.max_total()) {
    if (b.is_box())
        index_box();
    else
        index_total();
}

Universe::Universe(unsigned max_heaps, uint32_t max_heap_size)
    : Universe(Bounds::box(max_heaps, max_heap_size)) {}

Universe Universe::total_bounded(uint32_t max_total, unsigned max_heaps) {
    return Universe(Bounds::total(max_total, max_heaps));
}

void Universe::index_box() {
    size_ = binomial(uint64_t{h_} + k_, k_);  // below 2^64: Bounds::box
    terms_.resize(size_t(k_) * (h_ + 1));
    for (unsigned i = 0; i < k_; ++i) {
        for (uint32_t a = 0; a <= h_; ++a)
            terms_[size_t(i) * (h_ + 1) + a] = binomial(a + i, i + 1);
    }
}

namespace {

uint64_t saturating_add(uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                        : a + b;
}

}  // namespace

void Universe::index_total() {
    Universe& u = *this;
    const uint32_t n = total_;
    const unsigned k = k_;
    // P(m, v, s): non-decreasing sequences of m sizes in [0, v] with sum <= s,
    // built on the largest entry x: P(m, v, s) = sum_{x <= min(v, s)} P(m-1, x, s-x).
    auto p_at = [&](unsigned m, uint32_t v, uint32_t s) -> uint64_t& {
        return u.fill_[(size_t(m) * (n + 1) + v) * (n + 1) + s];
    };
    u.fill_.assign(size_t(k + 1) * (n + 1) * (n + 1), 0);
    for (uint32_t v = 0; v <= n; ++v)
        for (uint32_t s = 0; s <= n; ++s) p_at(0, v, s) = 1;
    for (unsigned m = 1; m <= k; ++m) {
        for (uint32_t v = 0; v <= n; ++v) {
            for (uint32_t s = 0; s <= n; ++s) {
                uint64_t total = 0;
                for (uint32_t x = 0; x <= std::min(v, s); ++x)
                    total = saturating_add(total, p_at(m - 1, x, s - x));
                p_at(m, v, s) = total;
            }
        }
    }
    // Q(m, a, r) = sum_{v < a, v <= r} P(m, v, r - v): members below heap value a at index m.
    u.q_.assign(size_t(k) * (n + 2) * (n + 1), 0);
    for (unsigned m = 0; m < k; ++m) {
        for (uint32_t r = 0; r <= n; ++r) {
            uint64_t total = 0;
            for (uint32_t a = 0; a <= n + 1; ++a) {
                u.q_[(size_t(m) * (n + 2) + a) * (n + 1) + r] = total;
                if (a <= r) total = saturating_add(total, p_at(m, a, r - a));
            }
        }
    }
    u.size_ = u.q(k - 1, n + 1, n);
    if (u.size_ == std::numeric_limits<uint64_t>::max()) {
        throw ResourceError("a universe of at most " + std::to_string(n) +
                            " tokens has more than 2^64 positions, more than any machine's "
                            "memory holds; choose a smaller total");
    }
}

uint64_t Universe::completions(unsigned m, uint32_t largest, uint32_t budget) const {
    if (is_box()) return binomial(uint64_t{largest} + m, m);
    return fill_[(size_t(m) * (total_ + 1) + largest) * (total_ + 1) + budget];
}

uint64_t Universe::rank_compact(const uint32_t* ascending, unsigned count) const {
    uint64_t r = 0;
    const unsigned base = k_ - count;
    if (is_box()) {
        for (unsigned j = 0; j < count; ++j) r += term(base + j, ascending[j]);
        return r;
    }
    uint32_t budget = total_;
    for (unsigned j = count; j-- > 0;) {
        r += q(base + j, ascending[j], budget);
        budget -= ascending[j];
    }
    return r;
}

std::string Universe::describe() const {
    return bounds().describe();
}

Heaps Universe::normalise(std::span<const uint32_t> heaps) const {
    Heaps sorted;
    uint64_t total = 0;
    for (size_t i = 0; i < heaps.size(); ++i) {
        if (heaps[i] == 0) continue;
        if (heaps[i] > h_) {
            throw NotInTable("heap " + std::to_string(i + 1) + " has " + std::to_string(heaps[i]) +
                             " tokens, more than this table's limit: " + describe());
        }
        sorted.push_back(heaps[i]);
        total += heaps[i];
    }
    if (total_ && total > total_) {
        throw NotInTable("the heaps hold " + std::to_string(total) +
                         " tokens in all, more than this table's limit: " + describe());
    }
    if (sorted.size() > k_) {
        throw NotInTable("the position has " + std::to_string(sorted.size()) +
                         " non-empty heaps, more than this table's limit: " + describe());
    }
    sorted.resize(k_, 0);
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

bool Universe::holds(std::span<const uint32_t> heaps) const {
    try {
        (void)normalise(heaps);
        return true;
    } catch (const NotInTable&) {
        return false;
    }
}

uint64_t Universe::rank(std::span<const uint32_t> sorted) const {
    if (!is_box()) {
        unsigned zeros = 0;
        while (zeros < k_ && sorted[zeros] == 0) ++zeros;
        return rank_compact(sorted.data() + zeros, k_ - zeros);
    }
    uint64_t r = 0;
    for (unsigned i = 0; i < k_; ++i) r += term(i, sorted[i]);
    return r;
}

Heaps Universe::unrank(uint64_t rank) const {
    Heaps sorted(k_);
    unrank(rank, sorted.data());
    return sorted;
}

void Universe::unrank(uint64_t rank, uint32_t* sorted) const {
    if (!is_box()) {
        uint32_t hi = total_, budget = total_;
        for (unsigned i = k_; i-- > 0;) {
            // The largest a <= min(hi, budget) with Q(i, a, budget) <= rank.
            uint32_t a = std::min(hi, budget);
            while (a > 0 && q(i, a, budget) > rank) --a;
            sorted[i] = a;
            rank -= q(i, a, budget);
            budget -= a;
            hi = a;
        }
        return;
    }
    uint32_t hi = h_;
    for (unsigned i = k_; i-- > 0;) {
        // The largest a <= hi with term(i, a) <= rank; terms grow with a.
        const uint64_t* row = term_row(i);
        const uint64_t* it = std::upper_bound(row, row + hi + 1, rank);
        uint32_t a = static_cast<uint32_t>(it - row) - 1;
        sorted[i] = a;
        rank -= row[a];
        hi = a;
    }
}

bool Universe::next(uint32_t* sorted) const {
    // Colex successor: raise the lowest heap that can grow, zero those below it.
    if (total_) {
        // The empty heaps are a prefix (found by bisection: the solver's sweep
        // calls this for every position, and most of K = N heaps are empty).
        const unsigned z =
            static_cast<unsigned>(std::upper_bound(sorted, sorted + k_, 0u) - sorted);
        uint64_t total = 0;
        for (unsigned i = z; i < k_; ++i) total += sorted[i];
        // An empty heap below a non-empty one (or the top one) grows while tokens are left.
        if (z > 0 && total < total_) {
            sorted[z - 1] = 1;
            return true;
        }
        // Otherwise heap i grows and those below it empty, which frees their tokens.
        uint64_t below = 0;
        for (unsigned i = z; i < k_; ++i) {
            const uint32_t limit = i + 1 < k_ ? sorted[i + 1] : h_;
            if (sorted[i] < limit && total - below + 1 <= total_) {
                ++sorted[i];
                std::fill(sorted, sorted + i, 0u);
                return true;
            }
            below += sorted[i];
        }
        return false;
    }
    for (unsigned i = 0; i < k_; ++i) {
        const uint32_t limit = i + 1 < k_ ? sorted[i + 1] : h_;
        if (sorted[i] < limit) {
            ++sorted[i];
            std::fill(sorted, sorted + i, 0u);
            return true;
        }
    }
    return false;
}

}  // namespace nimtb::engine
