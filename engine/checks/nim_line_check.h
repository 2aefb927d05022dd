#pragma once
// The consistency check of a Nim table, one line at a time.
//
// verify's plain check looks up every child of every position: for Nim that
// is the sum of the heaps, some 190 look-ups a position for 6 heaps of at
// most 63, scattered over the table. But a Nim position's children through
// its heap of size x are the positions of its "line" (the other heaps fixed,
// that heap any size y) with y < x: a prefix of the line. So the checker
// keeps, for every line, what its prefix holds so far (the set of values,
// the largest remoteness, the smallest remoteness of a P-position) and
// walks the table once in rank order, in which every line is walked from
// y = 0 upwards (or, on several threads, in the grouped solve order, which
// walks each line upwards too: verify.cpp). A position's children are the union of the prefixes of its
// lines (one per distinct heap size), so its expected value is the mex of
// the union of their value sets, its expected remoteness 1 + the largest or
// the smallest of theirs; then it joins its lines. A few reads a position.
//
// This is verify's own code, written from the definitions: it shares no code
// with the solver's line kernel (which joins the values it computes, where
// this joins the values the table holds, and keeps its own store), so a
// mistake in one is not repeated in the other. The
// two share the grouped order (solve_order.h), whose test checks every
// child the rules give against it.
//
// Lines are the multisets of K - 1 heaps of at most H: C(H + K - 1, K - 1)
// of them, 8 bytes of value set (a word for each 64 values) and 4 of
// remoteness each, packed in one record a line; for K = 7, H = 63, 1.4 GB, for K = 8 14.4 GB, in huge
// pages (LargeBuffer): the look-ups roam over all of it.

#include <cstdint>

#include "engine/base/memory.h"
#include "engine/game/rules.h"
#include "engine/game/universe.h"

namespace nimtb::engine {

class LineCheck {
  public:
    // Whether the check applies: Nim (every amount of a heap may be taken)
    // in a box.
    static bool applies(const Rule& rule, const Universe& u);
    // The bytes it needs for `u`.
    static uint64_t bytes(const Universe& u, bool remoteness);

    LineCheck(const Universe& u, Convention convention, bool remoteness);

    // A run of `count` positions of consecutive ranks that share every heap
    // but the smallest, which rises by one from sorted[0] to sorted[0] +
    // count - 1 <= sorted[1] (or H, for one heap); sorted is the first
    // position (ascending, K heaps with zeros). Their stored values and
    // remoteness (null without) in; what the definitions make of their
    // children out, in want_value / want_remoteness; then each joins its
    // lines. Runs must come every one of them, each position after the
    // points below it on its lines: in rank order, or by the grouped solve
    // order, where the blocks of one level, which share no line, may run on
    // several threads at once (verify.cpp).
    // Along a run the line that leaves out the smallest heap is one line,
    // kept in registers, and every other line's index rises by one with
    // the smallest heap, so the run reads each as a contiguous stretch.
    void next_run(const uint32_t* sorted, uint64_t count, const uint32_t* value,
                  const uint32_t* remoteness, uint32_t* want_value, uint32_t* want_remoteness);

  private:
    // next_run() for WORDS words a line (0: words_) and with or without remoteness.
    template <unsigned WORDS, bool REMOTENESS>
    void next_run_as(const uint32_t* sorted, uint64_t count, const uint32_t* value,
                     const uint32_t* remoteness, uint32_t* want_value, uint32_t* want_remoteness);

    const Universe& u_;
    Universe lines_;  // the box of K - 1 heaps: its ranks index the lines
    bool normal_, remoteness_;
    unsigned words_;  // 64-bit words of value set per line
    // Per line, one packed record of `stride_` bytes (a line's look-up
    // touches one cache line or two, not one per field): the value set,
    // then (with remoteness) the largest remoteness and NONE minus the
    // smallest remoteness of a P-position (0, as the buffer starts: none
    // yet), 16 bits each.
    unsigned stride_ = 0;
    LargeBuffer lines_store_;
};

}  // namespace nimtb::engine
