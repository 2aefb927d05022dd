#include "engine/sequences/big_heaps.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "engine/game/moves.h"
#include "engine/game/universe.h"
#include "engine/sequences/sequence.h"

namespace nimtb::engine {

std::vector<uint64_t> parse_big_heaps(std::string_view text) {
    std::vector<uint64_t> heaps =
        parse_heap_sizes(text, (uint64_t{1} << 63) - 1, "2^63 - 1 (9223372036854775807)");
    std::erase(heaps, 0);
    return heaps;
}

std::optional<Formula> formula(const Rule& rule) {
    Periodicity p;
    p.basis = Basis::theorem;
    if (rule.kind() == RuleKind::nim) {
        p.period = 1;
        p.saltus = 1;
        p.explanation = "g(n) = n for every n (Bouton, 1901)";
        return Formula{OneHeapGame(rule, {0}, 0, 1, 1), p};
    }
    if (rule.kind() == RuleKind::lasker) {
        p.preperiod = 1;
        p.period = 4;
        p.saltus = 4;
        p.explanation =
            "g(4k+1) = 4k+1, g(4k+2) = 4k+2, g(4k+3) = 4k+4, g(4k+4) = 4k+3 for every k "
            "(Lasker, 1931)";
        return Formula{OneHeapGame(rule, {0, 1, 2, 4, 3}, 1, 4, 4), p};
    }
    return std::nullopt;
}

OneHeapGame::OneHeapGame(const Rule& rule, std::vector<uint16_t> values, uint64_t preperiod,
                         uint64_t period, uint64_t saltus)
    : rule_(rule),
      values_(std::move(values)),
      preperiod_(preperiod),
      period_(period),
      saltus_(saltus) {
    if (!rule.one_heap())
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps, so a position is not answered "
                         "from its heaps' values");
    if (values_.empty() || (period && values_.size() < preperiod + period))
        throw InputError("the values do not cover a whole period");
}

OneHeapGame::OneHeapGame(const Rule& rule, SubtractionRuns runs)
    : rule_(rule),
      runs_(std::move(runs)),
      preperiod_(runs_->preperiod),
      period_(runs_->period),
      saltus_(0) {
    if (rule.kind() != RuleKind::subtract || !period_ || runs_->end < preperiod_ + period_)
        throw InputError("runs answer a subtraction game from a whole period");
}

std::optional<uint64_t> OneHeapGame::last_worth(uint64_t lo, uint64_t hi, uint64_t wanted) const {
    if (wanted > UINT32_MAX) return std::nullopt;  // runs hold values of 32 bits
    const auto target = static_cast<uint32_t>(wanted);
    std::optional<uint64_t> best;
    if (hi >= preperiod_) {
        // At or beyond the preperiod: folded into the first period, a
        // stretch of at most one period (or all of it), searched there and
        // carried back up.
        const uint64_t low = std::max(lo, preperiod_);
        const uint64_t length = std::min(hi - low + 1, period_);
        const uint64_t top = folded(hi),
                       bottom = top + 1 >= length + preperiod_ ? top + 1 - length : preperiod_;
        if (auto x = runs_->last_worth(bottom, top, target)) {
            best = hi - (top - *x);
        } else if (bottom == preperiod_ && length > top + 1 - preperiod_) {
            // The stretch wraps: the rest is at the end of the period.
            const uint64_t rest = length - (top + 1 - preperiod_);
            const uint64_t end = preperiod_ + period_ - 1;
            if (auto y = runs_->last_worth(end + 1 - rest, end, target))
                best = hi - (top - preperiod_) - 1 - (end - *y);
        }
        if (best) return best;
    }
    if (lo < preperiod_) return runs_->last_worth(lo, std::min(hi, preperiod_ - 1), target);
    return std::nullopt;
}

uint64_t OneHeapGame::known_up_to() const {
    return period_ ? std::numeric_limits<uint64_t>::max() : values_.size() - 1;
}

uint64_t OneHeapGame::value(uint64_t heap) const {
    if (runs_) return runs_->value(heap < preperiod_ ? heap : folded(heap));
    if (heap < values_.size()) return values_[heap];
    if (!period_) {
        throw InputError(fmt::format(
            "heap {} is beyond the values known of {} (heaps up to {}), and no period of it is "
            "proven",
            heap, rule_.canonical(), values_.size() - 1));
    }
    const uint64_t q = (heap - preperiod_) / period_, r = (heap - preperiod_) % period_;
    return values_[preperiod_ + r] + q * saltus_;
}

uint64_t OneHeapGame::value(std::span<const uint64_t> heaps) const {
    uint64_t x = 0;
    for (uint64_t h : heaps) x ^= value(h);
    return x;
}

std::vector<uint64_t> OneHeapGame::heaps_worth(uint64_t target, uint64_t below) const {
    std::vector<uint64_t> heaps;
    for (uint64_t x = 0; x < std::min(preperiod_, below); ++x)
        if (values_[x] == target) heaps.push_back(x);
    for (uint64_t r = 0; r < period_; ++r) {
        const uint64_t base = values_[preperiod_ + r];
        if (target < base || (target - base) % saltus_) continue;
        const uint64_t q = (target - base) / saltus_;
        if (q > (below - preperiod_ - r) / period_) continue;  // far beyond: no overflow
        const uint64_t x = preperiod_ + r + q * period_;
        if (x < below) heaps.push_back(x);
    }
    std::sort(heaps.begin(), heaps.end());
    return heaps;
}

