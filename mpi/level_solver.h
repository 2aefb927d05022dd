#pragma once
// One level of a distributed solve on one process: the rounds of the
// brute-force kernel (pieces taken, pages marked, traded and swept) and the
// line chain's level (aggregates swept, passed on, exchanged). The driver,
// solve_distributed (distributed_solver.cpp), runs it level after level; it
// is one concept, the level's work and its page trade, in one file.

#include <oneapi/tbb/blocked_range.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "engine/base/parallel.h"
#include "engine/solve/brute_kernel.h"
#include "engine/solve/line_kernel.h"
#include "engine/solve/solve_order.h"
#include "mpi/deal.h"
#include "mpi/distributed_solver.h"
#include "mpi/line_chain.h"
#include "mpi/mpi_context.h"
#include "mpi/page_store.h"

namespace nimtb::mpi {

using engine::Block;
using engine::SolveOrder;
using engine::Universe;

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
    // The local offset of the arrays' first entry: a streamed process's
    // arrays are a window onto its level (distributed_solver.cpp), else 0.
    uint64_t window_first = 0;
    // Words of aggregates a round of the line chain passes on
    // (DistributedOptions::chain_round_words, chosen).
    uint64_t chain_round_words = 0;
    static constexpr uint64_t MIN_ROUND = 64;

    unsigned value_bytes() const { return s.value.bits() / 8; }
    unsigned remoteness_bytes() const { return o.solve.remoteness ? s.remoteness.bits() / 8 : 0; }

