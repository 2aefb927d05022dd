#include "service/verify.h"

#include <algorithm>

#include "engine/base/errors.h"
#include "engine/base/memory.h"
#include "engine/checks/nim_line_check.h"
#include "service/request/fields.h"
#include "service/views.h"

namespace nimtb::service {

namespace {

constexpr auto VERIFY_FIELDS = [](auto& r, auto&& f) { f("table", r.table); };

}  // namespace

nlohmann::json to_json(const VerifyRequest& r) {
    return write_fields(r, VERIFY_FIELDS);
}

VerifyRequest verify_request_from_json(const nlohmann::json& j) {
    VerifyRequest r;
    read_fields(j, r, VERIFY_FIELDS, "verify");
    if (r.table.empty()) throw InputError("a verify request gives the table");
    return r;
}

namespace {

// The reader seen as the engine's TableSource, chunk by chunk through its cache.
class ReaderSource : public engine::TableSource {
  public:
    explicit ReaderSource(io::TableReader& reader) : reader_(reader) {}
    uint32_t value(uint64_t rank) override { return reader_.value(rank); }
    bool has_remoteness() const override { return reader_.has_remoteness(); }
    uint32_t remoteness(uint64_t rank) override { return reader_.remoteness(rank); }
    void read(uint64_t first, uint64_t count, std::vector<uint32_t>& values,
              std::vector<uint32_t>& remoteness) override {
        reader_.read_range(first, count, values, remoteness);
    }

  private:
    io::TableReader& reader_;
};

nlohmann::json histogram_json(const std::map<uint32_t, uint64_t>& m) {
    nlohmann::json h = nlohmann::json::object();
    for (const auto& [k, v] : m) h[std::to_string(k)] = v;
    return h;
}

}  // namespace

engine::VerifyReport verify_table(io::TableReader& table, const Hooks& hooks) {
    const io::TableInfo& info = table.info();
    // engine::verify reports progress on this thread between steps: the
    // place to stop when asked.
    auto progress = [&](uint64_t done, uint64_t total) {
        if (hooks.cancel && hooks.cancel->load()) throw Cancelled();
        if (hooks.progress) hooks.progress(done, total);
    };
    const uint64_t bytes = info.positions * ((info.value_bits + info.remoteness_bits) / 8);
    const uint64_t available = engine::available_memory();
    if (available == 0 || bytes <= available / 2) {
        // The table fits in memory: read it once, verify on every core.
        engine::QuantityArray values, remoteness;
        table.read_all(values, remoteness);
        engine::ArraySource source(values, remoteness);
        return engine::verify(table.rule(), info.convention, table.universe(), source, progress);
    }
    // Larger than memory: stream in rank order. Nim's line check reads no
    // child; any other check looks its children up, through as many decoded
    // chunks as a quarter of the free memory holds.
    if (!engine::LineCheck::applies(table.rule(), table.universe()))
        table.set_cache_bytes(std::max(available / 4, io::TableReader::DEFAULT_CACHE_BYTES));
    ReaderSource source(table);
    return engine::verify(table.rule(), info.convention, table.universe(), source, progress);
}

nlohmann::json verify_json(const engine::VerifyReport& r, const io::TableInfo& info) {
    nlohmann::json j = {{"table", info.path},
                        {"rules", info.rules},
                        {"convention", engine::to_string(info.convention)},
                        {"positions", r.positions},
                        {"p_positions", r.p_positions},
                        {"ok", r.ok()}};
    j["checks"] = nlohmann::json::array();
    for (const auto& c : r.checks) {
        nlohmann::json cj = {
            {"name", c.name},
            {"description", c.description},
            {"applies", c.applies},
            {"basis", engine::to_string(c.basis)},
            {"tested", c.tested},
            {"held", c.held},
            // null for a check that does not apply: it passed nothing.
            {"passed", c.applies ? nlohmann::json(c.passed()) : nullptr},
            // why a check meaningful here was not made, or null
            {"skipped", c.skipped.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.skipped)}};
        cj["counterexamples"] = nlohmann::json::array();
        for (const auto& e : c.counterexamples) {
            cj["counterexamples"].push_back({{"position", e.heaps},
                                             {"of", engine::to_string(e.of)},
                                             {"stored", e.stored},
                                             {"expected", e.expected}});
        }
        j["checks"].push_back(cj);
    }
    j["single_heaps"] = {{"values", r.single_heaps.values},
                         {"period", period_json(r.single_heaps.period)}};
    j["value_histogram"] = histogram_json(r.value_histogram);
    j["remoteness_histogram"] = histogram_json(r.remoteness_histogram);
    return j;
}

}  // namespace nimtb::service
