#pragma once
// `nimtb serve`: the page (compiled into the binary) and a JSON API over the
// tables of one folder, for a class or a lab to share. The API answers with
// the objects the command line prints (query --json, info --json, dump
// --count --json); errors are 4xx with {"error": "..."} (503 with
// Retry-After when the server is at its limits) and never stop the server.
// docs/SERVER.md is the operator's guide: the limits, writing, the token.
//
// Reads: answered from stored tables, never waiting on work.
//   GET  /api/rules                             the rule families, and rules worth naming
//   GET  /api/tables                            the tables, each as info --json (path: the name)
//   GET  /api/info?table=T                      info --json
//   GET  /api/query?table=T&position=3,4,5[&line=1]   query --json [--line]
//   GET  /api/plane?table=T[&others=C,D]        values and remoteness of every a b C D, binary
//   GET  /api/hint?table=T&position=P           {"text"}: the hint of `nimtb play`
//   GET  /api/move?table=T&position=P&level=L   the computer's move, as in query's "moves"
//   GET  /api/find?rules=R&convention=C&(position=P|layout=L)
//                                               the table of a game in the folder and its start
//   GET  /api/companion?table=T                 the same rule and universe in the other
//                                               convention, when the folder holds it
//   GET  /api/job?id=J                          a job's {"state","done","total"} and its
//                                               "answer" (done) or "error" (failed, cancelled)
//   GET  /api/northcott?board=B[&row=R&to=C][&reply=x|o&level=L]
//                                               Northcott's game: a move checked, the computer's
//                                               answer
// Work: bounded in time and memory, stopped when the client goes away.
//   GET  /api/count?table=T                     dump --count --json
//   GET  /api/dump?table=T                      the table as `nimtb dump --csv` writes it
//   GET  /api/sequence?rules=R&(max_heap=N|until_proven=1[&limit=N])
//                                               sequence --json
//   GET  /api/quotient?rules=R&max_heap=N       quotient --analyze --json
// Changes (POST, Content-Type application/json):
//   POST /api/find  {"rules","convention","position"|"layout"}
//                                               as GET, solving the table now if small
//   POST /api/companion  {"table"}              as GET, or {"job","positions"}: a job solving it
//   POST /api/job/cancel  {"id"}                stops the job; its solve writes nothing
//   POST /api/learn  {"table","won","draws"}    the learning level learns from a game

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