std::optional<std::pair<uint64_t, uint64_t>> OneHeapGame::split_worth(uint64_t m, uint64_t target,
                                                                      bool unequal) const {
    // Beyond the preperiod both values repeat with the period as a grows (no
    // saltus), so a < preperiod + period meets every pair of values there
    // is; with a saltus, the pair needed is among small parts (Lasker's Nim:
    // a part of 1); without a period, m is within the values.
    uint64_t last = m / 2;
    if (period_) last = std::min(last, preperiod_ + period_ + (saltus_ ? 64 : 0));
    for (uint64_t a = 1; a <= last; ++a) {
        if (unequal && 2 * a == m) continue;
        if ((value(a) ^ value(m - a)) == target) return std::pair{a, m - a};
    }
    return std::nullopt;
}

std::optional<OneHeapGame::Move> OneHeapGame::move_to(uint64_t h, uint64_t target) const {
    auto move = [&](uint64_t taken, std::vector<uint64_t> leaves) {
        Move m;
        m.heap = h;
        m.taken = taken;
        std::sort(leaves.begin(), leaves.end());
        m.phrase = move_phrase(h, leaves);
        m.leaves = std::move(leaves);
        return m;
    };
    auto take_to = [&](uint64_t x) {
        return move(h - x, x ? std::vector<uint64_t>{x} : std::vector<uint64_t>{});
    };
    const bool takes = rule_.take_family() || rule_.kind() == RuleKind::lasker;
    if (takes) {
        auto allows = [&](uint64_t s) {
            if (rule_.kind() == RuleKind::lasker) return true;
            // Lists name amounts up to MAX_AMOUNT: beyond, allbut allows all.
            if (s > Rule::MAX_AMOUNT) return rule_.kind() != RuleKind::subtract;
            return rule_.allows(static_cast<uint32_t>(s));
        };
        if (saltus_) {
            // The values grow: the few heaps worth the target, the smallest take first.
            const std::vector<uint64_t> xs = heaps_worth(target, h);
            for (auto x = xs.rbegin(); x != xs.rend(); ++x)
                if (allows(h - *x)) return take_to(*x);
        } else if (runs_) {
            // Each range of amounts reaches the heaps [h - last, h - first].
            for (const AmountRange& r : rule_.ranges()) {
                if (r.first > h) break;
                if (auto x = last_worth(h - std::min<uint64_t>(r.last, h), h - r.first, target))
                    return take_to(*x);
            }
        } else if (rule_.kind() == RuleKind::subtract) {
            // Each range of amounts reaches the heaps [h - last, h - first]:
            // from the top (the smallest takes first), one period of those at
            // or beyond the preperiod (the rest repeat their values), then
            // those below it.
            const int64_t pre = static_cast<int64_t>(preperiod_);
            for (const AmountRange& r : rule_.ranges()) {
                if (r.first > h) break;
                const auto top = static_cast<int64_t>(h - r.first);
                const auto bottom = static_cast<int64_t>(h - std::min<uint64_t>(r.last, h));
                int64_t x = top;
                for (uint64_t n = 0; x >= std::max(bottom, pre) && !(period_ && n == period_);
                     --x, ++n)
                    if (value(uint64_t(x)) == target) return take_to(uint64_t(x));
                for (x = std::min(top, pre - 1); x >= bottom; --x)
                    if (value(uint64_t(x)) == target) return take_to(uint64_t(x));
            }
        } else {
            for (uint64_t s = 1; s <= h; ++s)  // within the values: h is small
                if (allows(s) && value(h - s) == target) return take_to(h - s);
        }
        if (rule_.kind() == RuleKind::lasker && h >= 2) {
            if (auto p = split_worth(h, target, false)) return move(0, {p->second, p->first});
        }
        return std::nullopt;
    }
    const std::optional<SplitMoves> splits = split_moves(rule_);
    if (!splits) {
        // Every other one-heap rule (hexadecimal codes) has no period, so h
        // is within the values: its moves one by one.
        std::optional<Move> found;
        const uint32_t heap[] = {static_cast<uint32_t>(h)};
        for_each_child(rule_, heap, [&](const Heaps& child) {
            if (found) return;
            std::vector<uint64_t> leaves;
            uint64_t v = 0, left = 0;
            for (uint32_t part : child) {
                if (part == 0) continue;
                leaves.push_back(part);
                v ^= value(part);
                left += part;
            }
            if (v == target) found = move(h - left, std::move(leaves));
        });
        return found;
    }
    const SplitMoves& moves = *splits;
    for (const SplitMoves::Digit& d : moves.digits) {
        if ((d.bits & 1) && h == d.k && target == 0) return move(d.k, {});
        if ((d.bits & 2) && h > d.k && value(h - d.k) == target) return move(d.k, {h - d.k});
        if ((d.bits & 4) && h >= d.k + 2) {
            if (auto p = split_worth(h - d.k, target, moves.unequal))
                return move(d.k, {p->second, p->first});
        }
    }
    return std::nullopt;
}

std::optional<OneHeapGame::Move> OneHeapGame::winning_move(std::span<const uint64_t> heaps) const {
    const uint64_t x = value(heaps);
    if (x == 0) return std::nullopt;
    // A heap whose value has x's highest bit can be lowered to value ^ x;
    // its mex guarantees a move there.
    for (size_t i = 0; i < heaps.size(); ++i) {
        const uint64_t v = value(heaps[i]);
        if ((v ^ x) >= v) continue;
        if (auto m = move_to(heaps[i], v ^ x)) {
            m->index = i;
            return m;
        }
    }
    return std::nullopt;  // unreachable for a correct sequence
}

}  // namespace nimtb::engine
