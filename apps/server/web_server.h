#pragma once
// `nimtb serve`: the page (compiled into the binary) and a JSON API over the
// tables of one folder, for a class or a lab to share. The API answers with
// the objects the command line prints (query --json, info --json, dump
// --count --json); errors are 4xx with {"error": "..."} (503 with
// Retry-After when the server is at its limits) and never stop the server.
// docs/SERVER.md is the operator's guide: every endpoint (a list that
// tools/check_architecture.py keeps equal to the routes the code adds), the
// limits, writing, the token. Reads answer from stored tables and never wait
// on work; work (counts, dumps, sequences, quotients, solves) runs in
// children (child.h), bounded in time and memory; changes are POSTs.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/server/http.h"

namespace nimtb::apps {

struct ServerOptions {
    std::string tables_dir = "tables";
    std::string host = "127.0.0.1";
    int port = 8080;  // 0: any free port
    // The `nimtb` program that runs the server's work in children; empty:
    // this program.
    std::string program;
    // Solve the tables a game needs into tables_dir; otherwise into a
    // private temporary folder, removed when the server stops, and no file
    // of tables_dir is created or changed.
    bool writable = false;
    uint64_t disk_budget = uint64_t{1} << 30;  // bytes of tables the server may write
    // When set, every request must carry it (the page's link ?token=T, then a cookie).
    std::string token;
    // Host names clients may use besides localhost, IP addresses and this machine's name.
    std::vector<std::string> allowed_hosts;
    bool follow_links = false;                // serve links that lead out of the folder
    std::chrono::seconds job_time{60};        // the longest work of a request
    uint64_t job_memory = uint64_t{2} << 30;  // address space of a child's work
    unsigned max_children = 4;                // children at once
    // The learning level's memory of every table's games (api.h, Learners).
    uint64_t learning_bytes = uint64_t{64} << 20;
    http::Limits limits;
};

class WebServer {
  public:
    explicit WebServer(ServerOptions options);
    ~WebServer();
    // Binds the port (throws std::runtime_error when it cannot) and returns it.
    int bind();
    // Serves until stop() is called from another thread, then waits for
    // the work under way to stop.
    void serve();
    void stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace nimtb::apps
