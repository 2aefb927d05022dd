#!/usr/bin/python3
"""The distributed solve's cost model (docs/CLUSTER.md).

    tools/cost_model.py STATS.json        # a run's levels: predicted against measured bytes
    tools/cost_model.py --extrapolate     # nim misere K=8..10 H=63 (line chain and brute force),
                                          # misere Kayles N=120, 140

The model, per level l of a solve on R processes:
  - positions P_l, dealt out so that each process solves about P_l / R;
  - child look-ups L_l: the children of the level's positions, fixed by the
    rule and the universe (Nim in a box: about K * 29.6 a position at H=63;
    Kayles under a total N: about 0.58 N);
  - bytes on the wire, all processes together, each way:
        B_l = gamma * L_l * (R - 1) / R,
    gamma the bytes a look-up costs in fetched pages (a page's positions
    come whole, several children share a page): 0.48 for Nim in a box,
    1.05 for Kayles under a total, fitted on the runs in docs/CLUSTER.md.
A process holds P / R positions of (value + remoteness) bytes, twice its
page budget (P / R / 16 of them, 1 to 64 MB), a page table of 4 bytes per
page of 64 positions (at most 2^21 pages) and about 21 MB of program and
MPI. The time: the look-ups at the measured rate of a core (each child is
generated twice, once to mark its page and once to read it), plus the
bytes over the network.

Nim in a box runs the line chain instead (mpi/line_chain.h): no look-ups
and no pages (other take rules' chains add the pages of a few children
each, which this model leaves out). Its positions are dealt in groups of
their two largest heaps m2 <= m, in pieces (runs of m2 of one m,
mpi/deal.h: chain_deal, mirrored here); each position whose largest heap m
is below H sends one aggregate of A = 8 W + 2 r bytes (W = 1 for H < 64, r
the bytes of a remoteness: 2 where K H > 255) to the position with m + 1,
and each position of a piece's last m2 (below m) one to the position with
m2 + 1, across the wire when the two groups' processes differ, so
        B_l = A P_l f_R,
f_R the aggregates a position sends to another process (from the deal:
0.48 on two processes, 0.75 on four at K=6 H=63). A streamed process holds,
level by level, the home lines touched and not yet given back (runs of
lines sharing their J - 1 largest heaps, A bytes each: chain_home_lines),
two successive sums' arrivals and a round's
(chain_in_flight), two windows of its largest level's positions (one solved into,
one its spills write; a level: one sum of the
blocks' top heaps, J = chain_block_heaps of them), every block's place in
the deal and the program; the busiest process at its busiest level sets the
figure (chain_memory).
"""
import json
import re
import sys
from functools import lru_cache
from math import comb

import numpy as np

GAMMA = {"box": 0.48, "total": 1.05}
# Look-ups a core does a second in the distributed kernel (each child marked
# and read), measured on this machine with --stats at -np 4 on 2 cores: nim
# misere K=5 H=63 (Nim in a box), misere Kayles N=70 (under a total).
RATE_PER_CORE = {"box": 106e6, "total": 38e6}
# Positions a core sweeps a second in the line chain (nim misere K=7 H=63,
# -np 2 with one thread each on this machine: about 600 M positions a
# process in 10.7 s of the kernel's perf samples; the exchanges, the spill
# and the write come on top).
CHAIN_RATE_PER_CORE = 56e6
BASE_BYTES = 21 << 20
# A streamed process's two chunk encoders (mpi/chunk_encoder.h: ChunkEncoder::memory, a
# 64 Ki-entry chunk raw and encoded and zstd's context for it, 1.3 MB at the default level).
ENCODER_BYTES = 4 << 20
# mpi/deal.h: the line chain's blocks average at least this many positions.
CHAIN_BLOCK_POSITIONS = 4096
# What every process keeps of every block of the solve order: the plan's first rank and
# count, and the Layout's first, count, offset and owner.
LAYOUT_BYTES = 16 + 28


def predicted_bytes(lookups, processes, gamma):
    return gamma * lookups * (processes - 1) / processes


def line_words(h):
    return 1 if h < 64 else 4 if h < 256 else 16


def aggregate_bytes(k, h):
    """An aggregate's bytes, at home and travelling (mpi/line_chain.h: AggregateShape): its
    bitset and two remoteness of the arrays' width (engine/solve/line_kernel.h)."""
    return 8 * line_words(h) + 2 * (2 if k * h > 255 else 1)


