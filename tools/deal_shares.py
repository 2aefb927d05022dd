#!/usr/bin/env python3
"""How evenly two deals of the distributed line chain share nim in a box, and
what they send: a measurement for the design of #65, not used by nimtb.

    tools/deal_shares.py K H SAMPLES       e.g. tools/deal_shares.py 8 63 20000

For P = 8, 16 and 64 processes:
- "largest-heap deal", the line chain's today (mpi/deal.cpp,
  largest_heap_owners): heap sizes from H down, each to the process with the
  fewest positions so far. The busiest process's positions against an even
  share are exact; a position sends an aggregate when its largest heap m is
  alone and the process of its point below (m - 1) is another.
- "rank ranges": contiguous ranges of N/P ranks (colex order,
  docs/FORMAT.md): even by construction; a position's line of heap h sends
  its aggregate when the point below (h - 1) lies in another range.
Aggregates sent are estimated over SAMPLES positions drawn uniformly.
"""
import random, sys
from math import comb


def unrank(r, K, H):
    a = [0]*K
    for i in range(K, 0, -1):
        # largest c with C(c, i) <= r
        lo, hi = i-1, H+i-1
        while lo < hi:
            mid = (lo+hi+1)//2
            if comb(mid, i) <= r: lo = mid
            else: hi = mid-1
        a[i-1] = lo - (i-1)
        r -= comb(lo, i)
    return a
def rank(a):
    return sum(comb(x+i, i+1) for i, x in enumerate(sorted(a)))
def largest_owners(K, H, P):
    load = [0]*P; owner = {}
    for m in range(H, -1, -1):
        p = load.index(min(load)); owner[m] = p; load[p] += comb(m+K-1, K-1)
    return owner, load
K, H, samples = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
N = comb(H+K, K)
random.seed(1)
for P in (8, 16, 64):
    owner, load = largest_owners(K, H, P)
    cross_l = cross_r = lines = 0
    for _ in range(samples):
        r = random.randrange(N); a = unrank(r, K, H); m = a[-1]
        distinct = sorted(set(x for x in a if x > 0))
        for h in distinct:
            lines += 1
            b = list(a); b[b.index(h)] = h-1; rb = rank(b)
            if r*P//N != rb*P//N: cross_r += 1
            if h == m and a.count(m) == 1:
                if owner[m] != owner[max(b)]: cross_l += 1
    print(f"K={K} P={P}: largest-heap deal: busiest {max(load)/N*P:.2f}x an even share, "
          f"aggregates sent {cross_l/samples:.3f} a position; rank ranges: even, "
          f"aggregates sent {cross_r/samples:.3f} a position ({lines/samples:.2f} lines a position)")
