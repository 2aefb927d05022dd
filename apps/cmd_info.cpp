#include <fmt/core.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "service/views.h"

namespace nimtb::apps {

int cmd_info(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("table", po::value<std::string>()->required(), "the table file")(
        "json", "print JSON instead of text");
    po::positional_options_description pos;
    pos.add("table", 1);
    const auto vm = parse_arguments(
        "info", args, opts, pos, "TABLE [--json]",
        "examples:\n  nimtb info tables/nim-normal-k3-h15.h5\n  nimtb info t.h5 --json\n");
    if (!vm) return EXIT_OK;
    io::TableReader table((*vm)["table"].as<std::string>());
    const io::TableInfo& i = table.info();
    if (vm->count("json")) {
        std::cout << info_json(table).dump(2) << "\n";
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
        i.method.empty() ? "not recorded" : i.method, io::to_string(i.compression),
        i.chunk_elements,
        fmt::format("value {}", io::to_string(i.value_transform)) +
            (i.remoteness_bits
                 ? fmt::format(", remoteness {}", io::to_string(i.remoteness_transform))
                 : ""),
        storage_lines(table), i.generator, i.format_version, i.index);
    return EXIT_OK;
}

}  // namespace nimtb::apps
