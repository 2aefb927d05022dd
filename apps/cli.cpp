#include "apps/cli.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "io/table_writer.h"

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
    if (v < 1 || uint64_t(v) > MAX_SEQUENCE_HEAPS) {
        throw UsageError(fmt::format("--{} must be a whole number from 1 to {}, not {}", name,
                                     MAX_SEQUENCE_HEAPS, v));
    }
    return static_cast<uint64_t>(v);
}

std::atomic<bool>& interrupted() {
    static std::atomic<bool> flag{false};
    return flag;
}

namespace {
extern "C" void on_signal(int) {
    interrupted().store(true);
}
}  // namespace

void install_interrupt_handler() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool stderr_is_terminal() {
    return isatty(STDERR_FILENO) == 1;
}

std::string storage_lines(const io::TableReader& table) {
    const io::TableInfo& info = table.info();
    const io::TableStorage storage = table.storage();
    return fmt::format(
        "data         {} as arrays, {} stored ({}, compression ratio {:.1f}x)\n"
        "file size    {}\n",
        engine::format_bytes(info.data_bytes), engine::format_bytes(storage.stored_bytes),
        io::to_string(info.compression), storage.compression_ratio,
        engine::format_bytes(info.file_bytes));
}

std::string human_count(double n) {
    if (n >= 1e9) return fmt::format("{:.1f}G", n / 1e9);
    if (n >= 1e6) return fmt::format("{:.1f}M", n / 1e6);
    if (n >= 1e3) return fmt::format("{:.1f}k", n / 1e3);
    return fmt::format("{:.0f}", n);
}

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressBar::~ProgressBar() {
    finish();
}

void ProgressBar::update(uint64_t done, uint64_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done < total) return;
    last_ = now;
    drawn_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double fraction = total ? double(done) / double(total) : 1.0;
    const double rate = seconds > 0 ? double(done) / seconds : 0;
    std::string left = "--";
    if (rate > 0 && done < total) left = fmt::format("{:.0f}s", double(total - done) / rate);
    constexpr int WIDTH = 30;
    const int filled = static_cast<int>(fraction * WIDTH);
    fmt::print(stderr, "\r{} [{}{}] {:5.1f}%  {}/s  left {}   ", label_, std::string(filled, '#'),
               std::string(WIDTH - filled, '.'), 100 * fraction, human_count(rate), left);
    std::fflush(stderr);
}

void ProgressBar::finish() {
    if (enabled_ && drawn_) {
        fmt::print(stderr, "\n");
        drawn_ = false;
    }
}

std::string game_stem(const engine::Rule& rule, engine::Convention c) {
    std::string name = rule.canonical();
    for (char& ch : name) {
        if (ch == ':') ch = '-';
        if (ch == ',') ch = '_';
    }
    return name + "-" + engine::to_string(c);
}

std::string default_table_path(const engine::Rule& rule, engine::Convention c,
                               const engine::Universe& u) {
    if (u.is_box()) {
        return fmt::format("tables/{}-k{}-h{}.h5", game_stem(rule, c), u.max_heaps(),
                           u.max_heap_size());
    }
    return fmt::format("tables/{}-n{}{}.h5", game_stem(rule, c), u.max_total(),
                       u.max_heaps() < u.max_total() ? fmt::format("-k{}", u.max_heaps()) : "");
}

// Positions a solve on the spot may have: a second or two of work.
constexpr uint64_t SOLVE_ON_THE_SPOT = 5'000'000;

namespace {

// The smallest table in `dir` of the rule and convention that `fits`, or "".
template <class Fits>
std::string find_table(const std::string& dir, const engine::Rule& rule, engine::Convention c,
                       Fits fits) {
    namespace fs = std::filesystem;
    std::string best;
    uint64_t best_size = UINT64_MAX;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return best;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() == ".h5") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            io::TableReader t(f.string());
            const auto& i = t.info();
            if (i.rules == rule.canonical() && i.convention == c && i.positions < best_size &&
                fits(t.universe())) {
                best = f.string();
                best_size = i.positions;
            }
        } catch (const std::exception&) {
            // Not a usable table: look further.
        }
    }
    return best;
}

// Solves `u` into `dir` when it is small, or names the solve to run.
std::string solve_now(const std::string& dir, const engine::Rule& rule, engine::Convention c,
                      const engine::Universe& u) {
    namespace fs = std::filesystem;
    const std::string command =
        fmt::format("nimtb solve --rules {}{} {}", rule.canonical(),
                    c == engine::Convention::misere ? " --misere" : "", universe_options(u));
    if (u.size() > SOLVE_ON_THE_SPOT) {
        throw std::runtime_error("no table under " + dir +
                                 "/ holds this game; make one with: " + command);
    }
    const std::string path =
        (fs::path(dir) / fs::path(default_table_path(rule, c, u)).filename()).string();
    fmt::print(stderr,
               "nimtb: no table under {}/ holds this game; solving one now ({} positions) -> {}\n",
               dir, u.size(), path);
    engine::SolveOptions so;
    so.convention = c;
    fs::create_directories(dir);
    io::write_table(path, engine::solve(rule, u, so), {});
    return path;
}

}  // namespace

std::string find_or_solve_table(const std::string& dir, const engine::Rule& rule,
                                engine::Convention c, const engine::Heaps& start) {
    const std::string found = find_table(dir, rule, c, [&](const engine::Universe& u) {
        try {
            u.normalise(start);  // throws unless the table holds the start
            return true;
        } catch (const nimtb::InputError&) {
            return false;
        }
    });
    return found.empty() ? solve_now(dir, rule, c, smallest_universe(rule, start)) : found;
}

std::string find_or_solve_universe(const std::string& dir, const engine::Rule& rule,
                                   engine::Convention c, const engine::Universe& universe) {
    const std::string found = find_table(dir, rule, c, [&](const engine::Universe& u) {
        return u.describe() == universe.describe();
    });
    return found.empty() ? solve_now(dir, rule, c, universe) : found;
}

std::string universe_options(const engine::Universe& u) {
    if (u.is_box())
        return fmt::format("--heaps {} --max-heap {}", u.max_heaps(), u.max_heap_size());
    return fmt::format(
        "--max-total {}{}", u.max_total(),
        u.max_heaps() < u.max_total() ? fmt::format(" --heaps {}", u.max_heaps()) : "");
}

engine::Universe smallest_universe(const engine::Rule& rule, const engine::Heaps& start) {
    unsigned k = 0;
    uint32_t h = 0, total = 0;
    for (uint32_t a : start) {
        k += a != 0;
        h = std::max(h, a);
        total += a;
    }
    if (rule.adds_heaps()) return engine::Universe::total_bounded(std::max(total, 1u));
    return engine::Universe(std::max(k, 1u), h);
}

}  // namespace nimtb::apps
