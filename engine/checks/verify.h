#pragma once
// Checking a solved table against its own definition and against theorems.
//
// The table is read through TableSource, position by position in rank order,
// so a table larger than memory verifies as long as its source streams.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/game/rules.h"
#include "engine/game/universe.h"
#include "engine/sequences/period.h"
#include "engine/solve/solver.h"

namespace nimtb::engine {

// Read access to a table's quantities by rank.
class TableSource {
  public:
    virtual ~TableSource() = default;
    virtual uint32_t value(uint64_t rank) = 0;
    virtual bool has_remoteness() const = 0;
    virtual uint32_t remoteness(uint64_t rank) = 0;
    // True when several threads may read at once; verify then runs in parallel.
    virtual bool thread_safe() const { return false; }
    // Entries [first, first + count) of each dataset into `values` and
    // `remoteness` (left empty without remoteness): how verify reads the
    // positions it checks, a slice at a time. By default one rank at a time;
    // a table on disk decodes its chunks whole instead.
    virtual void read(uint64_t first, uint64_t count, std::vector<uint32_t>& values,
                      std::vector<uint32_t>& remoteness) {
        values.resize(count);
        remoteness.resize(has_remoteness() ? count : 0);
        for (uint64_t i = 0; i < count; ++i) {
            values[i] = value(first + i);
            if (!remoteness.empty()) remoteness[i] = this->remoteness(first + i);
        }
    }
};

// A table held in memory: read-only, so any number of threads may read it.
class ArraySource : public TableSource {
  public:
    ArraySource(const QuantityArray& values, const QuantityArray& remoteness)
        : values_(values), remoteness_(remoteness) {}
    uint32_t value(uint64_t rank) override { return values_.get(rank); }
    bool has_remoteness() const override { return !remoteness_.empty(); }
    uint32_t remoteness(uint64_t rank) override { return remoteness_.get(rank); }
    bool thread_safe() const override { return true; }
    // Widened straight from the arrays.
    void read(uint64_t first, uint64_t count, std::vector<uint32_t>& values,
              std::vector<uint32_t>& remoteness) override;

  private:
    const QuantityArray& values_;
    const QuantityArray& remoteness_;
};

// What a counterexample compares: the stored value, the stored remoteness,
// or the outcome (stored and expected are then 0 for P, 1 for N).
enum class Quantity { value, remoteness, outcome };
const char* to_string(Quantity q);

// A position where a check did not hold.
struct Counterexample {
    Heaps heaps;  // sorted, without empty heaps
    uint64_t rank = 0;
    uint32_t stored = 0;
    uint32_t expected = 0;
    Quantity of = Quantity::value;
};

// One check over the whole table.
struct Check {
    std::string name;
    std::string description;
    bool applies = false;  // false: not meaningful for this rule/convention, or skipped
    // Why a check that is meaningful here was not made (a misère quotient
    // beyond what verify computes); empty otherwise.
    std::string skipped;
    // definition or theorem: a position where it does not hold is a failure;
    // observation: a finding about the table, which may hold or not.
    Basis basis = Basis::theorem;
    uint64_t tested = 0;
    uint64_t held = 0;
    std::vector<Counterexample> counterexamples;  // the smallest ones (by tokens, then rank)
    bool passed() const { return !applies || held == tested; }
    bool must_hold() const { return basis != Basis::observation; }
};

// The checks of a report, by name.
enum class CheckId : size_t {
    consistency,            // definition: every value a mex, every remoteness as defined
    sprague_grundy,         // theorem: value = XOR of single-heap values (moves touch one heap)
    bouton,                 // theorem: Nim's value = XOR of heap sizes
    misere_nim,             // theorem: Bouton's misere rule for Nim
    misere_rule_on_values,  // observation: the misere-Nim rule on normal-play values
    wythoff,                // theorem: Wythoff's P-positions (floor(n phi), floor(n phi^2))
    moore,                  // theorem: Moore's Nim_k P-positions (bit counts divisible by k+1)
    misere_quotient,        // theorem: the misère quotient of heaps <= H predicts every outcome
};
inline constexpr size_t CHECK_COUNT = 8;

// The largest heap for which verify computes the misère quotient, and the
// largest order it lets a candidate reach (its cost grows quickly with
// both: Dawson's Kayles to heap 50 took 20 s to find its candidates pass
// 8192 elements at heap 34; at 1024 it stops at heap 33 in 0.6 s).
inline constexpr uint32_t VERIFY_QUOTIENT_MAX_HEAP = 128;
inline constexpr uint32_t VERIFY_QUOTIENT_MAX_ORDER = 1024;

struct SingleHeaps {
    std::vector<uint32_t> values;  // value of one heap of h tokens, h = 0..H
    Periodicity period;
};

struct VerifyReport {
    uint64_t positions = 0;
    uint64_t p_positions = 0;
    std::map<uint32_t, uint64_t> value_histogram;
    std::map<uint32_t, uint64_t> remoteness_histogram;
    std::vector<Check> checks;  // in CheckId order
    SingleHeaps single_heaps;
    Check& check(CheckId id) { return checks[static_cast<size_t>(id)]; }
    const Check& check(CheckId id) const { return checks[static_cast<size_t>(id)]; }
    // True when every applicable theorem and the consistency check held.
    bool ok() const;
};

// How many counterexamples each check keeps.
inline constexpr size_t MAX_COUNTEREXAMPLES = 5;

// Verifies the table of `rule` and `convention` over `universe`; calls
// progress(done, total) now and then, on the calling thread. In parallel when
// the source is thread-safe; the report is the same either way. Never throws
// for a mismatch: mismatches are in the report.
// Nim in a box is checked line by line (nim_line_check.h) unless `line_check`
// is false (the tests compare both ways).
VerifyReport verify(const Rule& rule, Convention convention, const Universe& universe,
                    TableSource& table,
                    const std::function<void(uint64_t, uint64_t)>& progress = {},
                    bool line_check = true);

}  // namespace nimtb::engine
