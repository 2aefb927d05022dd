#include <fmt/core.h>
#include <malloc.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/cli.h"
#include "apps/server/web_server.h"
#include "service/request/interrupt.h"

namespace nimtb::apps {

namespace {

inline constexpr Range JOB_TIME{1, 86'400};        // --job-time SECONDS
inline constexpr Range JOB_MEMORY{64, 1'000'000};  // --job-memory MB
inline constexpr Range JOBS{1, 64};                // --jobs
inline constexpr Range REQUEST_TIME{1, 3600};      // --request-time SECONDS
inline constexpr Range PER_ADDRESS{1, 65'536};     // --per-address

bool is_loopback(const std::string& host) {
    if (host == "localhost") return true;
    boost::system::error_code ec;
    const auto a = boost::asio::ip::make_address(host, ec);
    return !ec && a.is_loopback();
}

}  // namespace

int cmd_serve(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("tables", po::value<std::string>()->default_value("tables"),
                       "the folder of tables to serve")(
        "port", po::value<int64_t>()->default_value(8080),
        ranged("the port (0: any free port)", PORT).c_str())(
        "host", po::value<std::string>()->default_value("127.0.0.1"),
        "the address to listen on (0.0.0.0: every network, for other machines too)")(
        "write",
        "save the tables a game needs into the tables folder; without it the folder is read-only "
        "and such tables go to a private temporary folder, removed when the server stops")(
        "disk-budget", po::value<std::string>()->default_value("1G"),
        "the tables the server may write, in either place (a size: 64K, 512M, 2G)")(
        "token", po::value<std::string>(),
        "a word every request must carry: share the link http://HOST:PORT/?token=WORD")(
        "allow-host", po::value<std::vector<std::string>>(),
        "a name clients may call the server by, besides its address, localhost and this "
        "machine's name (repeatable)")("follow-links",
                                       "serve links in the folder that lead out of it")(
        "job-time", po::value<int64_t>()->default_value(60),
        ranged("seconds a request's work may take (a solve, a CSV export, a sequence)", JOB_TIME)
            .c_str())(
        "job-memory", po::value<int64_t>()->default_value(2048),
        ranged("megabytes of address space for each piece of work", JOB_MEMORY).c_str())(
        "jobs", po::value<int64_t>()->default_value(4),
        ranged("pieces of work at once; more are answered 503 with Retry-After", JOBS).c_str())(
        "request-time", po::value<int64_t>()->default_value(10),
        ranged("seconds a client has to send a whole request (and to send the next one on a "
               "kept-alive connection); slower clients are dropped",
               REQUEST_TIME)
            .c_str())(
        "per-address", po::value<int64_t>()->default_value(256),
        ranged("connections one client address may hold open at once; more are closed at once",
               PER_ADDRESS)
            .c_str())(
        "answer-memory", po::value<std::string>()->default_value("256M"),
        "memory for answers made and not yet taken by their clients, together (a size); past "
        "it a request is answered 503")(
        "learning-memory", po::value<std::string>()->default_value("64M"),
        "memory for what the learning level learns, every table together (a size); past it "
        "the positions used least recently are forgotten")(
        "worker", po::value<std::string>(),
        "the program that runs each piece of work (default: this nimtb); it is started as "
        "nimtb is, with --request JSON --events json, and must speak its events "
        "(docs/EVENTS.md): a wrapper that sets limits of the operator's, say");
    const auto vm = parse_arguments(
        "serve", args, opts, {},
        "[--tables DIR] [--port N] [--host ADDRESS] [--write] [--token WORD]",
        "examples:\n  nimtb serve                       # then open http://127.0.0.1:8080/\n"
        "  nimtb serve --tables my-tables --port 9000\n"
        "  nimtb serve --host 0.0.0.0 --token blue-heron   # a class: share "
        "http://THIS-MACHINE:8080/?token=blue-heron\n\n"
        "The page plays heap games and Northcott's game against the table's perfect\n"
        "computer, explores a table and counts its P-positions. The JSON API under\n"
        "/api/ answers as `query --json`, `info --json` and `dump --count --json` do.\n"
        "Answers from stored tables never wait on work; work (solves, CSV exports,\n"
        "counts, sequences, quotients) runs bounded in time and memory, stops when its\n"
        "client leaves, and past --jobs is answered 503. docs/SERVER.md has the rest.\n"
        "Ctrl-C (or SIGTERM) stops the server at once.\n");
    if (!vm) return EXIT_OK;
    ServerOptions o;
    o.tables_dir = (*vm)["tables"].as<std::string>();
    o.host = (*vm)["host"].as<std::string>();
    o.port = static_cast<int>(number(*vm, "port", PORT));
    o.writable = vm->count("write") > 0;
    o.disk_budget = bytes_option("disk-budget", (*vm)["disk-budget"].as<std::string>());
    if (vm->count("token")) {
        o.token = (*vm)["token"].as<std::string>();
        const bool plain =
            !o.token.empty() && std::all_of(o.token.begin(), o.token.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                       c == '.';
            });
        if (!plain) throw UsageError("--token is a word of letters, digits, '-', '_' and '.'");
    }
    if (vm->count("allow-host"))
        o.allowed_hosts = (*vm)["allow-host"].as<std::vector<std::string>>();
    o.follow_links = vm->count("follow-links") > 0;
    o.job_time = std::chrono::seconds(number(*vm, "job-time", JOB_TIME));
    o.job_memory = number(*vm, "job-memory", JOB_MEMORY) << 20;
    o.max_children = static_cast<unsigned>(number(*vm, "jobs", JOBS));
    o.limits.request_time = std::chrono::seconds(number(*vm, "request-time", REQUEST_TIME));
    o.limits.per_address = number(*vm, "per-address", PER_ADDRESS);
    o.limits.answer_bytes = bytes_option("answer-memory", (*vm)["answer-memory"].as<std::string>());
    o.learning_bytes = bytes_option("learning-memory", (*vm)["learning-memory"].as<std::string>());
    if (vm->count("worker")) {
        o.program = std::filesystem::absolute((*vm)["worker"].as<std::string>()).string();
        if (::access(o.program.c_str(), X_OK) != 0)
            throw UsageError("--worker " + o.program + ": not a program this user can run");
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(o.tables_dir, ec)) {
        throw UsageError("--tables " + o.tables_dir + ": not a folder");
    }
    // Big blocks (a picture's answer, a CSV piece) from the system and back
    // to it when freed, not kept by malloc: glibc's default threshold grows
    // to the largest block freed, and a burst of large answers would then
    // stay in the server's memory for good.
    ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    WebServer server(o);
    const int port = server.bind();
    // Before the address is printed: whoever reads it may stop the server at once.
    service::stop_on_signals();
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-answer ends that answer only
    std::cout << fmt::format("nimtb: serving the tables of {}/ at http://{}:{}/ (Ctrl-C stops)\n",
                             o.tables_dir, o.host, port)
              << std::flush;
    if (!is_loopback(o.host)) {
        fmt::print(
            stderr,
            "nimtb: warning: listening on {}: anyone who can reach this machine can use "
            "the page and read every table of {}/{}\n",
            o.host, o.tables_dir,
            o.token.empty() ? " (give --token WORD to let in only those with the link)" : "");
    }
    std::thread watcher([&server] {
        while (!service::interrupted()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        server.stop();
    });
    server.serve();
    service::interrupted() = true;  // ends the watcher if the server stopped on its own
    watcher.join();
    std::cout << "nimtb: stopped\n";
    return EXIT_OK;
}

}  // namespace nimtb::apps
