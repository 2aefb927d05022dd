// libFuzzer: the HTTP API of `nimtb serve`, its parameters and bodies. The
// server runs in this process on a port of loopback, over a folder holding
// one small table; each input is one request. Whatever is asked, the server
// answers with JSON (an error is 4xx with {"error": ...}; 5xx only for a
// table it cannot read, and the folder's one table is whole), binary for a
// plane and text for a dump, and it keeps answering.
//
// The input: a line "METHOD PATH?QUERY" (GET when METHOD is missing), then
// the body of a POST.
#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "apps/server/web_server.h"
#include "scratch.h"
#include "service/solve.h"

namespace {

namespace fs = std::filesystem;
using namespace nimtb;

struct Server {
    fs::path dir;
    std::unique_ptr<apps::WebServer> web;
    std::thread thread;
    std::unique_ptr<httplib::Client> client;

    Server() {
        dir = fuzz::scratch_path("api");
        fs::remove_all(dir);
        fs::create_directories(dir);
        service::SolveRequest r;
        r.rule = engine::Rule::parse("nim");
        r.universe = engine::Bounds::box(3, 7);
        r.output = (dir / "nim-normal-k3-h7.h5").string();
        (void)service::solve_table(r, {});
        apps::ServerOptions o;
        o.tables_dir = dir.string();
        o.port = 0;
        o.program = NIMTB_PROGRAM;
        web = std::make_unique<apps::WebServer>(o);
        const int port = web->bind();
        thread = std::thread([this] { web->serve(); });
        client = std::make_unique<httplib::Client>("127.0.0.1", port);
        client->set_keep_alive(true);
        client->set_read_timeout(30);
    }
};

Server& server() {
    static Server* s = new Server;  // alive until exit: the thread serves to the end
    return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Server& s = server();
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t eol = input.find('\n');
    std::string line = input.substr(0, eol);
    const std::string body = eol == std::string::npos ? "" : input.substr(eol + 1);
    std::string method = "GET";
    if (const size_t space = line.find(' '); space != std::string::npos) {
        method = line.substr(0, space);
        line.erase(0, space + 1);
    }
    // httplib refuses to send a path that is not one; the server never sees it.
    if (line.empty() || line[0] != '/' ||
        line.find_first_of(std::string("\r\n\0 ", 4)) != std::string::npos)
        return 0;
    auto ask = [&] {
        return method == "POST" ? s.client->Post(line, body, "application/json")
                                : s.client->Get(line);
    };
    httplib::Result res = ask();
    // A kept-alive connection the server closed meanwhile (its keep-alive
    // limits) fails once; a second failure is a server that stopped answering.
    if (!res) res = ask();
    if (!res) std::abort();
    const std::string type = res->get_header_value("Content-Type");
    if (res->status >= 500) {
        // Only a table it cannot read, a solve that could not be written, or
        // 503: work beyond the server's limits.
        if (type != "application/json") std::abort();
        const auto j = nlohmann::json::parse(res->body, nullptr, false);
        if (!j.is_object() || !j.contains("error")) std::abort();
    }
    if (type == "application/json") {
        const auto j = nlohmann::json::parse(res->body, nullptr, false);
        if (j.is_discarded()) std::abort();
        if (res->status >= 400 && !(j.is_object() && j.contains("error"))) std::abort();
    }
    return 0;
}