def group_positions(k, m2):
    return comb(m2 + k - 2, k - 2)


def group_lines(k, m2):
    return (1 if m2 == 0 else 0) if k == 2 else comb(m2 + k - 3, k - 3)


@lru_cache(maxsize=None)
def chain_deal(k, h, r):
    """Each group (m, m2)'s process and piece (first m2, last m2), as mpi/deal.cpp's chain_deal
    deals them: rows of m cut into runs of about a quarter of an even share (of positions plus
    lines), largest first."""
    positions = comb(h + k, k)
    lines = sum(group_lines(k, m2) * (h + 1 - m2) for m2 in range(h + 1))
    load_of = lambda m2: group_positions(k, m2) / positions + group_lines(k, m2) / lines
    piece = 2.0 / (4.0 * r)
    pieces = []
    for m in range(h + 1):
        row = 0.0
        for m2 in range(m + 1):
            row += load_of(m2)
        target = row / max(1.0, float(int(row / piece)))
        lo, load = 0, 0.0
        for m2 in range(m + 1):
            load += load_of(m2)
            if load >= target or m2 == m:
                pieces.append((load, m, lo, m2))
                lo, load = m2 + 1, 0.0
    pieces.sort(key=lambda p: (p[0], p[1], p[2]), reverse=True)
    # Each to the process where it adds least to the levels' busiest (a level: the sum of the
    # three largest heaps), among those it leaves within 1.08 of an even share.
    owner, first, last, held = {}, {}, {}, [0.0] * r
    level_load = [[0] * (3 * h + 1) for _ in range(r)]
    busiest = [0] * (3 * h + 1)
    cap = 1.08 * 2.0 / r
    for load, m, lo, hi in pieces:
        adds = {}
        for m2 in range(lo, hi + 1):
            for m3 in range(m2 + 1 if k > 2 else 1):
                adds[m + m2 + m3] = adds.get(m + m2 + m3, 0) + (comb(m3 + k - 3, k - 3) if k > 2 else 1)
        least = min(range(r), key=lambda p: held[p])
        chosen, best = least, None
        for q in range(r):
            if held[q] + load > cap and q != least:
                continue
            cost = sum(max(busiest[lv], level_load[q][lv] + n) - busiest[lv] for lv, n in adds.items())
            if best is None or cost < best or (cost == best and held[q] < held[chosen]):
                best, chosen = cost, q
        for lv, n in adds.items():
            level_load[chosen][lv] += n
            busiest[lv] = max(busiest[lv], level_load[chosen][lv])
        for m2 in range(lo, hi + 1):
            owner[m, m2], first[m, m2], last[m, m2] = chosen, lo, hi
        held[chosen] += load
    return owner, first, last


def chain_crossing(k, h, r):
    """f_R: the aggregates a position sends to another process, on average."""
    owner, _, last = chain_deal(k, h, r)
    crossing = 0
    for m in range(h + 1):
        for m2 in range(m + 1):
            n = group_positions(k, m2)
            if m < h and owner[m, m2] != owner[m + 1, m2]:  # the largest heap raised
                crossing += n
            if m2 < m and m2 == last[m, m2] and owner[m, m2] != owner[m, m2 + 1]:  # the second
                crossing += n
    return crossing / comb(h + k, k)


def chain_block_heaps(k, h):
    """The top heaps of the line chain's blocks, as mpi/deal.cpp's chain_block_heaps: the most,
    up to 5 and below K, whose blocks average CHAIN_BLOCK_POSITIONS or more, never fewer than one
    process's (engine/solve/solve_order.cpp's choose_block_heaps, in a box)."""
    positions = comb(h + k, k)
    j = 1 if k == 1 else 3 if k >= 4 and positions // comb(h + 3, 3) >= 2048 else 2
    while j + 1 < min(k, 6) and positions // comb(h + j + 1, j + 1) >= CHAIN_BLOCK_POSITIONS:
        j += 1
    return j


