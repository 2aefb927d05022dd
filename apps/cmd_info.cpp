#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "io/file_kind.h"
#include "io/sequence_file.h"
#include "service/quotients.h"
#include "service/request/progress_bar.h"
#include "service/tables.h"
#include "service/views.h"

namespace nimtb::apps {

namespace {

// One line per key, as the table's description reads.
void print_lines(const std::vector<std::pair<const char*, std::string>>& lines) {
    for (const auto& [key, text] : lines) std::cout << fmt::format("{:<12} {}\n", key, text);
}

int sequence_info(const std::string& path, bool json, Report& report) {
    const nlohmann::json j = service::sequence_info_json(path, io::read_sequence(path));
    if (json || report.events()) {
        report.result(j, [&] { return j.dump(2) + "\n"; });
        return EXIT_OK;
    }
    std::string record = "none kept (a file of an older nimtb)";
    if (j.contains("record")) {
        const nlohmann::json& r = j["record"];
        record =
            r["mask"] == 0 ? std::string("its milestones; no mask (the plain method)")
            : r["rare"].empty()
                ? fmt::format("no heap rare under mask {}", r["mask"].get<unsigned>())
                : fmt::format("{} heaps rare under mask {}, the last at heap {}", r["rare"].size(),
                              r["mask"].get<unsigned>(), r["rare"].back()[0].get<uint64_t>());
    }
    print_lines({{"sequence", path},
                 {"rules", j["rules"].get<std::string>() + " (normal play)"},
                 {"heaps", fmt::format("0 to {}", j["max_heap"].get<uint64_t>())},
                 {"values", fmt::format("the largest {}, first at heap {}",
                                        j["largest_value"].get<unsigned>(),
                                        j["largest_value_heap"].get<uint64_t>())},
                 {"algorithm", j["algorithm"].get<std::string>()},
                 {"period", j["period"]["explanation"].get<std::string>()},
                 {"record", record},
                 {"format", fmt::format("{} v{}", j["format"].get<std::string>(),
                                        j["format_version"].get<uint64_t>())}});
    return EXIT_OK;
}

int quotient_info(const std::string& path, bool json, Report& report) {
    const service::StoredQuotient stored = service::read_quotient(path, report.hooks());
    report.finish();
    const nlohmann::json j = service::quotient_info_json(path, stored);
    if (json || report.events()) {
        report.result(j, [&] { return j.dump(2) + "\n"; });
        return EXIT_OK;
    }
    std::string generators;
    for (const nlohmann::json& g : j["generators"]) {
        generators += fmt::format("{}{} = heap {}", generators.empty() ? "" : ", ",
                                  g["name"].get<std::string>(), g["heap"].get<uint32_t>());
    }
    const uint32_t max_heap = j["max_heap"];
    print_lines(
        {{"quotient", path},
         {"rules", j["rules"].get<std::string>() + " (misère play)"},
         {"heaps", fmt::format("at most {} tokens", max_heap)},
         {"order", fmt::format("{}, {} in the P-portion", j["order"].get<uint32_t>(),
                               j["p_portion_size"].get<uint32_t>())},
         {"generators", generators},
         {"checked", fmt::format("predicts the misère outcome of every position with heaps of at "
                                 "most {}",
                                 max_heap)},
         {"proven", j["proof"].is_null()
                        ? std::string("no: the quotient of these heaps only")
                        : "every heap size: " + j["proof"]["explanation"].get<std::string>()},
         {"format", j["format"].get<std::string>() + " (JSON)"}});
    return EXIT_OK;
}

// The stored method in solve's words. The kernel is not stored: every
// kernel writes the same table, bit for bit.
std::string method_words(const std::string& method) {
    if (method.empty()) return "not recorded";
    if (method == "brute")
        return "brute force from the rules (the kernel is not stored: each writes the same "
               "table)";
    if (method == "sprague-grundy") return "sprague-grundy (the XOR of the heaps' values)";
    return method;
}

}  // namespace

int cmd_info(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("file", po::value<std::string>()->required(),
                       "a table, a sequence file or a quotient file")("json",
                                                                      "print JSON instead of text")(
        "events", po::value<std::string>(),
        "json: the answer as a result event on stdout, a failure as an error event "
        "(docs/EVENTS.md)");
    po::positional_options_description pos;
    pos.add("file", 1);
    const auto vm =
        parse_arguments("info", args, opts, pos, "FILE [--json] [--events json]", R"(examples:
  nimtb info tables/nim-normal-k3-h15.h5
  nimtb info t.h5 --json
  nimtb info grundy.h5      # a sequence file (nimtb sequence --output)
  nimtb info q.json         # a quotient file (nimtb quotient --output)
)");
    if (!vm) return EXIT_OK;
    const std::string path = (*vm)["file"].as<std::string>();
    const bool json = vm->count("json") > 0;
    Report report(*vm, "checking", service::stderr_is_terminal());
    switch (io::file_kind(path)) {
        case io::FileKind::sequence:
            return sequence_info(path, json, report);
        case io::FileKind::quotient:
            return quotient_info(path, json, report);
        case io::FileKind::table:
        case io::FileKind::other:
            break;
    }
    io::TableReader table(path);
    const io::TableInfo& i = table.info();
    if (json || report.events()) {
        const nlohmann::json j = service::info_json(table);
        report.result(j, [&] { return j.dump(2) + "\n"; });
        return EXIT_OK;
    }
    std::cout << fmt::format(
        "table        {}\n"
        "rules        {}\n"
        "convention   {}\n"
        "universe     {}\n"
        "positions    {}\n"
        "stored       value ({} bits){}\n"
        "method       {}\n"
        "compression  {}, chunks of {} positions, Fletcher-32 checksums\n"
        "transforms   {}\n"
        "{}"
        "generator    {}\n"
        "format       nimtb-table v{}, index {}\n",
        i.path, i.rules, engine::to_string(i.convention),
        table.universe().describe() +
            (i.max_total ? fmt::format(" (N = {}, K = {})", i.max_total, i.max_heaps)
                         : fmt::format(" (K = {}, H = {})", i.max_heaps, i.max_heap_size)),
        i.positions, i.value_bits,
        i.remoteness_bits ? fmt::format(", remoteness ({} bits)", i.remoteness_bits)
                          : std::string(", no remoteness"),
        method_words(i.method), io::to_string(i.compression), i.chunk_elements,
        fmt::format("value {}", io::to_string(i.value_transform)) +
            (i.remoteness_bits
                 ? fmt::format(", remoteness {}", io::to_string(i.remoteness_transform))
                 : ""),
        service::storage_lines(table.storage()), i.generator, i.format_version, i.index);
    return EXIT_OK;
}

}  // namespace nimtb::apps
