#include "dist/distributed_solver.h"

#include <fmt/core.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "dist/line_chain.h"
#include "engine/brute_kernel.h"
#include "engine/line_kernel.h"
#include "engine/parallel.h"
#include "engine/solve_order.h"
#include "io/checkpoint.h"

namespace nimtb::dist {

size_t Layout::find(uint64_t rank) const {
    return static_cast<size_t>(std::upper_bound(first.begin(), first.end(), rank) - first.begin()) - 1;
}

namespace {

namespace fs = std::filesystem;
using engine::Block;
using engine::Plan;
using engine::Universe;

// 1. Who solves what: each level's blocks, largest first (the plan's
// order), to the process with the least work in that level so far; or,
// for the line chain, to the owner of the block's largest heap
// (`by_largest`, per heap size: see largest_heap_owners).
Layout deal(const Plan& plan, const Comm& comm, const Universe& u, const std::vector<int>& by_largest) {
    Layout l;
    const size_t n = plan.blocks.size();
    std::vector<int> owner(n);
    std::vector<uint64_t> offset(n);
    std::vector<uint64_t> filled(static_cast<size_t>(comm.size), 0);
    std::array<uint32_t, Universe::MAX_HEAPS> heaps{};
    l.local_plan.level_start.push_back(0);
    for (size_t level = 0; level < plan.levels(); ++level) {
        std::vector<uint64_t> load(static_cast<size_t>(comm.size), 0);
        for (size_t b = plan.level_start[level]; b < plan.level_start[level + 1]; ++b) {
            auto least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
            if (!by_largest.empty()) {
                u.unrank(plan.blocks[b].first, heaps.data());
                least = static_cast<size_t>(by_largest[heaps[u.max_heaps() - 1]]);
            }
            owner[b] = static_cast<int>(least);
            offset[b] = filled[least];
            load[least] += plan.blocks[b].count;
            filled[least] += plan.blocks[b].count;
            if (owner[b] == comm.rank) {
                l.local_plan.blocks.push_back({offset[b], plan.blocks[b].count});
                l.local_global_first.push_back(plan.blocks[b].first);
            }
        }
        l.local_plan.level_start.push_back(l.local_plan.blocks.size());
    }
    l.local_positions = filled[static_cast<size_t>(comm.rank)];
    std::vector<size_t> order(n);
    for (size_t b = 0; b < n; ++b) order[b] = b;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return plan.blocks[x].first < plan.blocks[y].first; });
    for (size_t b : order) {
        l.first.push_back(plan.blocks[b].first);
        l.count.push_back(plan.blocks[b].count);
        l.offset.push_back(offset[b]);
        l.owner.push_back(owner[b]);
    }
    return l;
}

// The line chain's owner of each largest heap size: sizes from the largest
// down, each to the process with the fewest positions so far (positions of
// largest heap m in a box of K heaps: C(m + K - 1, K - 1)).
std::vector<int> largest_heap_owners(const Universe& u, const Comm& comm) {
    std::vector<int> owner(u.max_heap_size() + 1);
    std::vector<uint64_t> load(static_cast<size_t>(comm.size), 0);
    for (uint32_t m = u.max_heap_size() + 1; m-- > 0;) {
        const auto least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        owner[m] = static_cast<int>(least);
        load[least] += engine::binomial(uint64_t{m} + u.max_heaps() - 1, u.max_heaps() - 1);
    }
    return owner;
}

// Calls f(start, end, block) for the part [start, end) of every block that
// overlaps the ranks [lo, hi), in rank order.
template <class F>
void for_each_overlap(const Layout& l, uint64_t lo, uint64_t hi, F&& f) {
    for (size_t b = l.find(lo); b < l.first.size() && l.first[b] < hi; ++b) {
        const uint64_t start = std::max(lo, l.first[b]);
        const uint64_t end = std::min(hi, l.first[b] + l.count[b]);
        if (start < end) f(start, end, b);
    }
}

// Pages of 2^bits ranks: at least 64, and at most 2^21 pages in the
// universe, so that the table of a page's slot stays within 8 MB. Small
// pages carry fewer positions nobody asked for (misere Kayles N=70 on 4
// processes sent 1.05 GB in pages of 512, 0.97 GB in pages of 64).
unsigned page_bits(const Universe& u) {
    const unsigned bits = static_cast<unsigned>(std::bit_width(u.size()));
    return std::max(6u, bits > 21 ? bits - 21 : 0u);
}

// The pages fetched for one round: a slot per page, the page's values and
// remoteness in the arrays' widths.
struct Pages {
    unsigned bits = 9;
    std::vector<int32_t> slot;  // per page of the universe; -1: not fetched
    std::vector<uint64_t> marks;  // per page of the universe, a bit: needed
    std::vector<uint64_t> list;   // the pages of this round, ascending
    std::vector<uint64_t> held;   // the pages held, by slot: kept from round to round of a level
    std::vector<uint64_t> value_words, remoteness_words;  // 8-byte aligned storage
    uint64_t page() const { return uint64_t{1} << bits; }
};