@lru_cache(maxsize=None)
def chain_levels(k, h, r):
    """Per process and level (the sum of a block's top j heaps): the positions it solves, the
    aggregates that arrive for them and those they pass on (mpi/line_chain.h)."""
    owner, first, last = chain_deal(k, h, r)
    j = chain_block_heaps(k, h)
    levels = j * h + 1
    solved = [[0] * levels for _ in range(r)]
    arriving = [[0] * levels for _ in range(r)]
    passing = [[0] * levels for _ in range(r)]
    # Below the top two heaps: for each third largest heap m3, the positions by the sum of
    # the block's top heaps from m3 on (none when blocks share two).
    below = []
    for m3 in range(h + 1):
        sums = {}

        def add(depth, top, total):
            if depth == j:
                sums[total] = sums.get(total, 0) + comb(top + k - j, k - j)
                return
            for x in range(top + 1):
                add(depth + 1, x, total + x)
        if j == 2:
            sums[0] = comb(m3 + k - 3, k - 3)
        else:
            add(3, m3, m3)
        below.append(sums)
    for m in range(h + 1):
        for m2 in range(m + 1):
            p = owner[m, m2]
            for m3 in range(m2 + 1 if k > 2 else 1):
                for total, n in (below[m3] if k > 2 else {0: 1}).items():
                    lv = m + m2 + total
                    solved[p][lv] += n
                    if m < h:  # by the LARGEST chain
                        passing[p][lv] += n
                    if m2 < m and (m2 == last[m, m2] or (k > 2 and m3 < first[m, m2])):
                        passing[p][lv] += n  # by the SECOND chain
                    if m2 < m:
                        arriving[p][lv] += n
                    if k > 2 and m3 < first[m, m2]:
                        arriving[p][lv] += n
    return solved, arriving, passing


def chain_window(k, h, r):
    """The most positions one process solves in one level of the line chain: its window (a
    streamed process holds one level's positions)."""
    solved, _, _ = chain_levels(k, h, r)
    return max(max(levels) for levels in solved)


