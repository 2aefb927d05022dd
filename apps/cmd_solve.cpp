#include <fmt/core.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/presets.h"
#include "io/checkpoint.h"
#include "io/table_writer.h"

namespace nimtb::apps {

namespace {

constexpr const char* EXAMPLES = R"(examples:
  nimtb solve --rules nim --heaps 3 --max-heap 15
  nimtb solve --rules subtract:1,3,4 --misere --heaps 4 --max-heap 30 -o sub134.h5
  nimtb solve --preset matches-40
  nimtb solve --list-presets
  nimtb solve --rules nim --heaps 6 --max-heap 100 --method sprague-grundy --compression zstd
  nimtb solve --rules octal:0.77 --misere --max-total 40      # misere Kayles
  nimtb solve --rules wythoff --heaps 2 --max-heap 100

Rules: nim; subtract:LIST and allbut:LIST (LIST: 1,3,4 or 1-3,7); octal:CODE
(Guy-Smith code, e.g. 0.77 Kayles, 0.07 Dawson's Kayles, 0.137 Dawson's Chess,
4.7; a code that is a plain subtraction game becomes its subtract: text);
grundy; lasker; wythoff; moore:K. Rules that split heaps (octal codes with a
4 bit, grundy, lasker) need --max-total N: a box of K heaps cannot hold a split.

The table goes to tables/<rule>-<convention>-k<K>-h<H>.h5 unless -o is given.
Ctrl-C stops the solve and leaves no table behind.

Under mpirun the processes of the job solve together and write one table,
identical to one process's (brute-force kernel; docs/CLUSTER.md):
  mpirun -np 4 nimtb solve --rules nim --misere --heaps 6 --max-heap 63 --threads 1
)";

int list_presets() {
    fmt::print("{:<18} {:<15} {:<7} {:>2} {:>4} {:>14}  {}\n", "name", "rules", "conv", "K", "H",
               "positions", "description");
    for (const Preset& p : presets()) {
        fmt::print("{:<18} {:<15} {:<7} {:>2} {:>4} {:>14}  {}\n", p.name, p.rules, p.convention,
                   p.max_heaps, p.max_heap_size,
                   engine::binomial(p.max_heap_size + p.max_heaps, p.max_heaps), p.description);
    }
    fmt::print("\nThe first, {}, is the default: nimtb solve --preset default\n",
               presets().front().name);
    return EXIT_OK;
}

// How the brute method's kernel went, for the summary.
std::string kernel_phrase(const engine::Solution& s) {
    if (s.kernel == engine::Kernel::brute) return "every child visited";
    if (s.brute_from_level == 0) return "children summarised along lines";
    return "children summarised along lines, then visited (a value too large for the lines)";
}

// `--stats FILE`: the figures of every level, as JSON.
void write_stats(const std::string& path, const engine::Solution& s, const engine::Universe& u) {
    nlohmann::json levels = nlohmann::json::array();
    for (size_t l = 0; l < s.levels.size(); ++l) {
        const engine::LevelStats& x = s.levels[l];
        levels.push_back({{"level", l},
                          {"blocks", x.blocks},
                          {"positions", x.positions},
                          {"lookups", x.lookups},
                          {"seconds", x.seconds},
                          {"kernel", engine::to_string(x.kernel)},
                          {"restored", x.restored}});
    }
    const nlohmann::json j = {{"rules", s.rule.canonical()},
                              {"convention", engine::to_string(s.convention)},
                              {"universe", u.describe()},
                              {"positions", s.positions},
                              {"child_lookups", s.child_lookups},
                              {"levels", levels}};
    std::ofstream out(path);
    out << j.dump(1) << "\n";
    out.close();
    if (!out) throw nimtb::TableError("cannot write " + path);
}

// Whether this process is one of an MPI job's (Open MPI's mpirun, or a
// PMI launcher such as Slurm's srun).
bool under_mpirun() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

// Replaces this process by nimtb-mpi, beside this program, with the
// resolved request: the distributed solve lives in a program of its own, so
// that nimtb itself never links MPI.
[[noreturn]] void hand_to_mpi(const nlohmann::json& request) {
    std::error_code ec;
    const std::filesystem::path program =
        std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "nimtb-mpi";
    if (ec || !std::filesystem::exists(program, ec)) {
        throw UsageError(
            "this nimtb was built without MPI, so it cannot solve under mpirun; install "
            "openmpi-bin, libopenmpi-dev and libhdf5-openmpi-dev, then build again (tools/setup.sh "
            "does both)");
    }
    const std::string text = request.dump();
    const std::string name = program.string();
    execl(name.c_str(), name.c_str(), "--request", text.c_str(), static_cast<char*>(nullptr));
    throw nimtb::TableError("cannot start " + name + ": " + std::strerror(errno));
}

}  // namespace

