#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/presets.h"
#include "engine/game/rule_families.h"
#include "service/request/progress_bar.h"
#include "service/request/solve_request.h"
#include "service/solve.h"
#include "service/tables.h"

namespace nimtb::apps {

namespace {

constexpr const char* SOLVE_EXAMPLES = R"(examples:
  nimtb solve --rules nim --heaps 3 --max-heap 15
  nimtb solve --rules subtract:1,3,4 --misere --heaps 4 --max-heap 30 -o sub134.h5
  nimtb solve --preset matches-40
  nimtb solve --list-presets
  nimtb solve --rules nim --heaps 6 --max-heap 100 --method sprague-grundy --compression zstd
  nimtb solve --rules octal:0.77 --misere --max-total 40      # misere Kayles
  nimtb solve --rules wythoff --heaps 2 --max-heap 100

Rules:
{}A code that is a plain subtraction game becomes its subtract: text. Rules that
split heaps (octal codes with a 4 bit, grundy, lasker) need --max-total N: a box
of K heaps cannot hold a split.

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

// Whether this process is one of an MPI job's (Open MPI's mpirun, or a
// PMI launcher such as Slurm's srun).
bool under_mpirun() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") ||
           std::getenv("PMIX_RANK");
}

// This process's rank in its MPI job (0 outside one).
int mpi_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
        if (const char* rank = std::getenv(name)) return std::atoi(rank);
    return 0;
}

// Replaces this process by nimtb-mpi, beside this program, with the
// request (and how to present the solve): the distributed solve lives in a
// program of its own, so that nimtb itself never links MPI.
[[noreturn]] void hand_to_mpi(const service::SolveRequest& request, bool quiet, bool progress) {
    std::error_code ec;
    const std::filesystem::path program =
        std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "nimtb-mpi";
    if (ec || !std::filesystem::exists(program, ec)) {
        throw UsageError(
            "this nimtb was built without MPI, so it cannot solve under mpirun; install "
            "openmpi-bin and libopenmpi-dev, then build again (tools/setup.sh "
            "does both)");
    }
    const std::string text = nlohmann::json{
        {"request", service::to_json(request)},
        {"quiet", quiet},
        {"progress", progress}}.dump();
    const std::string name = program.string();
    execl(name.c_str(), name.c_str(), "--request", text.c_str(), static_cast<char*>(nullptr));
    throw nimtb::TableError("cannot start " + name + ": " + std::strerror(errno));
}

// The request of the options, or of --request; its output left empty when
// not given (the default path is the universe's).
service::SolveRequest solve_request(const po::variables_map& vm) {
    if (const auto j = request_option(vm, {"progress", "quiet"}))
        return service::solve_request_from_json(*j);
    service::SolveRequest request;
    std::string convention_text = vm.count("misere") ? "misere" : "normal";
    if (vm.count("preset")) {
        if (vm.count("rules") || vm.count("heaps") || vm.count("max-heap") ||
            vm.count("max-total") || vm.count("misere")) {
            throw UsageError("--preset names the rules, convention and limits; give it alone");
        }
        const Preset& p = find_preset(vm["preset"].as<std::string>());
        request.rule = engine::Rule::parse(p.rules);
        convention_text = p.convention;
        request.universe = engine::Bounds::box(p.max_heaps, p.max_heap_size);
    } else {
        if (!vm.count("rules")) throw UsageError("missing --rules (or --preset)");
        request.rule = engine::Rule::parse(vm["rules"].as<std::string>());
        if (vm.count("max-total")) {
            if (vm.count("max-heap")) {
                throw UsageError("give --max-heap H (a box) or --max-total N, not both");
            }
            request.universe =
                engine::Bounds::total(number(vm, "max-total", MAX_TOTAL),
                                      vm.count("heaps") ? number(vm, "heaps", HEAPS) : 0);
        } else {
            if (!vm.count("heaps")) throw UsageError("missing --heaps K (or --max-total N)");
            if (!vm.count("max-heap")) throw UsageError("missing --max-heap H (or --max-total N)");
            request.universe =
                engine::Bounds::box(number(vm, "heaps", HEAPS), number(vm, "max-heap", MAX_HEAP));
        }
    }
    request.convention = engine::parse_convention(convention_text);
    request.method = engine::parse_method(vm["method"].as<std::string>());
    request.kernel = engine::parse_kernel(vm["kernel"].as<std::string>());
    request.remoteness = !vm.count("no-remoteness");
    request.stream = vm.count("stream") > 0;
    request.threads = static_cast<unsigned>(number(vm, "threads", THREADS));
    if (vm.count("memory")) request.memory = bytes_option("memory", vm["memory"].as<std::string>());
    request.compression = io::parse_compression(vm["compression"].as<std::string>());
    if (vm.count("compression-level"))
        request.level = static_cast<int>(number(vm, "compression-level", COMPRESSION_LEVEL));
    request.format_version = number(vm, "format-version", FORMAT_VERSION);
    request.overwrite = vm.count("force") > 0;
    if (vm.count("checkpoint")) request.checkpoint = vm["checkpoint"].as<std::string>();
    if (vm.count("checkpoint-every")) {
        if (!vm.count("checkpoint")) throw UsageError("--checkpoint-every goes with --checkpoint");
        request.checkpoint_every = vm["checkpoint-every"].as<double>();
    }
    if (vm.count("stats")) request.stats = vm["stats"].as<std::string>();
    if (vm.count("output")) request.output = vm["output"].as<std::string>();
    return request;
}

}  // namespace

