#pragma once
// `nimtb serve`: the page (compiled into the binary) and a JSON API over the
// tables of one folder. The API answers with the objects the command line
// prints (query --json, info --json, dump --count --json); errors are 4xx
// with {"error": "..."} and never stop the server.
//
//   GET  /api/rules                             the rule families, and rules worth naming
//   GET  /api/tables                            the tables, each as info --json (path: the name)
//   GET  /api/info?table=T                      info --json
//   GET  /api/query?table=T&position=3,4,5[&line=1]   query --json [--line]
//   GET  /api/count?table=T                     dump --count --json
//   GET  /api/plane?table=T[&others=C,D]        values and remoteness of every a b C D, binary
//   GET  /api/dump?table=T                      the table as `nimtb dump --csv` writes it (text/csv)
//   GET  /api/companion?table=T                 the same rule and universe in the other
//                                               convention: {"table","info"} when in the folder,
//                                               else {"job","positions"}: a job solving it
//   GET  /api/job?id=J                          a job's {"state","done","total"} and its
//                                               "answer" (done) or "error" (failed, cancelled)
//   GET  /api/job/cancel?id=J                   stops the job; its solve writes nothing
//   GET  /api/sequence?rules=R&(max_heap=N|until_proven=1[&limit=N])   sequence --json
//   GET  /api/hint?table=T&position=P           {"text"}: the hint of `nimtb play`
//   GET  /api/move?table=T&position=P&level=L   the computer's move, as in query's "moves"
//   POST /api/learn  {"table","won","draws"}    the learning level learns from a game
//   GET  /api/find?rules=R&convention=C&(position=P|layout=L)
//                                               the table of a game and its start, solved now if
//                                               small
//   GET  /api/northcott?board=B[&row=R&to=C][&reply=x|o&level=L]
//                                               Northcott's game: a move checked, the computer's
//                                               answer

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace nimtb::apps {

struct ServerOptions {
    std::string tables_dir = "tables";
    std::string host = "127.0.0.1";
    int port = 8080;  // 0: any free port
};

class WebServer {
  public:
    explicit WebServer(ServerOptions options);
    ~WebServer();
    // Binds the port (throws std::runtime_error when it cannot) and returns it.
    int bind();
    // Serves until stop() is called from another thread.
    void serve();
    void stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// True for a table's file name as the API accepts it: letters, digits, '.',
// '_' and '-', ending in .h5, no leading dot: a name in the folder, never a path.
bool is_table_name(const std::string& name);

}  // namespace nimtb::apps
