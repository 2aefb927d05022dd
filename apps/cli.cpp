#include "apps/cli.h"

#include <fmt/core.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "engine/quotients/quotient.h"
#include "service/request/interrupt.h"
#include "service/sequences.h"

namespace nimtb::apps {

namespace {

// The range of each option whose help `ranged` wrote, by that help: what a
// number Boost cannot read (one past int64) is refused with.
std::map<std::string, Range>& ranges_by_help() {
    static std::map<std::string, Range> ranges;
    return ranges;
}

// The text given for `option` ("--max-heap", or "-H") in `args`, or "".
std::string given(const std::vector<std::string>& args, const std::string& option) {
    const bool is_short = option.size() == 2;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == option && i + 1 < args.size()) return args[i + 1];
        if (args[i].rfind(option + "=", 0) == 0) return args[i].substr(option.size() + 1);
        if (is_short && args[i].rfind(option, 0) == 0) return args[i].substr(2);  // -H15
    }
    return "";
}

}  // namespace

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
    } catch (const po::invalid_option_value& e) {
        // A number past what Boost reads: refused as every number out of range is.
        const std::string option = e.get_option_name();
        const po::option_description* d =
            all.find_nothrow(option.substr(option.rfind('-') == std::string::npos ? 0 : 2), false);
        const auto range = d ? ranges_by_help().find(d->description()) : ranges_by_help().end();
        if (range == ranges_by_help().end()) throw UsageError(e.what());
        std::string text = given(args, option);
        const std::string short_name =
            d->canonical_display_name(po::command_line_style::allow_dash_for_short);
        if (text.empty() && short_name.size() == 2) text = given(args, short_name);
        throw UsageError(fmt::format("{} must be a whole number from {} to {}, not {}", option,
                                     range->second.min, range->second.max, text));
    } catch (const po::error& e) {
        throw UsageError(e.what());
    }
    return vm;
}

std::string ranged(const std::string& help, Range r) {
    std::string text = fmt::format("{} ({} to {})", help, r.min, r.max);
    ranges_by_help().emplace(text, r);
    return text;
}

uint64_t number(const po::variables_map& vm, const char* name, Range r) {
    const int64_t v = vm[name].as<int64_t>();
    if (v < r.min || v > r.max) {
        throw UsageError(fmt::format("--{} must be a whole number from {} to {}, not {}", name,
                                     r.min, r.max, v));
    }
    return static_cast<uint64_t>(v);
}

uint32_t quotient_heaps(uint64_t heaps) {
    if (heaps > engine::MAX_QUOTIENT_HEAP)
        throw ResourceError(fmt::format("misère quotients are computed up to heap {}, not {}",
                                        engine::MAX_QUOTIENT_HEAP, heaps));
    return static_cast<uint32_t>(heaps);
}

service::Hooks command_hooks(service::ProgressBar* bar) {
    service::stop_on_signals();
    service::Hooks hooks;
    hooks.cancel = &service::interrupted();
    hooks.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    if (bar) hooks.progress = [bar](uint64_t done, uint64_t total) { bar->update(done, total); };
    return hooks;
}

uint64_t bytes_option(const std::string& name, const std::string& text) {
    size_t used = 0;
    uint64_t n = 0;
    try {
        n = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = text.substr(used);
    const int shift = unit.empty()  ? 0
                      : unit == "K" ? 10
                      : unit == "M" ? 20
                      : unit == "G" ? 30
                                    : -1;
    if (used == 0 || text[0] == '-' || shift < 0 || n == 0 || n > (uint64_t{1} << (50 - shift))) {
        throw UsageError(
            fmt::format("--{} is a size such as 64K, 512M or 2G, not '{}'", name, text));
    }
    return n << shift;
}

void add_request_options(po::options_description& options) {
    options.add_options()("request", po::value<std::string>(),
                          "the request as JSON, in place of the options above (the keys of "
                          "Python's keywords, docs/EVENTS.md)")(
        "events", po::value<std::string>(),
        "json: report as JSON events on stdout, one a line (progress, note, data, result, "
        "error), in place of the text");
}

bool wants_events(const std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--events=json") return true;
        if (args[i] == "--events" && i + 1 < args.size() && args[i + 1] == "json") return true;
    }
    return false;
}

std::optional<nlohmann::json> request_option(const po::variables_map& vm,
                                             std::initializer_list<const char*> own) {
    if (!vm.count("request")) return std::nullopt;
    for (const auto& option : vm) {
        const std::string& name = option.first;
        if (option.second.defaulted() || name == "request" || name == "events") continue;
        if (std::find(own.begin(), own.end(), std::string_view(name)) == own.end())
            throw UsageError("--request takes the place of the request's options; --" + name +
                             " is one of them");
    }
    const nlohmann::json j =
        nlohmann::json::parse((vm)["request"].as<std::string>(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw UsageError("--request is a JSON object, such as '{\"rules\":\"kayles\"}'");
    return j;
}

namespace {

bool events_asked(const po::variables_map& vm) {
    if (!vm.count("events")) return false;
    const std::string format = vm["events"].as<std::string>();
    if (format != "json") throw UsageError("--events takes json, not '" + format + "'");
    return true;
}

}  // namespace

Report::Report(const po::variables_map& vm, std::string label, bool bar)
    : bar_(std::move(label), bar && !events_asked(vm)) {
    if (events_asked(vm)) events_.emplace(stdout);
}

service::Hooks Report::hooks() {
    if (!events_) return command_hooks(&bar_);
    service::Hooks hooks = command_hooks();
    hooks.note = [this](const std::string& line) { events_->note(line); };
    hooks.progress = [this](uint64_t done, uint64_t total) { events_->progress(done, total); };
    return hooks;
}

void Report::data(std::string_view text) {
    if (!events_) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    events_->data(text);
}

}  // namespace nimtb::apps
