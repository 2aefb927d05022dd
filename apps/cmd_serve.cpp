#include <fmt/core.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <thread>

#include "apps/cli.h"
#include "apps/server/web_server.h"
#include "service/request/interrupt.h"

namespace nimtb::apps {

int cmd_serve(const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()(
        "tables", po::value<std::string>()->default_value("tables"),
        "the folder of tables to serve; small tables a game needs are solved into it")(
        "port", po::value<int64_t>()->default_value(8080),
        ranged("the port (0: any free port)", PORT).c_str())(
        "host", po::value<std::string>()->default_value("127.0.0.1"),
        "the address to listen on (0.0.0.0: every network, for other machines too)");
    const auto vm = parse_arguments(
        "serve", args, opts, {}, "[--tables DIR] [--port N] [--host ADDRESS]",
        "examples:\n  nimtb serve                       # then open http://127.0.0.1:8080/\n"
        "  nimtb serve --tables my-tables --port 9000\n\n"
        "The page plays heap games and Northcott's game against the table's perfect\n"
        "computer, explores a table and counts its P-positions. The JSON API under\n"
        "/api/ answers as `query --json`, `info --json` and `dump --count --json` do.\n"
        "Ctrl-C stops the server.\n");
    if (!vm) return EXIT_OK;
    ServerOptions o;
    o.tables_dir = (*vm)["tables"].as<std::string>();
    o.host = (*vm)["host"].as<std::string>();
    o.port = static_cast<int>(number(*vm, "port", PORT));
    std::error_code ec;
    if (!std::filesystem::is_directory(o.tables_dir, ec)) {
        throw UsageError("--tables " + o.tables_dir + ": not a folder");
    }
    WebServer server(o);
    const int port = server.bind();
    std::cout << fmt::format("nimtb: serving the tables of {}/ at http://{}:{}/ (Ctrl-C stops)\n",
                             o.tables_dir, o.host, port)
              << std::flush;
    service::stop_on_signals();
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-answer ends that answer only
    std::thread watcher([&server] {
        while (!service::interrupted()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        server.stop();
    });
    server.serve();
    service::interrupted() = true;  // ends the watcher if the server stopped on its own
    watcher.join();
    std::cout << "nimtb: stopped\n";
    return EXIT_OK;
}

}  // namespace nimtb::apps