// Reads children from the process's own arrays inside the block being
// swept, and from the fetched pages below it.
template <class V, class R>
struct PagedStore {
    V* value;  // at the block's first rank
    R* remoteness;
    uint64_t block_first;
    const V* page_value;
    const R* page_remoteness;
    const int32_t* slot;
    unsigned bits;

    uint64_t at(uint64_t c) const {
        const int32_t at = slot[c >> bits];
        assert(at >= 0);
        return (static_cast<uint64_t>(at) << bits) | (c & ((uint64_t{1} << bits) - 1));
    }
    V child_value(uint64_t c) const { return c >= block_first ? value[c - block_first] : page_value[at(c)]; }
    R child_remoteness(uint64_t c) const {
        return c >= block_first ? remoteness[c - block_first] : page_remoteness[at(c)];
    }
    void set(uint64_t rank, V v, R r) const {
        value[rank - block_first] = v;
        if (remoteness) remoteness[rank - block_first] = r;
    }
};

// A piece of one of this process's blocks, swept in one round.
struct Piece {
    uint64_t first;        // rank
    uint64_t count;
    uint64_t block_first;  // rank
    uint64_t block_local;  // offset of the block in this process's arrays
    size_t block;          // its index in the layout's local plan
};

// The line chain (line_chain.h) on this process: its home lines, and the
// aggregates that arrived for blocks of later levels.
struct LineChain {
    unsigned bitset_words = 1;       // W
    std::vector<uint32_t> amounts;   // near, then lag (when lag > 0)
    size_t near_count = 0;
    uint32_t lag = 0;
    std::vector<uint64_t> home;      // per largest heap: home line minus line index (mod 2^64)
    std::vector<uint64_t> seen;      // home line * W + word
    std::vector<uint64_t> remoteness_words;  // home line * 2 remoteness of the array's width
    // By the block's offset in this process's arrays: its aggregates, in a
    // buffer that one exchange filled (freed with its last block's).
    struct Arrived {
        std::shared_ptr<const uint64_t[]> buffer;
        const uint64_t* data;
        uint64_t count;
    };
    std::unordered_map<uint64_t, Arrived> pending;
    // Takes the runs of `size` words at `buffer`: a header (the block's
    // offset here, its positions), then their aggregates, run after run.
    void arrive(const std::shared_ptr<const uint64_t[]>& buffer, uint64_t size, unsigned a) {
        for (uint64_t at = 0; at < size;) {
            const uint64_t count = buffer[at + 1];
            pending[buffer[at]] = {buffer, buffer.get() + at + 2, count};
            at += 2 + count * a;
        }
    }

    // The home lines of the largest heaps `owner_of` gives this process.
    LineChain(const Universe& u, const engine::LineShape& shape, const std::vector<int>& owner_of, int rank,
              unsigned remoteness_bytes)
        : bitset_words(engine::line_words(u)),
          amounts(shape.near),
          near_count(shape.near.size()),
          lag(shape.lag),
          home(u.max_heap_size() + 1, 0) {
        if (lag > 0) amounts.push_back(lag);
        const uint64_t k = u.max_heaps();
        uint64_t lines = 0;
        for (uint32_t m = 0; m <= u.max_heap_size(); ++m) {
            if (owner_of[m] != rank) continue;
            home[m] = lines - engine::binomial(m + k - 2, k - 1);  // lines of largest m start there
            lines += engine::binomial(m + k - 2, k - 2);
        }
        seen.assign(lines * bitset_words, 0);
        remoteness_words.assign((lines * 2 * remoteness_bytes + 7) / 8, 0);
    }
};

struct Solver {
    const Comm& comm;
    const Universe& u;
    const DistributedOptions& o;
    Layout& layout;
    engine::Solution& s;
    std::vector<LevelTraffic>& traffic;
    engine::TakeAmounts amounts;
    Pages pages;
    // The round's answers and replies, kept from round to round: a buffer
    // allocated afresh each round cost as much as the sweep in page faults
    // and zeroing (perf, nim misere K=5 H=63 on one process).
    std::vector<uint8_t> answer, reply;
    uint64_t round_positions;
    uint64_t page_budget;
    static constexpr uint64_t MIN_ROUND = 64;

    unsigned value_bytes() const { return s.value.bits() / 8; }
    unsigned remoteness_bytes() const { return o.solve.remoteness ? s.remoteness.bits() / 8 : 0; }

    // The pieces of this process's blocks of `level` from `cursor` (block,
    // offset) on, at most round_positions positions, one piece per block.
    std::vector<Piece> take(size_t level, std::pair<size_t, uint64_t>& cursor) const {
        std::vector<Piece> round;
        uint64_t budget = round_positions;
        const Plan& lp = layout.local_plan;
        while (budget > 0 && cursor.first < lp.level_start[level + 1]) {
            const Block& b = lp.blocks[cursor.first];
            const uint64_t gfirst = layout.local_global_first[cursor.first];
            const uint64_t n = std::min(budget, b.count - cursor.second);
            round.push_back({gfirst + cursor.second, n, gfirst, b.first, cursor.first});
            budget -= n;
            cursor.second += n;
            if (cursor.second < b.count) break;  // the block goes on next round
            ++cursor.first;
            cursor.second = 0;
        }
        return round;
    }