def chain_in_flight(k, h, r):
    """Per process and level, the aggregates it holds (mpi/level_solver.h): the level's
    arrivals and the next sum's, both areas whole (in huge pages, and kept from level to
    level rather than given back: mpi/line_chain.h, Arrivals, LineChain::take_area); and a
    round's outbox and arrivals (mpi/distributed_solver.cpp: an eighth of a level's arrivals,
    from 2^16 to 2^20 words, each)."""
    _, arriving, _ = chain_levels(k, h, r)
    words = aggregate_bytes(k, h) / 8
    most = max(max(a) for a in arriving)
    round_words = min(max(most * words // 8, 1 << 16), 1 << 20)
    return [[a[lv] + (a[lv + 1] if lv + 1 < len(a) else 0) + 2 * round_words / words
             for lv in range(len(a))] for a in arriving]


@lru_cache(maxsize=None)
def chain_home_lines(k, h, r):
    """Per process and level, the home lines it holds (mpi/level_solver.h:
    schedule_home_lines): the lines sharing their J - 1 largest heaps Q (Q1 = m, Q2 = m2 in a
    piece [lo, hi] of row m, ..., Q_{J-1} = z; S their sum) are a run, whose lines with
    largest lower heap y are first touched at level S + y (by the block of top heaps Q and
    y) and all given back after level S + hi (the point w = hi of each, the piece's last).
    With J = 2 every line is held from the start."""
    owner, _, last = chain_deal(k, h, r)
    j = chain_block_heaps(k, h)
    levels = j * h + 1
    if j < 3:
        _, lines = chain_held(k, h, r)
        return [np.full(levels, lines[p], dtype=np.float64) for p in range(r)]
    lower = k - j  # a line's heaps below Q
    touched = np.array([comb(y + lower - 1, lower - 1) for y in range(h + 1)], dtype=np.float64)
    run = np.array([comb(z + lower, lower) for z in range(h + 1)], dtype=np.float64)
    change = [np.zeros(levels + 2 * h + 2) for _ in range(r)]
    for (m, m2), p in owner.items():
        tails = chain_tails(m2, j - 3)  # [z][sum of Q3..Q_{J-1}]
        at = m + m2
        for z in range(m2 + 1):
            if not tails[z].any():
                continue
            filled = np.convolve(tails[z], touched[:z + 1])
            change[p][at:at + len(filled)] += filled
        gone = run[:m2 + 1] @ tails
        start = at + last[m, m2] + 1
        change[p][start:start + len(gone)] -= gone
    return [np.cumsum(c)[:levels] for c in change]


@lru_cache(maxsize=None)
def chain_tails(m2, free):
    """The sequences m2 >= Q3 >= ... >= Q_{J-1} of `free` heaps after m2 (Q_{J-1} = m2 when
    none), counted by their last heap z and the sum of all but m2: [z][sum]."""
    counts = np.zeros((m2 + 1, free * m2 + 1))
    if free == 0:
        counts[m2, 0] = 1
        return counts
    counts[:, :] = 0
    for z in range(m2 + 1):
        counts[z, z] = 1  # one heap: Q3 = z
    for _ in range(free - 1):
        step = np.zeros_like(counts)
        for top in range(m2 + 1):
            for z in range(top + 1):
                step[z, z:] += counts[top, :counts.shape[1] - z]
        counts = step
    return counts


def chain_memory(k, h, r, width, parts=False):
    """The busiest streamed process's peak under the line chain (mpi/distributed_solver.cpp):
    at its busiest level, the home lines it holds and the aggregates in flight (A bytes
    each), with two windows of its largest level's positions (`width` bytes each), every block's
    place in the deal (LAYOUT_BYTES each), its chunk encoders (ENCODER_BYTES) and the program and
    MPI. `parts`: also the lines',
    aggregates' and window's bytes at that level."""
    solved, _, _ = chain_levels(k, h, r)
    flight = chain_in_flight(k, h, r)
    lines = chain_home_lines(k, h, r)
    j = chain_block_heaps(k, h)
    a = aggregate_bytes(k, h)
    fixed = comb(h + j, j) * LAYOUT_BYTES + BASE_BYTES + ENCODER_BYTES
    windows = 2  # one solved into, the other written by the spills (mpi/spill.h)
    best = max(((lines[p][lv] * a + flight[p][lv] * a + windows * max(solved[p]) * width,
                 lines[p][lv] * a, flight[p][lv] * a, windows * max(solved[p]) * width)
                for p in range(r) for lv in range(len(flight[p]))))
    return (best[0] + fixed, best[1:]) if parts else best[0] + fixed


@lru_cache(maxsize=None)
def chain_held(k, h, r):
    """Per process, the positions and the home lines the deal gives it."""
    owner, _, _ = chain_deal(k, h, r)
    positions, lines = [0] * r, [0] * r
    for (m, m2), p in owner.items():
        positions[p] += group_positions(k, m2)
        lines[p] += group_lines(k, m2)
    return positions, lines


def chain_largest_share(k, h, r):
    """The largest share of positions and of lines one process holds (a piece is never split)."""
    positions, lines = chain_held(k, h, r)
    return max(positions) / comb(h + k, k), max(lines) / comb(h + k - 1, k - 1)


def compare_chain(j):
    r = j["processes"]
    words = re.match(r"at most (\d+) heaps of at most (\d+)", j["universe"])
    k, h = int(words[1]), int(words[2])
    per_position = aggregate_bytes(k, h) * chain_crossing(k, h, r)
    print(f"{j['rules']} {j['convention']}, {j['universe']}, {r} processes, line chain: "
          f"{per_position:.2f} bytes a position")
    print(f"{'level':>5} {'positions':>12} {'predicted MB':>13} {'measured MB':>12} {'ratio':>6}")
    total_p = total_m = 0
    ratios = []
    for x in j["levels"]:
        p, m = per_position * x["positions"], sum(x["sent"])
        total_p += p
        total_m += m
        if x["positions"] >= j["positions"] / 200:
            ratios.append(m / p)
            print(f"{x['level']:>5} {x['positions']:>12,} {p / 1e6:>13.2f} {m / 1e6:>12.2f} {m / p:>6.2f}")
    print(f"{'all':>5} {j['positions']:>12,} {total_p / 1e6:>13.1f} {total_m / 1e6:>12.1f} {total_m / total_p:>6.2f}")
    print(f"measured / predicted over the levels above: {min(ratios):.2f} to {max(ratios):.2f}")


def compare(path):
    with open(path) as f:
        j = json.load(f)
    if j["levels"] and all(x["kernel"] == "lines" for x in j["levels"]):
        return compare_chain(j)
    r = j["processes"]
    gamma = GAMMA["total" if "in all" in j["universe"] else "box"]
    print(f"{j['rules']} {j['convention']}, {j['universe']}, {r} processes, gamma {gamma}")
    print(f"{'level':>5} {'positions':>12} {'look-ups':>14} {'predicted MB':>13} {'measured MB':>12} {'ratio':>6}")
    total_p = total_m = 0
    for x in j["levels"]:
        p = predicted_bytes(x["lookups"], r, gamma)
        m = sum(x["sent"])
        total_p += p
        total_m += m
        if x["positions"] >= j["positions"] / 200:  # the levels that matter
            print(f"{x['level']:>5} {x['positions']:>12,} {x['lookups']:>14,} {p / 1e6:>13.2f} {m / 1e6:>12.2f} "
                  f"{(m / p if p else 0):>6.2f}")
    print(f"{'all':>5} {j['positions']:>12,} {j['child_lookups']:>14,} {total_p / 1e6:>13.1f} {total_m / 1e6:>12.1f} "
          f"{total_m / total_p:>6.2f}")
    ratios = [sum(x["sent"]) / predicted_bytes(x["lookups"], r, gamma) for x in j["levels"]
              if x["positions"] >= j["positions"] / 200 and x["lookups"]]
    if ratios:
        print(f"measured / predicted over the levels above: {min(ratios):.2f} to {max(ratios):.2f}")


@lru_cache(maxsize=None)
def partitions_at_most(n, largest):
    """Partitions of n into parts of at most `largest`."""
    if n == 0:
        return 1
    if largest == 0:
        return 0
    # Those without a part `largest`, and those with one.
    return partitions_at_most(n, largest - 1) + (partitions_at_most(n - largest, largest) if n >= largest else 0)


def universe(kind, size):
    if kind == "box":  # nim misere, K heaps of at most 63
        k = size
        positions = comb(63 + k, k)
        lookups = positions * k * 29.6
        return f"nim misere K={k} H=63", positions, lookups, 3  # 1 byte value, 2 remoteness
    n = size
    positions = sum(partitions_at_most(t, t) for t in range(n + 1))
    return f"misere Kayles N={n}", positions, positions * 0.58 * n, 2


def extrapolate():
    print(f"{'universe':<29} {'positions':>10} {'nodes':>5} {'GiB/node':>8} {'wire TB':>8} "
          f"{'10 Gb/s':>10} {'100 Gb/s':>10}")
    for kind, size, chain in (("box", 8, True), ("box", 9, True), ("box", 10, True), ("box", 8, False),
                              ("box", 9, False), ("box", 10, False), ("total", 120, False),
                              ("total", 140, False)):
        name, positions, lookups, width = universe(kind, size)
        name += ", lines" if chain else ", brute" if kind == "box" else ""
        for nodes in (8, 16, 64):
            cores = 64  # threads per node, one process a node
            per_node = positions / nodes * width
            if chain:  # the busiest process sets memory and time
                share, _ = chain_largest_share(size, 63, nodes)
                memory = chain_memory(size, 63, nodes, width)
                wire = positions * aggregate_bytes(size, 63) * chain_crossing(size, 63, nodes)
                compute = positions * share / (CHAIN_RATE_PER_CORE * cores)
            else:
                budget = min(max(per_node / 16, 1 << 20), 64 << 20)
                table = 4 * min(2 ** 21, positions / 64)
                memory = per_node + 2 * budget + table + BASE_BYTES
                wire = predicted_bytes(lookups, nodes, GAMMA[kind])
                compute = lookups / (RATE_PER_CORE[kind] * cores * nodes)
            times = []
            for gbit in (10, 100):
                network = wire / nodes / (gbit * 1e9 / 8)  # each node sends its share
                times.append(compute + network)
            fmt_t = lambda s: f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.0f} min" if s >= 60 else f"{s:.0f} s"
            print(f"{name:<29} {positions:>10.2e} {nodes:>5} {memory / 2**30:>8.1f} {wire / 1e12:>8.1f} "
                  f"{fmt_t(times[0]):>10} {fmt_t(times[1]):>10}")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--extrapolate":
        extrapolate()
    elif len(sys.argv) == 2:
        compare(sys.argv[1])
    else:
        print(__doc__)
        sys.exit(2)