int cmd_solve(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("rules,r", po::value<std::string>(), "the rule (see Rules below)")(
        "misere", "misere play: whoever takes the last token loses (default: normal play)")(
        "heaps,k", po::value<int64_t>(), "K: at most this many heaps")(
        "max-heap,H", po::value<int64_t>(), "H: at most this many tokens in a heap")(
        "max-total,N", po::value<int64_t>(),
        "N: every position of at most N tokens in all (with --heaps K: on at most K heaps); "
        "the universe for rules that split heaps")(
        "preset,p", po::value<std::string>(),
        "solve a table of the catalogue (see --list-presets)")(
        "list-presets", "list the catalogue of standard tables and exit")(
        "output,o", po::value<std::string>(), "where to write the table")(
        "threads,t", po::value<int64_t>()->default_value(0), "worker threads; 0: every core")(
        "compression,c", po::value<std::string>()->default_value("zstd"),
        "zstd, deflate, lz4 or none")("level", po::value<int>(),
                                      "compression level, 1-9 (default: zstd 4, deflate 6)")(
        "format-version", po::value<int64_t>()->default_value(int64_t(io::FORMAT_VERSION)),
        "table format to write: 2 (transformed chunks, the default) or 1 (what nimtb 0.1 "
        "reads)")(
        "method,m", po::value<std::string>()->default_value("brute"),
        "brute (from the rules alone) or sprague-grundy (normal play, values only, by the "
        "theorem)")(
        "kernel", po::value<std::string>()->default_value("auto"),
        "the brute method's kernel: lines (children summarised along lines: nim, allbut:, "
        "subtract: with long runs, in a box), brute (every child visited, every rule) or auto "
        "(lines where they pay); the tables are identical")(
        "no-remoteness", "store values only (half the memory and file)")(
        "checkpoint", po::value<std::string>(),
        "save each finished level in this folder; the same command run again after a crash "
        "resumes there (removed once the table is written)")(
        "stats", po::value<std::string>(),
        "write the figures of every level (blocks, positions, look-ups, seconds) to this JSON "
        "file")(
        "checkpoint-every", po::value<double>()->default_value(1.0),
        "with --checkpoint: write the levels finished at most this many seconds apart (0: each "
        "level as it finishes)")(
        "force,f", "overwrite an existing table")(
        "progress", "draw the progress bar even when stderr is not a terminal")(
        "quiet,q", "no progress bar and no summary");
    const auto vm = parse_arguments(
        "solve", args, opts, {},
        "--rules RULE [--misere] (--heaps K --max-heap H | --max-total N [--heaps K]) [-o FILE] "
        "[options]",
        EXAMPLES);
    if (!vm) return EXIT_OK;
    if (vm->count("list-presets")) return list_presets();

    // 1. What to solve.
    std::string rule_text, convention_text = vm->count("misere") ? "misere" : "normal";
    unsigned k = 0, h = 0, n = 0;
    if (vm->count("preset")) {
        if (vm->count("rules") || vm->count("heaps") || vm->count("max-heap") ||
            vm->count("max-total") || vm->count("misere")) {
            throw UsageError("--preset names the rules, convention and limits; give it alone");
        }
        const Preset& p = find_preset((*vm)["preset"].as<std::string>());
        rule_text = p.rules;
        convention_text = p.convention;
        k = p.max_heaps;
        h = p.max_heap_size;
    } else {
        if (!vm->count("rules")) throw UsageError("missing --rules (or --preset)");
        rule_text = (*vm)["rules"].as<std::string>();
        if (vm->count("max-total")) {
            if (vm->count("max-heap")) {
                throw UsageError("give --max-heap H (a box) or --max-total N, not both");
            }
            n = whole_number(*vm, "max-total", engine::Universe::MAX_TOTAL);
            if (vm->count("heaps")) k = whole_number(*vm, "heaps", engine::Universe::MAX_TOTAL);
        } else {
            if (!vm->count("heaps")) throw UsageError("missing --heaps K (or --max-total N)");
            if (!vm->count("max-heap")) throw UsageError("missing --max-heap H (or --max-total N)");
            k = whole_number(*vm, "heaps", engine::Universe::MAX_HEAPS);
            h = whole_number(*vm, "max-heap", engine::Universe::MAX_HEAP_SIZE);
        }
    }
    const engine::Rule rule = engine::Rule::parse(rule_text);
    const engine::Universe universe =
        vm->count("max-total") ? engine::Universe::total_bounded(n, k) : engine::Universe(k, h);
    engine::check_closed(rule, universe);  // before any work
    engine::SolveOptions so;
    so.convention = engine::parse_convention(convention_text);
    so.method = engine::parse_method((*vm)["method"].as<std::string>());
    so.kernel = engine::parse_kernel((*vm)["kernel"].as<std::string>());
    so.remoteness = !vm->count("no-remoteness") && so.method == engine::SolveMethod::brute;
    so.threads = whole_number(*vm, "threads", 1024);
    io::WriteOptions wo;
    wo.compression = io::parse_compression((*vm)["compression"].as<std::string>());
    if (vm->count("level")) {
        wo.level = (*vm)["level"].as<int>();
        if (wo.level < 1 || wo.level > 9) throw UsageError("--level must be from 1 to 9");
    }
    const int64_t version = (*vm)["format-version"].as<int64_t>();
    if (version != 1 && version != 2)
        throw UsageError("--format-version must be 1 or 2, not " + std::to_string(version));
    wo.format_version = static_cast<uint64_t>(version);
    wo.overwrite = vm->count("force") > 0;
    wo.threads = so.threads;
    const std::string path = vm->count("output")
                                 ? (*vm)["output"].as<std::string>()
                                 : default_table_path(rule, so.convention, universe);

    // 2. Refuse early what would fail late: an existing table, a missing folder.
    if (!vm->count("output")) {
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    }
    io::check_output(path, wo);

    if (vm->count("stats") && so.method != engine::SolveMethod::brute)
        throw UsageError("--stats goes with the brute method: the sprague-grundy method has no levels");

    // Under mpirun every process hands the solve to nimtb-mpi (dist/).
    if (under_mpirun()) {
        hand_to_mpi({{"rules", rule.canonical()},
                     {"convention", engine::to_string(so.convention)},
                     {"max_heaps", universe.max_heaps()},
                     {"max_heap_size", universe.max_heap_size()},
                     {"max_total", universe.max_total()},
                     {"remoteness", so.remoteness},
                     {"method", engine::to_string(so.method)},
                     {"kernel", engine::to_string(so.kernel)},
                     {"threads", so.threads},
                     {"compression", io::to_string(wo.compression)},
                     {"level", wo.level},
                     {"format_version", wo.format_version},
                     {"path", path},
                     {"checkpoint", vm->count("checkpoint") ? (*vm)["checkpoint"].as<std::string>() : ""},
                     {"checkpoint_every", (*vm)["checkpoint-every"].as<double>()},
                     {"stats", vm->count("stats") ? (*vm)["stats"].as<std::string>() : ""},
                     {"quiet", vm->count("quiet") > 0},
                     {"progress", vm->count("progress") > 0}});
    }

    // 3. Solve, with progress and Ctrl-C, from a checkpoint's levels when there are some.
    std::unique_ptr<io::Checkpoint> checkpoint;
    if (vm->count("checkpoint")) {
        if (so.method != engine::SolveMethod::brute) {
            throw UsageError(
                "--checkpoint goes with the brute method: the sprague-grundy method has no "
                "levels to save");
        }
        const double every = (*vm)["checkpoint-every"].as<double>();
        if (!(every >= 0 && every <= 86400))
            throw UsageError("--checkpoint-every must be from 0 to 86400 seconds");
        checkpoint = std::make_unique<io::Checkpoint>(
            (*vm)["checkpoint"].as<std::string>(),
            io::CheckpointIdentity{rule.canonical(), engine::to_string(so.convention),
                                   universe.describe(), engine::to_string(so.method),
                                   so.remoteness, 1},
            std::chrono::milliseconds(static_cast<int64_t>(every * 1000)));
        checkpoint->on_restored = [&](size_t levels) {
            fmt::print(stderr, "solve: resuming from the checkpoint in {} ({} levels saved)\n",
                       checkpoint->dir(), levels);
        };
        so.levels = checkpoint.get();
    }
    install_interrupt_handler();
    so.cancel = &interrupted();
    wo.cancel = &interrupted();
    const bool quiet = vm->count("quiet") > 0;
    ProgressBar bar(
        fmt::format("solving {} {}", rule.canonical(), engine::to_string(so.convention)),
        !quiet && (stderr_is_terminal() || vm->count("progress")));
    so.progress = [&](uint64_t done, uint64_t total) { bar.update(done, total); };
    const auto t0 = std::chrono::steady_clock::now();
    const engine::Solution s = engine::solve(rule, universe, so);
    bar.finish();
    const auto t1 = std::chrono::steady_clock::now();

    // 4. Write under a temporary name, then rename; the checkpoint is done with.
    io::write_table(path, s, wo);
    if (checkpoint) checkpoint->remove();
    if (vm->count("stats")) write_stats((*vm)["stats"].as<std::string>(), s, universe);
    const auto t2 = std::chrono::steady_clock::now();

    // 5. Summary.
    if (!quiet) {
        const double solve_s = std::chrono::duration<double>(t1 - t0).count();
        const double write_s = std::chrono::duration<double>(t2 - t1).count();
        // The storage figures come from the file itself, as `info` reads them.
        const io::TableReader written(path);
        std::cout << fmt::format(
            "table        {}\n"
            "game         {} {}, {}\n"
            "method       {}\n"
            "positions    {}\n"
            "P-positions  {} ({:.2f}%)\n"
            "largest value       {}\n"
            "largest remoteness  {}\n"
            "solve time   {:.2f} s{}\n"
            "write time   {:.2f} s ({})\n"
            "{}",
            path, rule.canonical(), engine::to_string(so.convention), universe.describe(),
            so.method == engine::SolveMethod::brute
                ? std::string("brute force from the rules, ") + kernel_phrase(s)
                : std::string(
                      "sprague-grundy (theorem-based: XOR of single-heap values; values only)"),
            s.positions, s.p_positions, 100.0 * double(s.p_positions) / double(s.positions),
            s.max_value,
            s.remoteness.empty() ? std::string("not stored") : std::to_string(s.max_remoteness),
            // A rate over a few milliseconds measures the clock, not the solver.
            solve_s,
            solve_s < 0.05
                ? std::string()
                : fmt::format(" ({} positions/s)", human_count(double(s.positions) / solve_s)),
            write_s, io::to_string(wo.compression), storage_lines(written));
    }
    return EXIT_OK;
}

}  // namespace nimtb::apps