    // 2. The pages holding the children of `round` outside their blocks.
    template <class Children>
    void mark(const Children& children, const std::vector<Piece>& round) {
        engine::sync_parallel_for_with(
            tbb::blocked_range<size_t>(0, round.size(), 1),
            [&](const tbb::blocked_range<size_t>& r) {
                Children generate = children;
                std::array<uint32_t, std::max(Universe::MAX_HEAPS, Universe::MAX_TOTAL)> heaps{};
                for (size_t i = r.begin(); i != r.end(); ++i) {
                    const Piece& p = round[i];
                    u.unrank(p.first, heaps.data());
                    uint64_t last = UINT64_MAX;  // children come in runs of one page
                    for (uint64_t rank = p.first; rank < p.first + p.count; ++rank) {
                        generate(heaps.data(), rank, [&](uint64_t c) {
                            if (c >= p.block_first) return;
                            const uint64_t page = c >> pages.bits;
                            if (page == last) return;
                            last = page;
                            std::atomic_ref<uint64_t> word(pages.marks[page >> 6]);
                            const uint64_t bit = uint64_t{1} << (page & 63);
                            if (!(word.load(std::memory_order_relaxed) & bit))
                                word.fetch_or(bit, std::memory_order_relaxed);
                        });
                        u.next(heaps.data());
                    }
                }
            },
            tbb::simple_partitioner());  // a piece per task: pieces differ in size a lot
        pages.list.clear();
        for (size_t w = 0; w < pages.marks.size(); ++w) {
            for (uint64_t bits = pages.marks[w]; bits; bits &= bits - 1)
                pages.list.push_back(w * 64 + static_cast<uint64_t>(std::countr_zero(bits)));
            pages.marks[w] = 0;
        }
    }

    // 3. Asks each page of `wanted` (ascending) of its owners and stores
    // what comes back in the next free slots.
    void fetch(const std::vector<uint64_t>& wanted, LevelTraffic& t) {
        const size_t processes = static_cast<size_t>(comm.size);
        const uint64_t page = pages.page();
        const unsigned vb = value_bytes(), rb = remoteness_bytes();
        std::vector<std::vector<uint64_t>> asks(processes);
        for (uint64_t p : wanted) {
            int last = -1;
            for_each_overlap(layout, p * page, std::min(u.size(), (p + 1) * page),
                             [&](uint64_t, uint64_t, size_t b) {
                                 if (layout.owner[b] != last) asks[size_t(layout.owner[b])].push_back(p);
                                 last = layout.owner[b];
                             });
        }
        for (auto& a : asks) a.erase(std::unique(a.begin(), a.end()), a.end());
        std::vector<uint64_t> asked_counts;
        const std::vector<uint64_t> asked = comm.exchange(asks, asked_counts);
        // Answer: for each page asked, this process's parts of it, values
        // then remoteness; counted first, so that the buffer is allocated once.
        const auto* value = static_cast<const uint8_t*>(s.value.raw());
        const auto* remoteness =
            o.solve.remoteness ? static_cast<const uint8_t*>(s.remoteness.raw()) : nullptr;
        const auto owned = [&](uint64_t p, int owner, auto&& f) {
            for_each_overlap(layout, p * page, std::min(u.size(), (p + 1) * page),
                             [&](uint64_t start, uint64_t end, size_t b) {
                                 if (layout.owner[b] == owner) f(start, end, b);
                             });
        };
        std::vector<uint64_t> answer_counts(processes, 0);
        size_t at = 0;
        for (size_t from = 0; from < processes; ++from) {
            for (uint64_t i = 0; i < asked_counts[from]; ++i, ++at)
                owned(asked[at], comm.rank,
                      [&](uint64_t start, uint64_t end, size_t) { answer_counts[from] += (end - start) * (vb + rb); });
        }
        answer.clear();
        answer.reserve(std::accumulate(answer_counts.begin(), answer_counts.end(), uint64_t{0}));
        for (uint64_t p : asked) {
            for (auto [bytes, width] : {std::pair{value, vb}, std::pair{remoteness, rb}}) {
                if (!width) continue;
                owned(p, comm.rank, [&](uint64_t start, uint64_t end, size_t b) {
                    const uint64_t local = layout.offset[b] + (start - layout.first[b]);
                    answer.insert(answer.end(), bytes + local * width, bytes + (local + end - start) * width);
                });
            }
        }
        std::vector<uint64_t> reply_counts(processes, 0);
        for (size_t owner = 0; owner < processes; ++owner) {
            for (uint64_t p : asks[owner])
                owned(p, int(owner), [&](uint64_t start, uint64_t end, size_t) {
                    reply_counts[owner] += (end - start) * (vb + rb);
                });
        }
        comm.exchange_known(answer, answer_counts, reply, reply_counts);
        // Into the slots: page i of `wanted` goes after the pages held.
        const uint64_t first_slot = pages.held.size(), slots = first_slot + wanted.size();
        // Every byte of a fetched page is written below (each rank has an
        // owner): the storage is grown when needed, never cleared.
        if (pages.value_words.size() < (slots * page * vb + 7) / 8) pages.value_words.resize((slots * page * vb + 7) / 8);
        if (pages.remoteness_words.size() < (slots * page * rb + 7) / 8)
            pages.remoteness_words.resize((slots * page * rb + 7) / 8);
        for (size_t i = 0; i < wanted.size(); ++i) pages.slot[wanted[i]] = static_cast<int32_t>(first_slot + i);
        pages.held.insert(pages.held.end(), wanted.begin(), wanted.end());
        auto* page_value = reinterpret_cast<uint8_t*>(pages.value_words.data());
        auto* page_remoteness = reinterpret_cast<uint8_t*>(pages.remoteness_words.data());
        const uint8_t* in = reply.data();
        for (size_t owner = 0; owner < processes; ++owner) {
            for (uint64_t p : asks[owner]) {
                const uint64_t base = uint64_t(pages.slot[p]) * page;
                for (auto [bytes, width] : {std::pair{page_value, vb}, std::pair{page_remoteness, rb}}) {
                    if (!width) continue;
                    for_each_overlap(layout, p * page, std::min(u.size(), (p + 1) * page),
                                     [&](uint64_t start, uint64_t end, size_t b) {
                                         if (size_t(layout.owner[b]) != owner) return;
                                         const uint64_t n = (end - start) * width;
                                         std::memcpy(bytes + (base + start - p * page) * width, in, n);
                                         in += n;
                                     });
                }
            }
        }
        for (size_t q = 0; q < processes; ++q) {
            if (int(q) == comm.rank) continue;  // what a process asks itself stays in memory
            t.sent += asks[q].size() * 8 + answer_counts[q];
            t.received += asked_counts[q] * 8 + reply_counts[q];
        }
        t.pages += wanted.size();
    }

