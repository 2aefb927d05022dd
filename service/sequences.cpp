#include "service/sequences.h"

#include <fmt/core.h>

#include <filesystem>
#include <optional>
#include <span>

#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "io/output_path.h"
#include "io/sequence_file.h"
#include "service/request/fields.h"
#include "service/request/solve_report.h"
#include "service/sequence_checkpoint.h"

namespace nimtb::service {

namespace {

// The fields of a sequence request under their JSON names; max_heap and
// until_proven, one choice, are read beside them.
constexpr auto SEQUENCE_FIELDS = [](auto& r, auto&& f) {
    f("rules", r.rule);
    f("limit", r.limit, LIMIT);
    f("method", r.method);
    f("threads", r.threads, THREADS);
    f("output", r.output);
    f("overwrite", r.overwrite);
    f("checkpoint", r.checkpoint);
};

}  // namespace

nlohmann::json to_json(const SequenceRequest& r) {
    nlohmann::json j = write_fields(r, SEQUENCE_FIELDS);
    if (r.max_heap) {
        j["max_heap"] = *r.max_heap;
        j.erase("limit");
    } else {
        j["until_proven"] = true;
    }
    return j;
}

SequenceRequest sequence_request_from_json(const nlohmann::json& j) {
    SequenceRequest r;
    read_fields(j, r, SEQUENCE_FIELDS, "sequence", {"max_heap", "until_proven"});
    bool until_proven = false;
    fields::read(j, "sequence", "until_proven", until_proven, Unranged{});
    fields::read(j, "sequence", "max_heap", r.max_heap, SEQUENCE_MAX_HEAP);
    if (until_proven == r.max_heap.has_value())
        throw InputError("a sequence request gives max_heap or until_proven, not both or neither");
    if (!until_proven && j.contains("limit"))
        throw InputError("a sequence request gives limit with until_proven");
    return r;
}

uint64_t check_sequence(const SequenceRequest& r) {
    const uint64_t n = r.heaps();
    if (n < 1 || n > MAX_SEQUENCE_HEAPS) {
        throw InputError(
            fmt::format("a sequence runs to a heap from 1 to {}, not {}", MAX_SEQUENCE_HEAPS, n));
    }
    engine::SequenceOptions refusals;  // what the engine refuses before any work, first
    refusals.method = r.method;
    refusals.until_proven = r.until_proven();
    engine::check_long_sequence(r.rule, refusals);
    const uint64_t bytes = engine::long_sequence_bytes(n);
    const uint64_t available = engine::available_memory();
    if (available && bytes > available) {
        throw MemoryShortfall(fmt::format("{} heaps need {} of memory, more than the {} available",
                                          n, human_count(double(bytes)) + "B",
                                          human_count(double(available)) + "B"));
    }
    std::error_code ec;
    if (!r.output.empty()) io::check_output_kind(r.output);
    if (!r.output.empty() && !r.overwrite && std::filesystem::exists(r.output, ec)) {
        throw TableError(r.output + " already exists; choose another " +
                         mention(Option::sequence_out) + " or " + mention(Option::overwrite));
    }
    return bytes;
}

engine::LongSequence compute_sequence(const SequenceRequest& r, const Hooks& hooks) {
    const uint64_t bytes = check_sequence(r);
    const uint64_t n = r.heaps();
    // The checkpoint first: a folder that is none is refused before the plan is said.
    std::optional<SequenceCheckpoint> checkpoint;
    if (!r.checkpoint.empty()) checkpoint.emplace(r.checkpoint, r.rule);
    if (n >= (uint64_t{1} << 20)) {
        const std::string memory = human_count(double(bytes)) + "B";
        hooks.say(
            r.until_proven()
                ? fmt::format("sequence: until a period is proven, up to heap {} at most ({})", n,
                              memory)
                : fmt::format("sequence: up to heap {}, {} of memory", n, memory));
    }
    engine::SequenceOptions so;
    so.method = r.method;
    so.threads = r.threads;
    so.until_proven = r.until_proven();
    so.cancel = hooks.cancel;
    so.progress = hooks.progress;
    if (checkpoint) {
        std::vector<uint16_t>& known = checkpoint->values();
        if (!known.empty()) {
            if (known.size() > n + 1) known.resize(n + 1);  // a longer run saved it
            hooks.say(fmt::format("sequence: resuming from the checkpoint {} ({} heaps computed)",
                                  r.checkpoint, known.size()));
            so.resume = &known;
        }
        so.save = [&](std::span<const uint16_t> values) { checkpoint->save(values); };
    }
    engine::LongSequence seq;
    try {
        seq = engine::long_sequence(r.rule, n, so);
    } catch (const Cancelled&) {
        if (checkpoint) {
            hooks.say(fmt::format(
                "sequence: the checkpoint {} holds {} heaps; the same command goes on from there",
                r.checkpoint, checkpoint->saved()));
        }
        throw;
    }
    if (!r.output.empty()) {
        io::SequenceFile f;
        f.rule = r.rule;
        f.algorithm = engine::to_string(seq.method);
        f.period = seq.period;  // a proof only: what answers positions beyond the values
        f.record = seq.record;
        // Lent to the file and given back: a long run's values are held once.
        f.values = std::move(seq.values);
        io::write_sequence(r.output, f, r.overwrite);
        seq.values = std::move(f.values);
    }
    if (checkpoint) checkpoint->remove();
    return seq;
}

namespace {

// Subtraction games whose largest amount is beyond this are computed as
// runs first, up to MAX_RUNS of them.
constexpr uint64_t RUNS_FROM = uint64_t{1} << 16;
constexpr uint64_t MAX_RUNS = uint64_t{1} << 22;

ProvenGame proven(const engine::Rule& rule, std::vector<uint16_t> values,
                  const engine::Periodicity& period) {
    if (period.basis == engine::Basis::proof) {
        return {engine::OneHeapGame(rule, std::move(values), period.preperiod, period.period,
                                    period.saltus),
                period};
    }
    return {engine::OneHeapGame(rule, std::move(values)), period};
}

}  // namespace

ProvenGame proven_game(const engine::Rule& rule, uint64_t limit, const Hooks& hooks,
                       uint64_t needed) {
    if (auto f = engine::formula(rule)) return {std::move(f->game), f->period};
    if (!rule.one_heap()) {
        throw InputError("the rule " + rule.canonical() +
                         " has moves that touch several heaps, so a position is not answered "
                         "from its heaps' values: solve a table");
    }
    if (rule.kind() == engine::RuleKind::subtract && rule.ranges().back().last > RUNS_FROM) {
        // Large amounts: the values change rarely, so as runs (engine/sequences/runs.h).
        if (auto runs = engine::subtraction_runs(rule, MAX_RUNS, hooks.cancel)) {
            engine::Periodicity p;
            p.basis = engine::Basis::proof;
            p.preperiod = static_cast<uint32_t>(std::min<uint64_t>(runs->preperiod, UINT32_MAX));
            p.period = static_cast<uint32_t>(std::min<uint64_t>(runs->period, UINT32_MAX));
            p.explanation = fmt::format(
                "period {} from heap {}, proven: the values as runs repeat the window of the {} "
                "heaps before heap {} (every amount is a move from a heap of {} or more, so each "
                "value depends only on the {} values before it)",
                runs->period, runs->preperiod, rule.ranges().back().last, runs->end - 1,
                rule.ranges().back().last, rule.ranges().back().last);
            if (runs->preperiod <= UINT32_MAX && runs->period <= UINT32_MAX)
                return {engine::OneHeapGame(rule, std::move(*runs)), p};
        }
    }
    SequenceRequest r;
    r.rule = rule;
    if (engine::proof_window(rule, engine::Convention::normal)) {
        r.limit = limit;
    } else {
        r.max_heap = std::max<uint64_t>(needed ? needed : limit, 1);
        if (*r.max_heap > MAX_SEQUENCE_HEAPS) {
            throw InputError(fmt::format(
                "no theorem gives the values of {} beyond those computed, and a heap of {} is "
                "more than the {} a computation reaches",
                rule.canonical(), *r.max_heap, MAX_SEQUENCE_HEAPS));
        }
    }
    // Quietly: the answer is what the caller asked for, not the sequence.
    engine::LongSequence seq = compute_sequence(r, Hooks{hooks.progress, hooks.cancel, nullptr});
    return proven(rule, std::move(seq.values), seq.period);
}

ProvenGame proven_game(const std::string& sequence_file, const std::optional<engine::Rule>& rule) {
    io::SequenceFile f = io::read_sequence(sequence_file);
    if (rule && *rule != f.rule)
        throw InputError("the rule given is not the sequence file's, " + f.rule.canonical());
    return proven(f.rule, std::move(f.values), f.period);
}

}  // namespace nimtb::service