    // The pieces of this process's blocks of `level` from `cursor` (block,
    // offset) on, at most round_positions positions, one piece per block.
    std::vector<Piece> take(size_t level, std::pair<size_t, uint64_t>& cursor) const {
        std::vector<Piece> round;
        uint64_t budget = round_positions;
        const SolveOrder& lp = layout.local_plan;
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
                                 if (layout.owner[b] != last)
                                     asks[size_t(layout.owner[b])].push_back(p);
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
                owned(asked[at], comm.rank, [&](uint64_t start, uint64_t end, size_t) {
                    answer_counts[from] += (end - start) * (vb + rb);
                });
        }
        answer.clear();
        answer.reserve(std::accumulate(answer_counts.begin(), answer_counts.end(), uint64_t{0}));
        for (uint64_t p : asked) {
            // Named copies, not a structured binding: clang 14 cannot capture one in a lambda.
            for (const auto& column : {std::pair{value, vb}, std::pair{remoteness, rb}}) {
                const auto bytes = column.first;
                const auto width = column.second;
                if (!width) continue;
                owned(p, comm.rank, [&](uint64_t start, uint64_t end, size_t b) {
                    const uint64_t local = layout.offset[b] + (start - layout.first[b]);
                    answer.insert(answer.end(), bytes + local * width,
                                  bytes + (local + end - start) * width);
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
        if (pages.value_words.size() < (slots * page * vb + 7) / 8)
            pages.value_words.resize((slots * page * vb + 7) / 8);
        if (pages.remoteness_words.size() < (slots * page * rb + 7) / 8)
            pages.remoteness_words.resize((slots * page * rb + 7) / 8);
        for (size_t i = 0; i < wanted.size(); ++i)
            pages.slot[wanted[i]] = static_cast<int32_t>(first_slot + i);
        pages.held.insert(pages.held.end(), wanted.begin(), wanted.end());
        auto* page_value = reinterpret_cast<uint8_t*>(pages.value_words.data());
        auto* page_remoteness = reinterpret_cast<uint8_t*>(pages.remoteness_words.data());
        const uint8_t* in = reply.data();
        for (size_t owner = 0; owner < processes; ++owner) {
            for (uint64_t p : asks[owner]) {
                const uint64_t base = uint64_t(pages.slot[p]) * page;
                for (const auto& column :
                     {std::pair{page_value, vb}, std::pair{page_remoteness, rb}}) {
                    const auto bytes = column.first;
                    const auto width = column.second;
                    if (!width) continue;
                    for_each_overlap(layout, p * page, std::min(u.size(), (p + 1) * page),
                                     [&](uint64_t start, uint64_t end, size_t b) {
                                         if (size_t(layout.owner[b]) != owner) return;
                                         const uint64_t n = (end - start) * width;
                                         std::memcpy(bytes + (base + start - p * page) * width, in,
                                                     n);
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
                if (rb)
                    std::memcpy(remoteness + kept * page * rb, remoteness + at * page * rb,
                                page * rb);
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
        return {s.value.data<V>() + (p.block_local - window_first),
                REM ? s.remoteness.data<R>() + (p.block_local - window_first) : nullptr,
                p.block_first,
                reinterpret_cast<const V*>(pages.value_words.data()),
                reinterpret_cast<const R*>(pages.remoteness_words.data()),
                pages.slot.data(),
                pages.bits};
    }

    // Sweeps the pieces of `round` in parallel, a piece per task (pieces
    // differ in size a lot), by `sweep_piece`; returns the child look-ups
    // it counts.
    template <class F>
    static uint64_t sweep_pieces(const std::vector<Piece>& round, F&& sweep_piece) {
        std::atomic<uint64_t> lookups{0};
        engine::sync_parallel_for_with(
            tbb::blocked_range<size_t>(0, round.size(), 1),
            [&](const tbb::blocked_range<size_t>& r) {
                uint64_t local = 0;
                for (size_t i = r.begin(); i != r.end(); ++i) local += sweep_piece(round[i]);
                lookups.fetch_add(local, std::memory_order_relaxed);
            },
            tbb::simple_partitioner());
        return lookups.load();
    }

    // 4. Sweeps the round's pieces with the brute-force kernel.
    template <class Children, bool REM, class V, class R>
    uint64_t sweep(const Children& children, const std::vector<Piece>& round,
                   engine::Overflow& overflow) {
        const V terminal = static_cast<V>(o.solve.convention == engine::Convention::misere ? 1 : 0);
        return sweep_pieces(round, [&](const Piece& p) {
            const engine::BruteKernel<Children, REM, V, R, PagedStore<V, R>> kernel{
                u, children, paged_store<REM, V, R>(p), terminal, &overflow};
            auto scratch = kernel.scratch();
            return kernel.sweep(p.first, p.count, scratch);
        });
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
            while (pages.list.size() * pages.page() * width > budget &&
                   round_positions > MIN_ROUND) {
                round_positions /= 2;
                cursor = saved;
                round = take(level, cursor);
                mark(children, round);
            }
            if (!comm.any(!round.empty())) break;
            // Only the pages of this round not held from the last are fetched.
            fetch(keep_held(), t);
            sweep_round(round);
            if (pages.list.size() * pages.page() * width * 4 < budget &&
                round_positions < (uint64_t{1} << 24))
                round_positions *= 2;
            // Rounds of the same size everywhere: a process whose rounds
            // were larger than another's would keep it waiting at every
            // exchange (nim misere K=5 H=63 on two processes: 8.7 s, 7.2 s after).
            round_positions = comm.min(round_positions);
            ++t.rounds;
        }
    }

    // Where the aggregates that the blocks [b, e) of a level pass on go: per
    // block and chain, straight into the slot of the successor block when
    // this process holds it, else into `send` after the run's header (the
    // other processes' runs one after the other, by rank). Not zero-filled:
    // the sweep writes every word.
    struct Outbox {
        struct Chains {
            size_t group;
            // Where the aggregates passed on go, if anywhere.
            std::array<AggregatesAt, CHAINS> to{};
        };
        size_t b = 0;                 // the first block
        std::vector<Chains> chains;   // per block from b
        std::vector<uint64_t> words;  // per process: its runs' words in `send` (none for this one)
        std::shared_ptr<uint64_t[]> send;
    };

    // Whether aggregates arrive for block `b` of this process by each
    // chain: by the LARGEST for a block whose largest heap is alone
    // (m2 < m), by the SECOND where its third largest heap is below its
    // piece's first m2 (at the block's first position, where m3 is least).
    std::array<bool, CHAINS> arriving(const LineChain& c, size_t b) const {
        std::array<uint32_t, Universe::MAX_HEAPS> a{};
        u.unrank(layout.local_global_first[b], a.data());
        const unsigned k = u.max_heaps();
        const uint32_t m = a[k - 1], m2 = a[k - 2], m3 = k > 2 ? a[k - 3] : 0;
        const uint32_t first = c.piece_first[chain_group(u, a.data())];
        return {arrives_by(k - 1, k, m, m2, m3, first) == LARGEST,
                arrives_by(k - 2, k, m, m2, m3, first) == SECOND};
    }

    // The aggregates arriving for this process's blocks of `level`: a
    // block's positions for each chain they arrive by.
    uint64_t arriving_count(const LineChain& c, size_t level) const {
        const SolveOrder& lp = layout.local_plan;
        uint64_t n = 0;
        for (size_t b = lp.level_start[level]; b < lp.level_start[level + 1]; ++b) {
            const auto arrives = arriving(c, b);
            n += lp.blocks[b].count * (uint64_t{arrives[LARGEST]} + arrives[SECOND]);
        }
        return n;
    }

    // The slots of the aggregates arriving for this process's blocks of `level`.
    Arrivals arrivals_for(LineChain& c, size_t level) const {
        const SolveOrder& lp = layout.local_plan;
        Arrivals x;
        x.b0 = lp.level_start[level];
        x.b1 = lp.level_start[level + 1];
        x.slot.assign((x.b1 - x.b0) * CHAINS, Arrivals::NONE);
        x.filled.assign(x.slot.size(), 0);
        uint64_t words = 0;
        for (size_t b = x.b0; b < x.b1; ++b) {
            const auto arrives = arriving(c, b);
            for (const Chain chain : {LARGEST, SECOND}) {
                if (!arrives[chain]) continue;
                x.slot[(b - x.b0) * CHAINS + chain] = words;
                words += c.shape.words(lp.blocks[b].count);
            }
        }
        x.bytes = words * 8;
        x.area = c.take_area(x.bytes);
        return x;
    }

    // The slot for `count` aggregates arriving by `chain` for the block at
    // `offset` in this process's arrays, in a level after `level` (its
    // slots made on the first arrival); marked filled.
    AggregatesAt slot(LineChain& c, size_t level, uint64_t offset, unsigned chain,
                      uint64_t count) const {
        const SolveOrder& lp = layout.local_plan;
        // Offsets rise with the blocks of the local plan.
        const auto block =
            std::lower_bound(lp.blocks.begin(), lp.blocks.end(), offset,
                             [](const Block& b, uint64_t first) { return b.first < first; });
        const auto b = static_cast<size_t>(block - lp.blocks.begin());
        const auto to =
            static_cast<size_t>(std::upper_bound(lp.level_start.begin(), lp.level_start.end(), b) -
                                lp.level_start.begin() - 1);
        if (block == lp.blocks.end() || block->first != offset || to <= level || chain >= CHAINS)
            throw std::logic_error("line chain: aggregates arrived for no later block");
        auto it = c.later.find(to);
        if (it == c.later.end()) it = c.later.emplace(to, arrivals_for(c, to)).first;
        Arrivals& x = it->second;
        const size_t i = (b - x.b0) * CHAINS + chain;
        if (x.slot[i] == Arrivals::NONE || x.filled[i] != 0 || count == 0 || count > block->count ||
            (chain == LARGEST && count != block->count))
            throw std::logic_error("line chain: aggregates arrived for no block awaiting them");
        x.filled[i] = count;
        return AggregatesAt::of(x.words() + x.slot[i], block->count, c.shape);
    }

    Outbox outbox(LineChain& c, size_t level, size_t b0, size_t b1) const {
        const SolveOrder& lp = layout.local_plan;
        const unsigned k = u.max_heaps();
        const size_t processes = static_cast<size_t>(comm.size);
        const size_t self = static_cast<size_t>(comm.rank);
        Outbox out;
        out.b = b0;
        out.chains.resize(b1 - b0);
        out.words.assign(processes, 0);
        std::array<uint32_t, Universe::MAX_HEAPS> a{};
        // A run for another process: its block and chain, the successor,
        // the run's positions, and the process and word it goes to.
        struct Run {
            size_t block, next;
            Chain chain;
            uint64_t count;
            size_t process;
            uint64_t at;
        };
        std::vector<Run> runs;
        for (size_t b = b0; b < b1; ++b) {
            const uint64_t first = layout.local_global_first[b], count = lp.blocks[b].count;
            u.unrank(first, a.data());
            typename Outbox::Chains& block = out.chains[b - b0];
            const uint32_t m = a[k - 1], m2 = a[k - 2], m3 = k > 2 ? a[k - 3] : 0;
            block.group = chain_group(u, a.data());
            const uint32_t lo = c.piece_first[block.group], hi = c.piece_last[block.group];
            // The positions that pass on by each chain: all by LARGEST; by
            // SECOND all at the piece's end, else those with m3 below the
            // piece's first m2 (a prefix: all or none of a block of 3 top
            // heaps or more, those whose lower heaps are below lo in one of 2).
            uint64_t passing[CHAINS] = {m < u.max_heap_size() ? count : 0, 0};
            if (m2 < m) {
                std::array<uint32_t, Universe::MAX_HEAPS> z{};
                u.unrank(first + count - 1, z.data());
                passing[SECOND] = m2 == hi || (k > 2 ? z[k - 3] : 0) < lo ? count
                                  : m3 < lo                               ? u.term(k - 3, lo)
                                                                          : 0;
            }
            for (const Chain chain : {LARGEST, SECOND}) {
                if (passing[chain] == 0) continue;
                const unsigned i = chain == LARGEST ? k - 1 : k - 2;
                const uint64_t target = first + u.term(i, a[i] + 1) - u.term(i, a[i]);
                const size_t next = layout.find(target);
                if (layout.first[next] != target || layout.count[next] < passing[chain] ||
                    (chain == LARGEST && layout.count[next] != count))
                    throw std::logic_error(
                        "line chain: a block's successor is not a block of its size");
                const auto q = static_cast<size_t>(layout.owner[next]);
                if (q == self) {
                    block.to[chain] = slot(c, level, layout.offset[next], chain, passing[chain]);
                    continue;
                }
                runs.push_back({b, next, chain, passing[chain], q, out.words[q] + 2});
                out.words[q] += 2 + c.shape.words(passing[chain]);  // after the header: key, count
            }
        }
        std::vector<uint64_t> section(processes, 0);
        for (size_t q = 1; q < processes; ++q) section[q] = section[q - 1] + out.words[q - 1];
        out.send = c.buffer(section[processes - 1] + out.words[processes - 1]);
        for (const Run& r : runs) {
            uint64_t* run = out.send.get() + section[r.process] + r.at;
            run[-2] = layout.offset[r.next] * CHAINS + r.chain;
            run[-1] = r.count;
            // The remoteness pairs' last word, whose padding no sweep writes.
            if (c.shape.rem_bytes) run[c.shape.words(r.count) - 1] = 0;
            out.chains[r.block - b0].to[r.chain] = AggregatesAt::of(run, r.count, c.shape);
        }
        return out;
    }

    // Sends the outbox's aggregates to their processes and takes those sent
    // to this one into the slots of its later levels.
    void deliver(LineChain& c, size_t level, Outbox& out, LevelTraffic& t) const {
        const std::vector<uint64_t> counts = comm.swap_counts(out.words);
        const uint64_t arriving = std::accumulate(counts.begin(), counts.end(), uint64_t{0});
        std::shared_ptr<uint64_t[]> got = c.buffer(arriving);
        comm.exchange_into(out.send.get(), out.words, got.get(), counts);
        out.send.reset();
        for (uint64_t at = 0; at < arriving;) {
            const uint64_t key = got[at], count = got[at + 1];
            const AggregatesAt to =
                slot(c, level, key / CHAINS, static_cast<unsigned>(key % CHAINS), count);
            const AggregatesAt from = AggregatesAt::of(got.get() + at + 2, count, c.shape);
            std::memcpy(to.set, from.set, count * c.shape.w * 8);
            std::memcpy(to.rem, from.rem, c.shape.rem_bytes_of(count));
            at += 2 + c.shape.words(count);
        }
        for (size_t q = 0; q < out.words.size(); ++q) {
            t.sent += out.words[q] * 8;
            t.received += counts[q] * 8;
        }
    }

    // A level by the line chain: each block swept with the aggregates that
    // arrived for it, the ones it passes on written straight into the
    // outbox, sent round by round (Nim: whole blocks) or once the level is
    // done (a rule with a lag, whose rounds fetch pages and cut blocks).
    template <unsigned W, bool LAG, bool REM, class V, class R>
    uint64_t chain_level(LineChain& c, size_t level, engine::Overflow& overflow) {
        if (c.shape.w != W || c.shape.rem_bytes != (REM ? sizeof(R) : 0))
            throw std::logic_error("line chain: aggregates of another shape than the arrays'");
        LevelTraffic& t = traffic[level];
        t = {};
        const SolveOrder& lp = layout.local_plan;
        const size_t b0 = lp.level_start[level], b1 = lp.level_start[level + 1];
        // This level's arrivals, filled while the levels before were swept.
        if (const auto it = c.later.find(level); it != c.later.end()) {
            c.now = std::move(it->second);
            c.later.erase(it);
        } else {
            c.now = arrivals_for(c, level);
        }
        const V terminal = static_cast<V>(o.solve.convention == engine::Convention::misere ? 1 : 0);
        uint64_t lookups = 0;
        using Store = PagedStore<V, R>;
        const ChainKernel<W, LAG, REM, V, R, Store> kernel{
            .u = u,
            .amounts = c.amounts.data(),
            .near_count = c.near_count,
            .lag = c.lag,
            .terminal = terminal,
            .seen = c.seen_words(),
            .line_remoteness = static_cast<R*>(c.remoteness.data()),
            .overflow = &overflow.value};
        // Sweeps the pieces of blocks of `out`: each from its first
        // position on, with its arrivals and departures.
        const auto sweep_round = [&](const Outbox& out, const std::vector<Piece>& round) {
            lookups += sweep_pieces(round, [&](const Piece& p) {
                const auto& ch = out.chains[p.block - out.b];
                std::array<AggregatesAt, CHAINS> in{};
                for (const Chain chain : {LARGEST, SECOND}) {
                    const size_t at = (p.block - c.now.b0) * CHAINS + chain;
                    if (c.now.slot[at] != Arrivals::NONE) {
                        if (c.now.filled[at] == 0)
                            throw std::logic_error(
                                "line chain: a block's aggregates did not arrive");
                        in[chain] = AggregatesAt::of(c.now.words() + c.now.slot[at],
                                                     lp.blocks[p.block].count, c.shape);
                    }
                }
                return kernel.sweep(
                    p.first, p.count, paged_store<REM, V, R>(p),
                    {c.piece_first[ch.group], c.piece_last[ch.group], c.home[ch.group]}, in, ch.to,
                    p.first - p.block_first);
            });
        };
        if constexpr (!LAG) {
            // Nim reads no child: rounds of whole blocks, every process
            // taking part in each exchange, with an empty round once its own
            // blocks are done.
            for (size_t b = b0;;) {
                size_t e = b;
                for (uint64_t words = 0; e < b1 && (e == b || words < chain_round_words); ++e)
                    words += CHAINS * c.shape.words(lp.blocks[e].count);
                if (!comm.any(b < e)) break;
                Outbox out = outbox(c, level, b, e);
                std::vector<Piece> whole;
                for (size_t x = b; x < e; ++x)
                    whole.push_back({layout.local_global_first[x], lp.blocks[x].count,
                                     layout.local_global_first[x], lp.blocks[x].first, x});
                sweep_round(out, whole);
                deliver(c, level, out, t);
                ++t.rounds;
                b = e;
            }
        } else {
            // The near children and joining points come in pages, round by
            // round, as for the brute-force kernel.
            Outbox out = outbox(c, level, b0, b1);
            rounds(ChainChildren{u, c.amounts.data(), c.near_count + 1}, level, t,
                   [&](const std::vector<Piece>& round) { sweep_round(out, round); });
            deliver(c, level, out, t);
        }
        c.retire(c.now);
        c.done_with(level);
        return lookups;
    }

    // When each of this process's home lines is last touched (LineChain::
    // done_after). The lines sharing their J - 1 largest heaps Q (J: the
    // blocks' top heaps) are a run of indices, whose points lie in the
    // blocks with top heaps Q and one more heap (the lines of the lower
    // heaps, and of that heap): so a block's positions touch, at home, the
    // runs of its top heaps without one of them, and the block's level is
    // the last touch of a run if no later block touches it. With J = 2 a
    // run would be a whole row: every line is kept to the end. Returns the
    // most home lines held at once (touched and not given back): a run's
    // lines whose largest lower heap is y are first touched by the block of
    // top heaps Q and y (as a lower heap's lines), so a run fills level by
    // level.
    uint64_t schedule_home_lines(LineChain& c, unsigned block_heaps) const {
        const SolveOrder& lp = layout.local_plan;
        const unsigned k = u.max_heaps(), j = block_heaps;
        c.done_after.assign(lp.levels(), {});
        if (j < 3 || j >= k) return c.lines;
        struct Run {
            uint64_t end;
            size_t last_level;
            uint64_t touched;  // lines
        };
        std::vector<int64_t> change(lp.levels() + 1, 0);  // lines held from each level on
        std::map<uint64_t, Run> runs;                     // by first line
        std::array<uint32_t, Universe::MAX_HEAPS> a{}, q{};
        uint64_t line[Universe::MAX_HEAPS];
        for (size_t level = 0; level < lp.levels(); ++level) {
            for (size_t b = lp.level_start[level]; b < lp.level_start[level + 1]; ++b) {
                u.unrank(layout.local_global_first[b], a.data());  // its lower heaps at 0
                const uint32_t m = a[k - 1], m2 = a[k - 2], m3 = a[k - 3];
                const size_t g = chain_group(u, a.data());
                // A lower heap (index 0) and the top heaps, each distinct one.
                for (unsigned i = 0; i < k; ++i) {
                    if ((i > 0 && i < k - j) || (i > 0 && a[i - 1] == a[i])) continue;
                    if (arrives_by(i, k, m, m2, m3, c.piece_first[g]) != CHAINS) continue;
                    // The run's first line: Q over K - J heaps of 0, as the
                    // line of heap 0 of Q over K - J + 1 of them.
                    unsigned n = 0;
                    for (unsigned x = 0; x + j <= k; ++x) q[n++] = 0;
                    for (unsigned x = k - j; x < k; ++x)
                        if (x != (i < k - j ? k - j : i)) q[n++] = a[x];
                    engine::line_indices(u, q.data(), line);
                    const uint64_t first = line[0] + c.home[g];
                    const uint64_t count = engine::binomial(uint64_t{q[k - j + 1]} + k - j, k - j);
                    Run& run = runs.try_emplace(first, Run{first + count, level, 0}).first->second;
                    run.last_level = level;
                    if (i == 0) {  // the lines whose largest lower heap is a[k - j]
                        const uint64_t below =
                            engine::binomial(uint64_t{a[k - j]} + k - j - 1, k - j - 1);
                        run.touched += below;
                        change[level] += static_cast<int64_t>(below);
                    }
                }
            }
        }
        for (const auto& [first, run] : runs) {
            c.done_after[run.last_level].emplace_back(first, run.end);
            change[run.last_level + 1] -= static_cast<int64_t>(run.touched);
        }
        int64_t held = 0, most = 0;
        for (const int64_t d : change) most = std::max(most, held += d);
        return static_cast<uint64_t>(most);
    }

    uint64_t chain_dispatch(LineChain& c, size_t level, engine::Overflow& overflow) {
        return engine::with_widths(s.value.bits(), o.solve.remoteness ? s.remoteness.bits() : 0,
                                   [&]<bool REM, class V, class R>() {
                                       return engine::with_line_kernel(
                                           c.shape.w, c.lag > 0, [&]<unsigned W, bool LAG>() {
                                               return chain_level<W, LAG, REM, V, R>(c, level,
                                                                                     overflow);
                                           });
                                   });
    }

    template <class Children>
    uint64_t dispatch(const Children& children, size_t level, engine::Overflow& overflow) {
        // Not s.remoteness.empty(): a process may hold no position at all.
        return engine::with_widths(s.value.bits(), o.solve.remoteness ? s.remoteness.bits() : 0,
                                   [&]<bool REM, class V, class R>() {
                                       return solve_level<Children, REM, V, R>(children, level,
                                                                               overflow);
                                   });
    }
};

}  // namespace nimtb::mpi