    // Of the pages held, keeps those this round needs (pages.list), moved
    // down to the first slots, and returns the round's others: positions of
    // one block in a row share most of their pages.
    std::vector<uint64_t> keep_held() {
        const uint64_t page = pages.page();
        const unsigned vb = value_bytes(), rb = remoteness_bytes();
        auto* value = reinterpret_cast<uint8_t*>(pages.value_words.data());
        auto* remoteness = reinterpret_cast<uint8_t*>(pages.remoteness_words.data());
        size_t kept = 0;
        for (size_t at = 0; at < pages.held.size(); ++at) {
            const uint64_t p = pages.held[at];
            if (!std::binary_search(pages.list.begin(), pages.list.end(), p)) {
                pages.slot[p] = -1;
                continue;
            }
            if (kept != at) {  // kept < at: moving down never overwrites a page still to move
                std::memcpy(value + kept * page * vb, value + at * page * vb, page * vb);
                if (rb) std::memcpy(remoteness + kept * page * rb, remoteness + at * page * rb, page * rb);
            }
            pages.slot[p] = static_cast<int32_t>(kept);
            pages.held[kept++] = p;
        }
        pages.held.resize(kept);
        std::vector<uint64_t> wanted;
        for (uint64_t p : pages.list)
            if (pages.slot[p] < 0) wanted.push_back(p);
        return wanted;
    }

    // Forgets the pages held: at a level's start (a page fetched in a lower
    // level may hold positions solved since), or when the budget is full.
    void release() {
        for (uint64_t p : pages.held) pages.slot[p] = -1;
        pages.held.clear();
    }

    // The store a piece of a block is swept over: its block in this
    // process's arrays, the children outside it in the fetched pages.
    template <bool REM, class V, class R>
    PagedStore<V, R> paged_store(const Piece& p) const {
        return {s.value.data<V>() + p.block_local,
                REM ? s.remoteness.data<R>() + p.block_local : nullptr,
                p.block_first,
                reinterpret_cast<const V*>(pages.value_words.data()),
                reinterpret_cast<const R*>(pages.remoteness_words.data()),
                pages.slot.data(),
                pages.bits};
    }

    // 4. Sweeps the round's pieces with the brute-force kernel.
    template <class Children, bool REM, class V, class R>
    uint64_t sweep(const Children& children, const std::vector<Piece>& round, engine::Overflow& overflow) {
        std::atomic<uint64_t> lookups{0};
        const V terminal = static_cast<V>(o.solve.convention == engine::Convention::misere ? 1 : 0);
        engine::sync_parallel_for_with(
            tbb::blocked_range<size_t>(0, round.size(), 1),
            [&](const tbb::blocked_range<size_t>& r) {
                uint64_t local = 0;
                for (size_t i = r.begin(); i != r.end(); ++i) {
                    const Piece& p = round[i];
                    const engine::BruteKernel<Children, REM, V, R, PagedStore<V, R>> kernel{
                        u, children, paged_store<REM, V, R>(p), terminal, &overflow};
                    auto scratch = kernel.scratch();
                    local += kernel.sweep(p.first, p.count, scratch);
                }
                lookups.fetch_add(local, std::memory_order_relaxed);
            },
            tbb::simple_partitioner());
        return lookups.load();
    }

