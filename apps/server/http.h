#pragma once
// The HTTP floor of `nimtb serve`, on Boost.Beast and Asio: what a server
// that a class shares must bound, and the endpoints need not know.
//
// - One network thread reads and writes every connection without blocking,
//   so an idle or slow client costs a socket, never a thread. A request's
//   headers and body, and the wait for it on a kept-alive connection, must
//   arrive within Limits::request_time, or the connection is dropped; the
//   body is limited whether or not it is chunked.
// - One address holds at most Limits::per_address connections, so that
//   one client cannot take the slots of everyone else.
// - A request whose framing could be read two ways is refused (400): a
//   transfer coding other than `chunked`, two Host headers, HTTP/1.1
//   without Host; so is a control character in the path or a parameter.
// - Handlers run on worker threads: reads (a query, an answer from a table)
//   on a pool of their own, bounded work (a Gate) on another, so that reads
//   never wait on work. A Gate admits a few requests of its kind at once;
//   more are answered 503 with Retry-After at once, never queued. A gated
//   request keeps its place until its answer is sent, and its handler
//   runs below the reads' priority (nice 10).
// - While a handler runs, the connection is watched: when the client hangs
//   up, Request::cancelled() turns true, and at shutdown too; what it sends
//   meanwhile (a pipelined request) is kept for after the answer.
// - An answer is a body, or a stream (Response::stream) written in chunks as
//   it is made, each chunk written before the next is made. Bodies waiting
//   for their client count against Limits::answer_bytes: past it, an answer
//   is 503 instead. A stream that fails after its first piece ends without
//   its last chunk, so that the client sees it cut short.
// - JSON and text answers of a client that accepts gzip are sent gzipped.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nimtb::apps::http {

struct Limits {
    // A whole request, headers and body, and the idle wait before it.
    std::chrono::milliseconds request_time{10'000};
    // Each piece of an answer, to be taken by the client.
    std::chrono::milliseconds write_time{30'000};
    uint32_t header_bytes = 16 * 1024;  // the request line and headers
    uint32_t target_bytes = 8 * 1024;   // the URL
    uint64_t body_bytes = 64 * 1024;    // a body, chunked or not
    int backlog = 4096;                 // connections the kernel holds before accept
    // Open at once (fewer when descriptors run short); more are closed at once.
    size_t connections = 2048;
    size_t per_address = 256;  // open at once from one client address
    // Bodies made and not yet taken by their clients, together.
    uint64_t answer_bytes = uint64_t{256} << 20;
    unsigned read_threads = 4;  // handlers without a Gate
    size_t read_queue = 512;    // reads waiting beyond this answer 503
};

struct Request {
    std::string method;                          // "GET", "POST", ...
    std::string path;                            // decoded, without the query
    std::map<std::string, std::string> params;   // the query's, decoded and valid UTF-8
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;

    bool has_param(const std::string& name) const { return params.count(name) > 0; }
    // The header's value, or "".
    std::string header(const std::string& lower_case_name) const;
    // True once the client has gone away or the server is stopping.
    bool cancelled() const;

    std::shared_ptr<std::atomic<bool>> gone = std::make_shared<std::atomic<bool>>(false);
    const std::atomic<bool>* stopping = nullptr;
};

// Where a streamed answer writes. write() returns when the piece is sent,
// and throws nimtb::Cancelled when the client has gone or does not take it
// within Limits::write_time.
class Sink {
  public:
    virtual ~Sink() = default;
    virtual void write(std::string_view piece) = 0;
};

struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    // When set, the body is what stream() writes, sent chunked; status and
    // headers are sent before its first piece.
    std::function<void(Sink&)> stream;
    // Kept until the answer is sent: a place in a gate that the handler took
    // itself (a read that turned out costly), so that its body waiting for
    // the client holds it as a gated route's does.
    std::shared_ptr<void> held;

    void set_header(std::string name, std::string value) {
        headers.emplace_back(std::move(name), std::move(value));
    }
};

using Handler = std::function<void(const Request&, Response&)>;

// An answer other than 200 that a handler throws: the status and a message
// for the client (on_exception words it).
struct Error : std::runtime_error {
    Error(int s, const std::string& what) : std::runtime_error(what), status(s) {}
    int status;
};

// At most `slots` requests of a kind at once, and at most as many as a
// shared gate (`outer`, when given) lets in.
class Gate {
  public:
    explicit Gate(unsigned slots, std::shared_ptr<Gate> outer = nullptr)
        : slots_(slots), outer_(std::move(outer)) {}
    bool try_enter();
    // try_enter() until it admits, for at most `wait` (short work that a
    // read needs, such as a look at a new file, waits rather than fails).
    bool enter_within(std::chrono::milliseconds wait);
    void leave();
    unsigned slots() const { return slots_; }

  private:
    std::atomic<unsigned> used_{0};
    const unsigned slots_;
    std::shared_ptr<Gate> outer_;
};

// A place taken in a gate (try_enter() said yes), left when this goes.
class Admission {
  public:
    explicit Admission(Gate& gate) : gate_(gate) {}
    ~Admission() { gate_.leave(); }
    Admission(const Admission&) = delete;
    Admission& operator=(const Admission&) = delete;

  private:
    Gate& gate_;
};

class Server {
  public:
    explicit Server(Limits limits);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // A route: `method` and an exact `path`. With a gate, the handler is
    // admitted by it (503 when full) and runs on the work pool.
    void route(const std::string& method, const std::string& path, Handler handler,
               std::shared_ptr<Gate> gate = nullptr);
    // The same, with the gate chosen by the request (a costly variant of a
    // read), or none (nullptr: a read).
    using GateFor = std::function<std::shared_ptr<Gate>(const Request&)>;
    void route(const std::string& method, const std::string& path, Handler handler,
               GateFor gate_for);
    // Runs before any route on every request; an answer it returns is sent
    // instead (a Host or token refused).
    void filter(std::function<std::optional<Response>(const Request&)> check);
    // Headers added to every answer.
    void always(std::vector<std::pair<std::string, std::string>> headers);
    // The answer for an error of the floor itself (400, 404, 405, 413, 431, 503).
    void on_error(std::function<void(int status, const std::string& why, Response&)> make);
    // The answer for an exception a handler (or a stream before its first
    // piece) throws; without it, 500.
    void on_exception(std::function<void(std::exception_ptr, Response&)> make);

    // Listens on host:port (port 0: any free one); throws std::runtime_error
    // when it cannot. Returns the port.
    int bind(const std::string& host, int port);
    // Serves until stop(); then lets every handler see cancelled() and waits
    // for them.
    void run();
    // From any thread.
    void stop();

    struct Impl;  // opaque: the network, the pools, the routes

  private:
    std::shared_ptr<Impl> impl_;
};

// The query string `a=1&b=x%20y` decoded into names and values; nullopt when
// a name or value is not valid UTF-8 once decoded, holds a control
// character (a NUL, say), or a '%' is malformed.
std::optional<std::map<std::string, std::string>> parse_query(std::string_view query);
bool is_utf8(std::string_view text);
// True when an Accept-Encoding value accepts gzip.
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace nimtb::apps::http
