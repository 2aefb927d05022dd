#include "engine/sequences/big_heaps.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>

#include "engine/sequences/sequence.h"

namespace nimtb::engine {

std::vector<uint64_t> parse_big_heaps(std::string_view text) {
    std::vector<uint64_t> heaps;
    size_t index = 0;
    for (size_t i = 0; i < text.size();) {
        if (text[i] == ' ' || text[i] == ',' || text[i] == '\t') {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < text.size() && text[end] != ' ' && text[end] != ',' && text[end] != '\t')
            ++end;
        const std::string_view word = text.substr(i, end - i);
        ++index;
        uint64_t v = 0;
        const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
        if (ec == std::errc::result_out_of_range || (ec == std::errc() && v >= (uint64_t{1} << 63)))
            throw InputError(
                fmt::format("heap {} ('{}') is too large (at most 2^63 - 1)", index, word));
        if (ec != std::errc() || ptr != word.data() + word.size())
            throw InputError(fmt::format("heap {} ('{}') is not a number", index, word));
        if (v) heaps.push_back(v);
        i = end;
    }
    return heaps;
}

PeriodicGame::PeriodicGame(const Rule& rule, std::vector<uint16_t> values, uint64_t preperiod,
                           uint64_t period)
    : rule_(rule), values_(std::move(values)), preperiod_(preperiod), period_(period) {
    if (rule.kind() != RuleKind::subtract && rule.kind() != RuleKind::octal)
        throw InputError(
            "positions are answered from a period for subtraction games and octal "
            "codes only, not " +
            rule.canonical());
    if (period == 0 || values_.size() < preperiod + period)
        throw InputError("the values do not cover a whole period");
}

uint32_t PeriodicGame::value(uint64_t heap) const {
    if (heap < values_.size()) return values_[heap];
    return values_[preperiod_ + (heap - preperiod_) % period_];
}

uint32_t PeriodicGame::value(std::span<const uint64_t> heaps) const {
    uint32_t x = 0;
    for (uint64_t h : heaps) x ^= value(h);
    return x;
}

std::optional<PeriodicGame::Move> PeriodicGame::move_to(uint64_t h, uint32_t target) const {
    auto move = [&](uint64_t taken, std::vector<uint64_t> leaves) {
        Move m;
        m.heap = h;
        m.taken = taken;
        m.leaves = std::move(leaves);
        m.phrase =
            taken ? fmt::format("take {} from the {}", taken, h) : fmt::format("split the {}", h);
        if (m.leaves.size() == 2)
            m.phrase += fmt::format(", leaving {} and {}", m.leaves[0], m.leaves[1]);
        return m;
    };
    if (rule_.kind() == RuleKind::subtract) {
        for (const AmountRange& r : rule_.ranges()) {
            for (uint64_t s = r.first; s <= r.last && s <= h; ++s) {
                if (value(h - s) == target)
                    return move(s, s == h ? std::vector<uint64_t>{} : std::vector{h - s});
            }
        }
        return std::nullopt;
    }
    const SplitMoves moves = *split_moves(rule_);
    for (const SplitMoves::Digit& d : moves.digits) {
        if ((d.bits & 1) && h == d.k && target == 0) return move(d.k, {});
        if ((d.bits & 2) && h > d.k && value(h - d.k) == target) return move(d.k, {h - d.k});
        if ((d.bits & 4) && h >= d.k + 2) {
            // Pairs (a, m - a), a <= m / 2. Beyond the preperiod both values
            // repeat with the period as a grows, so a < preperiod + period
            // meets every pair of values there is.
            const uint64_t m = h - d.k;
            const uint64_t last = std::min(m / 2, preperiod_ + period_);
            for (uint64_t a = 1; a <= last; ++a) {
                if ((value(a) ^ value(m - a)) == target) return move(d.k, {m - a, a});
            }
        }
    }
    return std::nullopt;
}

std::optional<PeriodicGame::Move> PeriodicGame::winning_move(
    std::span<const uint64_t> heaps) const {
    const uint32_t x = value(heaps);
    if (x == 0) return std::nullopt;
    // A heap whose value has x's highest bit can be lowered to value ^ x;
    // its mex guarantees a move there.
    for (size_t i = 0; i < heaps.size(); ++i) {
        const uint32_t v = value(heaps[i]);
        if ((v ^ x) >= v) continue;
        if (auto m = move_to(heaps[i], v ^ x)) {
            m->index = i;
            return m;
        }
    }
    return std::nullopt;  // unreachable for a correct sequence
}

}  // namespace nimtb::engine