    template <class Children, bool REM, class V, class R>
    uint64_t solve_level(const Children& children, size_t level, engine::Overflow& overflow) {
        LevelTraffic& t = traffic[level];
        t = {};
        uint64_t lookups = 0;
        rounds(children, level, t, [&](const std::vector<Piece>& round) {
            lookups += sweep<Children, REM, V, R>(children, round, overflow);
        });
        return lookups;
    }

    // The rounds of a level: each takes pieces of this process's blocks,
    // fetches the pages holding their children outside their blocks (as
    // `children` generates them) and hands the pieces to sweep_round.
    template <class Children, class Sweep>
    void rounds(const Children& children, size_t level, LevelTraffic& t, Sweep&& sweep_round) {
        release();  // pages of a lower level, or of this one at other widths (a level solved again)
        std::pair<size_t, uint64_t> cursor{layout.local_plan.level_start[level], 0};
        const uint64_t budget = page_budget;
        const unsigned width = value_bytes() + remoteness_bytes();
        // Every process takes part in every round of the level, with an
        // empty one once its own blocks are done.
        for (;;) {
            const auto saved = cursor;
            std::vector<Piece> round = take(level, cursor);
            mark(children, round);
            // Too many pages: a smaller round, until it fits or is tiny.
            while (pages.list.size() * pages.page() * width > budget && round_positions > MIN_ROUND) {
                round_positions /= 2;
                cursor = saved;
                round = take(level, cursor);
                mark(children, round);
            }
            if (!comm.any(!round.empty())) break;
            // Only the pages of this round not held from the last are fetched.
            fetch(keep_held(), t);
            sweep_round(round);
            if (pages.list.size() * pages.page() * width * 4 < budget && round_positions < (uint64_t{1} << 24))
                round_positions *= 2;
            // Rounds of the same size everywhere: a process whose rounds
            // were larger than another's would keep it waiting at every
            // exchange (nim misere K=5 H=63 on two processes: 8.7 s, 7.2 s after).
            round_positions = comm.min(round_positions);
            ++t.rounds;
        }
    }