int cmd_solve(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("rules,r", po::value<std::string>(), "the rule (see Rules below)")(
        "misere", "misere play: whoever takes the last token loses (default: normal play)")(
        "heaps,k", po::value<int64_t>(),
        ranged("K: at most this many heaps; a box (--max-heap) holds at most 64", HEAPS).c_str())(
        "max-heap,H", po::value<int64_t>(),
        ranged("H: at most this many tokens in a heap; tables hold heaps of at most 1000000",
               MAX_HEAP)
            .c_str())(
        "max-total,N", po::value<int64_t>(),
        ranged("N: every position of at most N tokens in all (with --heaps K: on at most K "
               "heaps), the universe for rules that split heaps; tables hold at most 128",
               MAX_TOTAL)
            .c_str())("preset,p", po::value<std::string>(),
                      "solve a table of the catalogue (see --list-presets)")(
        "list-presets", "list the catalogue of standard tables and exit")(
        "output,o", po::value<std::string>(), "where to write the table")(
        "threads,t", po::value<int64_t>()->default_value(0),
        ranged("worker threads; 0: every core", THREADS).c_str())(
        "memory", po::value<std::string>(),
        "refuse a solve that needs more memory than this, a size such as 512M or 8G (default: "
        "the memory the machine has available)")(
        "stream",
        "write the positions to disk as they are solved, holding only the line kernel's "
        "aggregates and a window in memory: nim in a box of 3 heaps or more, without "
        "--checkpoint (automatic from 16 M positions, or where the arrays would not fit)")(
        "compression,c", po::value<std::string>()->default_value("zstd"),
        "zstd, deflate, lz4 or none")(
        "compression-level", po::value<int64_t>(),
        ranged("with zstd or deflate: the level (default: zstd 4, deflate 6)", COMPRESSION_LEVEL)
            .c_str())(
        "format-version", po::value<int64_t>()->default_value(int64_t(io::FORMAT_VERSION)),
        ranged("table format to write: 2 (transformed chunks, the default) or 1 (what nimtb 0.1 "
               "reads)",
               FORMAT_VERSION)
            .c_str())(
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
        "checkpoint-every", po::value<double>(),
        "with --checkpoint: write the levels finished at most this many seconds apart, 0 to "
        "86400 (default 1; 0: each level as it finishes)")("force,f",
                                                           "overwrite an existing table")(
        "progress", "draw the progress bar even when stderr is not a terminal")(
        "quiet,q", "no progress bar and no summary");
    add_request_options(opts);
    const auto vm = parse_arguments(
        "solve", args, opts, {},
        "--rules RULE [--misere] (--heaps K --max-heap H | --max-total N [--heaps K]) [-o FILE] "
        "[options] | --request JSON [--events json]",
        fmt::format(SOLVE_EXAMPLES, engine::rules_help("  ")));
    if (!vm) return EXIT_OK;
    if (vm->count("list-presets")) return list_presets();

    // 1. What to solve.
    service::SolveRequest request = solve_request(*vm);
    const bool default_output = request.output.empty();
    if (default_output) {
        request.output = service::default_table_path(request.rule, request.convention,
                                                     engine::Universe(request.bounds()));
    }

    // 2. Refuse early what would fail late (solve_table and nimtb-mpi check
    // the request again, as they do for every caller): a request no solve
    // can run, before the default folder is made; then an existing table, a
    // missing folder. Under mpirun every process checks, and the first says why.
    try {
        request.check();
        if (default_output) {
            std::filesystem::create_directories(
                std::filesystem::path(request.output).parent_path());
        }
        service::check_destination(request);
    } catch (const std::exception& e) {
        if (!under_mpirun() || mpi_rank() == 0) throw;
        return service::exit_code(service::error_kind(e));
    }

    // Under mpirun every process hands the solve to nimtb-mpi (mpi/).
    const bool quiet = vm->count("quiet") > 0;
    if (under_mpirun()) hand_to_mpi(request, quiet, vm->count("progress") > 0);

    // 3. Solve, with progress and Ctrl-C, and write.
    Report report(*vm,
                  fmt::format("solving {} {}", request.rule.canonical(),
                              engine::to_string(request.convention)),
                  !quiet && (service::stderr_is_terminal() || vm->count("progress")));
    const service::SolveReport solved = service::solve_table(request, report.hooks());
    if (report.events() || !quiet)
        report.result(service::summary_json(solved), [&] { return service::summary(solved); });
    return EXIT_OK;
}

}  // namespace nimtb::apps
