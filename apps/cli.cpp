#include "apps/cli.h"

#include <fmt/core.h>

#include <algorithm>
#include <iostream>

#include "service/request/interrupt.h"
#include "service/sequences.h"

namespace nimtb::apps {

std::optional<po::variables_map> parse_arguments(
    const std::string& command, const std::vector<std::string>& args,
    const po::options_description& options, const po::positional_options_description& positional,
    const std::string& synopsis, const std::string& examples) {
    po::options_description all(options);
    all.add_options()("help,h", "print this help and exit");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
        if (vm.count("help")) {
            std::cout << "usage: nimtb " << command << " " << synopsis << "\n\n"
                      << all << "\n"
                      << examples;
            return std::nullopt;
        }
        // Missing positional arguments, reported in the order the synopsis gives them.
        for (unsigned i = 0; i < std::min(positional.max_total_count(), 8u); ++i) {
            const std::string& name = positional.name_for_position(i);
            if (!vm.count(name) && all.find(name, false).semantic()->is_required()) {
                throw po::required_option(name);
            }
        }
        po::notify(vm);
    } catch (const po::required_option& e) {
        // Positional arguments are options to Boost; name them as the synopsis does.
        std::string name = e.get_option_name();
        if (name.rfind("--", 0) == 0) name = name.substr(2);
        for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        throw UsageError("missing " + name + ": nimtb " + command + " " + synopsis);
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    return vm;
}

unsigned whole_number(const po::variables_map& vm, const char* name, uint64_t max) {
    const int64_t v = vm[name].as<int64_t>();
    if (v < 0 || uint64_t(v) > max) {
        throw UsageError(std::string("--") + name + " must be a whole number from 0 to " +
                         std::to_string(max) + ", not " + std::to_string(v));
    }
    return static_cast<unsigned>(v);
}

uint64_t heap_count(const po::variables_map& vm, const char* name) {
    const int64_t v = vm[name].as<int64_t>();
    if (v < 1 || uint64_t(v) > service::MAX_SEQUENCE_HEAPS) {
        throw UsageError(fmt::format("--{} must be a whole number from 1 to {}, not {}", name,
                                     service::MAX_SEQUENCE_HEAPS, v));
    }
    return static_cast<uint64_t>(v);
}

service::Hooks command_hooks(service::ProgressBar* bar) {
    service::stop_on_signals();
    service::Hooks hooks;
    hooks.cancel = &service::interrupted();
    hooks.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    if (bar) hooks.progress = [bar](uint64_t done, uint64_t total) { bar->update(done, total); };
    return hooks;
}

}  // namespace nimtb::apps