    // A level by the line chain: each block swept with the aggregates that
    // arrived for it, the ones it passes on written straight into the
    // buffer for their block's process; then one exchange.
    template <unsigned W, bool REM, class V, class R>
    uint64_t chain_level(LineChain& c, size_t level, engine::Overflow& overflow) {
        constexpr unsigned A = AGGREGATE_WORDS<W>;
        LevelTraffic& t = traffic[level];
        t = {};
        const Plan& lp = layout.local_plan;
        const size_t b0 = lp.level_start[level], b1 = lp.level_start[level + 1];
        const unsigned k = u.max_heaps();
        const size_t processes = static_cast<size_t>(comm.size);
        struct Out {
            uint32_t largest;
            bool alone;
            size_t process = SIZE_MAX;  // where its aggregates go, if anywhere
            uint64_t at = 0;            // and at which word of that process's buffer
        };
        std::vector<Out> outs(b1 - b0);
        std::vector<uint64_t> words(processes, 0);
        std::array<uint32_t, Universe::MAX_HEAPS> a{};
        std::vector<std::pair<size_t, size_t>> headers;  // (block, successor)
        for (size_t b = b0; b < b1; ++b) {
            const uint64_t first = layout.local_global_first[b], count = lp.blocks[b].count;
            u.unrank(first, a.data());
            Out& out = outs[b - b0];
            out.largest = a[k - 1];
            out.alone = a[k - 2] < a[k - 1];
            if (out.largest == u.max_heap_size()) continue;
            const uint64_t target = first + u.term(k - 1, out.largest + 1) - u.term(k - 1, out.largest);
            const size_t next = layout.find(target);
            if (layout.first[next] != target || layout.count[next] != count)
                throw std::logic_error("line chain: a block's successor is not a block of its size");
            out.process = static_cast<size_t>(layout.owner[next]);
            out.at = words[out.process] + 2;  // after the header: offset, count
            words[out.process] += 2 + count * A;
            headers.emplace_back(b, next);
        }
        // The other processes' runs one after the other, by rank, in one
        // buffer; this process's own in another, which becomes its arrivals
        // as it is. Neither is zero-filled: the sweep writes every word.
        const size_t self = static_cast<size_t>(comm.rank);
        std::vector<uint64_t> section(processes, 0), send_counts = words;
        send_counts[self] = 0;
        for (size_t q = 1; q < processes; ++q) section[q] = section[q - 1] + send_counts[q - 1];
        const uint64_t remote_words = section[processes - 1] + send_counts[processes - 1];
        std::unique_ptr<uint64_t[]> send(new uint64_t[remote_words]);
        std::shared_ptr<uint64_t[]> mine(new uint64_t[words[self]]);
        const auto base = [&](size_t q) { return q == self ? mine.get() : send.get() + section[q]; };
        for (auto [b, next] : headers) {
            const Out& out = outs[b - b0];
            base(out.process)[out.at - 2] = layout.offset[next];
            base(out.process)[out.at - 1] = lp.blocks[b].count;
        }
        const V terminal = static_cast<V>(o.solve.convention == engine::Convention::misere ? 1 : 0);
        std::atomic<uint64_t> lookups{0};
        const auto run = [&]<bool LAG>() {
            using Store = PagedStore<V, R>;
            const ChainKernel<W, REM, LAG, V, R, Store> kernel{u,
                                                               c.amounts.data(),
                                                               c.near_count,
                                                               c.lag,
                                                               terminal,
                                                               c.seen.data(),
                                                               reinterpret_cast<R*>(c.remoteness_words.data()),
                                                               &overflow.value};
            // Sweeps a piece of a block: its arrivals and departures from
            // the piece's first position on.
            const auto sweep_piece = [&](const Piece& p) {
                const Out& out = outs[p.block - b0];
                const uint64_t skip = p.first - p.block_first;
                const uint64_t* in = nullptr;
                if (out.alone) {
                    const auto it = c.pending.find(p.block_local);
                    if (it == c.pending.end() || it->second.count != lp.blocks[p.block].count)
                        throw std::logic_error("line chain: a block's aggregates did not arrive");
                    in = it->second.data + skip * A;
                }
                return kernel.sweep(p.first, p.count, paged_store<REM, V, R>(p), c.home[out.largest], in,
                                    out.process == SIZE_MAX ? nullptr : base(out.process) + out.at + skip * A);
            };
            const auto sweep_round = [&](const std::vector<Piece>& round) {
                engine::sync_parallel_for_with(
                    tbb::blocked_range<size_t>(0, round.size(), 1),
                    [&](const tbb::blocked_range<size_t>& r) {
                        uint64_t n = 0;
                        for (size_t i = r.begin(); i != r.end(); ++i) n += sweep_piece(round[i]);
                        lookups.fetch_add(n, std::memory_order_relaxed);
                    },
                    tbb::simple_partitioner());
            };
            if constexpr (!LAG) {
                // Nim: no child to read, every block whole at once.
                std::vector<Piece> whole;
                for (size_t b = b0; b < b1; ++b)
                    whole.push_back({layout.local_global_first[b], lp.blocks[b].count,
                                     layout.local_global_first[b], lp.blocks[b].first, b});
                sweep_round(whole);
            } else {
                // The near children and joining points come in pages, round
                // by round, as for the brute-force kernel.
                rounds(ChainChildren{u, c.amounts.data(), c.near_count + 1}, level, t, sweep_round);
            }
        };
        if (c.lag == 0)
            run.template operator()<false>();
        else
            run.template operator()<true>();
        for (size_t b = b0; b < b1; ++b)
            if (outs[b - b0].alone) c.pending.erase(lp.blocks[b].first);
        const std::vector<uint64_t> counts = comm.swap_counts(send_counts);
        const uint64_t arriving = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
        std::shared_ptr<uint64_t[]> got(new uint64_t[arriving]);
        comm.exchange_into(send.get(), send_counts, got.get(), counts);
        send.reset();
        c.arrive(mine, words[self], A);
        c.arrive(got, arriving, A);
        for (size_t q = 0; q < processes; ++q) {
            if (int(q) == comm.rank) continue;
            t.sent += words[q] * 8;
            t.received += counts[q] * 8;
        }
        if (c.lag == 0) t.rounds = 1;
        return lookups.load();
    }

    uint64_t chain_dispatch(LineChain& c, size_t level, engine::Overflow& overflow) {
        return engine::with_widths(s.value.bits(), o.solve.remoteness ? s.remoteness.bits() : 0,
                            [&]<bool REM, class V, class R>() {
                                switch (c.bitset_words) {
                                    case 1: return chain_level<1, REM, V, R>(c, level, overflow);
                                    case 4: return chain_level<4, REM, V, R>(c, level, overflow);
                                    default: return chain_level<16, REM, V, R>(c, level, overflow);
                                }
                            });
    }

    template <class Children>
    uint64_t dispatch(const Children& children, size_t level, engine::Overflow& overflow) {
        // Not s.remoteness.empty(): a process may hold no position at all.
        return engine::with_widths(s.value.bits(), o.solve.remoteness ? s.remoteness.bits() : 0,
                                   [&]<bool REM, class V, class R>() {
                                       return solve_level<Children, REM, V, R>(children, level, overflow);
                                   });
    }
};

