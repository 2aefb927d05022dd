#include "play/hint.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>

namespace nimtb::play {

std::string hint(const io::Prober& prober, const io::ProbeResult& r) {
    const io::ProbedMove& best = r.moves.front();
    const bool normal = prober.table().info().convention == engine::Convention::normal;
    const bool nim = prober.rule().allows_all_up_to(prober.universe().max_heap_size());
    std::string text;
    if (!r.to_move_wins()) {
        text = fmt::format(
            "hint: this is a P-position (value 0): every move loses against perfect play.\n"
            "      The slowest loss is to {}.\n",
            named_with_result(best));
        return text;
    }
    text = fmt::format(
        "hint: {}: a P-position (value 0). Whatever your opponent\n"
        "      does from there, you can move back to a P-position{}.\n",
        named_with_result(best),
        best.remoteness ? fmt::format("; you win in {} more moves", *best.remoteness + 1) : "");
    if (nim) {
        uint32_t x = 0;
        std::string terms, bits;
        unsigned width = 1;
        for (uint32_t h : r.heaps)
            width = std::max(width, static_cast<unsigned>(std::bit_width(h)));
        for (uint32_t h : r.heaps) {
            if (!h) continue;
            x ^= h;
            terms += (terms.empty() ? "" : " ^ ") + std::to_string(h);
            bits += (bits.empty() ? "" : " ^ ") + fmt::format("{:0{}b}", h, width);
        }
        const uint32_t from = best.heap_size;
        if (normal || std::any_of(best.result.begin(), best.result.end(),
                                  [](uint32_t h) { return h >= 2; })) {
            text += fmt::format(
                "      Nim: the XOR of the heaps is {} = {} ({} = {:0{}b} in binary).\n", terms, x,
                bits, x, width);
            text += fmt::format(
                "      Heap {} has {} = {:0{}b}; {} XOR {} = {}, so take {} and the XOR becomes "
                "0.\n",
                best.heap, from, from, width, from, x, from ^ x, best.amount);
        }
        if (!normal) {
            text +=
                "      Misere Nim: play as in Nim, except at the end: when your move would leave "
                "only\n"
                "      heaps of 1, leave an odd number of them.\n";
        }
    }
    return text;
}

std::string named(const io::ProbedMove& m) {
    if (!m.heap) return m.phrase;
    return fmt::format("take {} from heap {} (the {})", m.amount, m.heap, m.heap_size);
}

std::string named_with_result(const io::ProbedMove& m) {
    // A phrase that already names what is left ("..., leaving 2 and 4") keeps it.
    if (m.phrase.find("leaving") != std::string::npos) return named(m);
    return named(m) + ", leaving " + engine::format_heaps(m.result);
}

}  // namespace nimtb::play