// The checkpoint of process `rank`: DIR/process-<rank>. A folder holding a
// one-process checkpoint, or more processes' than this job has, is refused.
std::unique_ptr<io::Checkpoint> open_checkpoint(const Comm& comm, const engine::Rule& rule,
                                                const Universe& u, const DistributedOptions& o) {
    if (o.checkpoint.empty()) return nullptr;
    std::error_code ec;
    if (fs::exists(fs::path(o.checkpoint) / "manifest.json", ec)) {
        throw TableError(o.checkpoint +
                         " holds the checkpoint of a solve by one process; this one runs " +
                         std::to_string(comm.size) +
                         " processes: run it as before, or remove the folder to start again");
    }
    for (const auto& e : fs::directory_iterator(o.checkpoint, ec)) {
        const std::string name = e.path().filename().string();
        unsigned k = 0;
        int used = 0;
        if (std::sscanf(name.c_str(), "process-%u%n", &k, &used) == 1 &&
            static_cast<size_t>(used) == name.size() && k >= unsigned(comm.size)) {
            throw TableError(fmt::format(
                "{} holds the checkpoint of a solve by more processes (it has {}); this one runs {}: "
                "run it with as many processes as before, or remove the folder to start again",
                o.checkpoint, name, comm.size));
        }
    }
    fs::create_directories(o.checkpoint, ec);
    // Flushes are decided together (solve_distributed), so that the
    // processes' files end at the same levels.
    return std::make_unique<io::Checkpoint>(
        (fs::path(o.checkpoint) / fmt::format("process-{}", comm.rank)).string(),
        io::CheckpointIdentity{rule.canonical(), engine::to_string(o.solve.convention), u.describe(),
                               "brute", o.solve.remoteness, static_cast<unsigned>(comm.size)},
        std::chrono::hours(24 * 365));
}

}  // namespace

Share solve_distributed(const Comm& comm, const engine::Rule& rule, const Universe& u,
                        const DistributedOptions& o) {
    if (o.solve.method != engine::SolveMethod::brute)
        throw InputError("a distributed solve uses the brute method; --method sprague-grundy runs in one process");
    // The plan one process would run, with the line kernel as the line
    // chain (line_chain.h): its store is spread over the processes, so no
    // machine's memory decides against it, and it needs 2 heaps or more.
    engine::SolveOptions planned = o.solve;
    planned.memory_limit = UINT64_MAX;
    planned.block_heaps = 0;
    const bool one_heap = u.max_heaps() < 2;
    if (one_heap && o.solve.kernel == engine::Kernel::lines) {
        throw InputError("the line kernel across processes needs a universe of at least 2 heaps; " +
                         u.describe() + " has one: use " + mention(Option::kernel_brute));
    }
    if (one_heap) planned.kernel = engine::Kernel::brute;
    const engine::SolvePlan solve_plan = engine::plan_solve(rule, u, planned);
    const std::optional<engine::LineShape>& shape = solve_plan.lines;
    const bool chain = shape.has_value();
    const engine::ArrayWidths widths = solve_plan.widths;
    const Plan& plan = solve_plan.order;

    const std::vector<int> by_largest = chain ? largest_heap_owners(u, comm) : std::vector<int>{};
    if (chain && comm.rank == 0) {
        // A heap size is never split: with more processes than the sizes
        // can share out, the process of the largest holds more than its part.
        std::vector<uint64_t> held(static_cast<size_t>(comm.size), 0);
        for (uint32_t m = 0; m <= u.max_heap_size(); ++m)
            held[static_cast<size_t>(by_largest[m])] += engine::binomial(uint64_t{m} + u.max_heaps() - 1, u.max_heaps() - 1);
        const double busiest = double(*std::max_element(held.begin(), held.end())) / double(u.size());
        if (busiest * comm.size > 1.5) {
            std::fprintf(stderr,
                         "solve: note: the line chain deals whole heap sizes, so one of the %d processes holds %.0f %% "
                         "of the positions (an even share: %.0f %%); --kernel brute spreads them evenly, at the price "
                         "of trading pages\n",
                         comm.size, 100 * busiest, 100.0 / comm.size);
        }
    }
    Layout layout = deal(plan, comm, u, by_largest);
    std::vector<LevelTraffic> traffic(plan.levels());
    engine::Solution s{rule, o.solve.convention, u.max_heaps(), u.max_heap_size(), engine::SolveMethod::brute, {}, {}};
    s.positions = u.size();
    s.max_total = u.max_total();
    s.kernel = chain ? engine::Kernel::lines : engine::Kernel::brute;
    const uint64_t n = layout.local_positions;
    s.value = engine::QuantityArray(n, widths.value_bits);
    if (o.solve.remoteness) s.remoteness = engine::QuantityArray(n, widths.remoteness_bits);
    s.levels.assign(plan.levels(), engine::LevelStats{});
    for (size_t l = 0; l < plan.levels(); ++l) {
        s.levels[l].blocks = plan.level_start[l + 1] - plan.level_start[l];
        s.levels[l].positions = plan.positions_in(l);
    }

    tbb::task_arena arena(o.solve.threads ? static_cast<int>(o.solve.threads) : tbb::task_arena::automatic);
    Solver solver{comm, u, o, layout, s, traffic, {rule, u.max_heap_size()}, {}, {}, {}, uint64_t{1} << 16,
                  o.page_budget ? o.page_budget
                                : std::clamp<uint64_t>(n * (widths.value_bits + widths.remoteness_bits) / 8 / 16,
                                                       uint64_t{1} << 20, uint64_t{64} << 20)};
    solver.pages.bits = page_bits(u);
    const uint64_t universe_pages = (u.size() >> solver.pages.bits) + 1;
    solver.pages.slot.assign(universe_pages, -1);
    solver.pages.marks.assign((universe_pages + 63) / 64, 0);

    // 5. From the checkpoint: every process resumes at the first level that
    // all of them saved. A process that refuses its part says why (the first of them, so that
    // the reason is said once); then all stop together, leaving no folder
    // that this run made.
    std::unique_ptr<io::Checkpoint> checkpoint;
    std::string refused;
    const std::string own = o.checkpoint.empty() ? "" : (fs::path(o.checkpoint) / fmt::format("process-{}", comm.rank)).string();
    std::error_code ec;
    const bool existed = !own.empty() && fs::exists(own, ec);
    const auto stop_if_refused = [&] {
        const uint64_t first = comm.min(refused.empty() ? uint64_t(comm.size) : uint64_t(comm.rank));
        if (first == uint64_t(comm.size)) return;
        if (first == uint64_t(comm.rank)) std::fprintf(stderr, "nimtb: error: %s\n", refused.c_str());
        checkpoint.reset();
        if (!existed) fs::remove_all(own, ec);
        throw SharedError("");
    };
    try {
        checkpoint = open_checkpoint(comm, rule, u, o);
    } catch (const std::exception& e) {
        refused = e.what();
    }
    stop_if_refused();
    size_t level = 0;
    if (checkpoint) {
        const std::string key =
            solve_plan.key(fmt::format("distributed brute, process {} of {}", comm.rank, comm.size));
        try {
            level = checkpoint->restore(key, layout.local_plan, s);
        } catch (const std::exception& e) {
            refused = e.what();
        }
        stop_if_refused();
        const size_t common = comm.min(level);
        if (comm.rank == 0 && common > 0) {
            std::fprintf(stderr, "solve: resuming from the checkpoint in %s (%zu levels saved by all %d processes)\n",
                         o.checkpoint.c_str(), common, comm.size);
        }
        if (common < level) checkpoint->forget_from(common);
        level = common;
        if (comm.any(s.value.bits() == 16)) s.value.widen();
        if (o.solve.remoteness && comm.any(s.remoteness.bits() == 16)) s.remoteness.widen();
        for (size_t l = 0; l < level; ++l) s.levels[l].restored = true;
    }
    // The chain's aggregates of the levels a checkpoint restored are not
    // saved: a resumed solve finishes by brute force (the same table).
    std::optional<LineChain> lines;
    if (chain && level == 0)
        lines.emplace(u, *shape, by_largest, comm.rank, o.solve.remoteness ? widths.remoteness_bits / 8 : 0);

    // 6. The levels, in order; a level that meets a number too wide for
    // its array is solved again, by every process, with the array widened.
    const auto report = [&](uint64_t done) {
        if (o.solve.progress) o.solve.progress(done, u.size());
    };
    uint64_t done = plan.positions_below(level);
    report(done);
    auto last_flush = std::chrono::steady_clock::now();
    while (level < plan.levels()) {
        const auto start = std::chrono::steady_clock::now();
        engine::Overflow overflow;
        uint64_t lookups = 0;
        if (lines) {
            arena.execute([&] { lookups = solver.chain_dispatch(*lines, level, overflow); });
            // A value beyond the lines' bitsets: this level again, and the
            // rest, by brute force.
            if (comm.any(overflow.value.load())) {
                lines.reset();
                continue;
            }
        } else {
            arena.execute([&] {
                lookups = with_children(rule, u, solver.amounts, [&](const auto& children) {
                    return solver.dispatch(children, level, overflow);
                });
            });
        }
        const bool value_over = comm.any(overflow.value.load());
        const bool remoteness_over = comm.any(overflow.remoteness.load());
        if (value_over || remoteness_over) {
            // Every process alike: a ResourceError is thrown by all of them.
            engine::widen_after_overflow(value_over, remoteness_over, s);
            continue;
        }
        engine::LevelStats& stats = s.levels[level];
        stats.lookups = comm.sum(lookups);
        stats.seconds = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        stats.kernel = lines ? engine::Kernel::lines : engine::Kernel::brute;
        s.child_lookups += stats.lookups;
        if (comm.any(o.solve.cancel && o.solve.cancel->load())) throw SharedError("interrupted", 130);
        if (checkpoint) {
            checkpoint->save(layout.local_plan, level, s);
            // Process 0's clock decides for all.
            uint8_t flush = std::chrono::steady_clock::now() - last_flush >= o.checkpoint_every;
            comm.broadcast(&flush, 1);
            if (flush) {
                checkpoint->flush();
                last_flush = std::chrono::steady_clock::now();
            }
        }
        done += stats.positions;
        report(done);
        ++level;
    }
    if (checkpoint) checkpoint->flush();

    // 7. The whole universe's figures.
    engine::ArraySummary mine;
    arena.execute([&] { mine = engine::summarise(s.value, s.remoteness); });
    s.p_positions = comm.sum(mine.p_positions);
    s.max_value = static_cast<uint32_t>(comm.max(uint64_t{mine.max_value}));
    s.max_remoteness = static_cast<uint32_t>(comm.max(uint64_t{mine.max_remoteness}));
    return Share{std::move(s), o.solve.remoteness, std::move(layout), std::move(traffic), std::move(checkpoint)};
}

}  // namespace nimtb::dist
