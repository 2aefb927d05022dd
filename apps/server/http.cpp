#include "apps/server/http.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/base/errors.h"

namespace nimtb::apps::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

std::string Request::header(const std::string& lower_case_name) const {
    const auto it = headers.find(lower_case_name);
    return it == headers.end() ? std::string() : it->second;
}

bool Request::cancelled() const {
    return gone->load() || (stopping && stopping->load());
}

bool Gate::try_enter() {
    unsigned used = used_.load();
    do {
        if (used >= slots_) return false;
    } while (!used_.compare_exchange_weak(used, used + 1));
    if (outer_ && !outer_->try_enter()) {
        --used_;
        return false;
    }
    return true;
}

bool Gate::enter_within(std::chrono::milliseconds wait) {
    const auto end = std::chrono::steady_clock::now() + wait;
    while (!try_enter()) {
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

void Gate::leave() {
    if (outer_) outer_->leave();
    --used_;
}

bool is_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t n;
        uint32_t cp;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n >= s.size()) return false;  // cut short
        for (size_t k = 1; k <= n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
        static constexpr uint32_t LEAST[] = {0, 0x80, 0x800, 0x10000};
        if (cp < LEAST[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n + 1;
    }
    return true;
}

namespace {

int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// %XX decoded (and '+' as a space in a query); nullopt for a malformed escape.
std::optional<std::string> decode(std::string_view s, bool plus_is_space) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%') {
            if (i + 2 >= s.size()) return std::nullopt;
            const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else {
            out.push_back(plus_is_space && s[i] == '+' ? ' ' : s[i]);
        }
    }
    return out;
}

// UTF-8 without control characters: what a path or a parameter may hold.
bool is_plain_text(std::string_view s) {
    const auto control = [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7F;
    };
    return is_utf8(s) && std::none_of(s.begin(), s.end(), control);
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool same_word(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// What is worth compressing: JSON and text (CSV, the page), not the
// pictures' binary planes.
bool compressible(const std::string& content_type) {
    return content_type.starts_with("application/json") || content_type.starts_with("text/") ||
           content_type.starts_with("application/javascript");
}

constexpr size_t SMALLEST_GZIPPED = 1024;  // below this, gzip's header costs what it saves

// A gzip stream (zlib, RFC 1952), piece by piece: each piece flushed, so
// that a streamed answer reaches its client as it is made.
class Gzip {
  public:
    Gzip() {
        if (deflateInit2(&z_, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            throw std::bad_alloc();
    }
    ~Gzip() { deflateEnd(&z_); }
    Gzip(const Gzip&) = delete;
    Gzip& operator=(const Gzip&) = delete;

    // `piece` compressed; with `last`, the stream's end.
    std::string add(std::string_view piece, bool last) {
        std::string out;
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
        z_.avail_in = static_cast<uInt>(piece.size());
        const int flush = last ? Z_FINISH : Z_SYNC_FLUSH;
        int r;
        do {
            const size_t had = out.size();
            out.resize(had + std::max<size_t>(4096, deflateBound(&z_, z_.avail_in)));
            z_.next_out = reinterpret_cast<Bytef*>(out.data() + had);
            z_.avail_out = static_cast<uInt>(out.size() - had);
            r = deflate(&z_, flush);
            out.resize(out.size() - z_.avail_out);
        } while (r == Z_OK && (z_.avail_in > 0 || z_.avail_out == 0));
        return out;
    }

  private:
    z_stream z_{};
};

}  // namespace

bool accepts_gzip(std::string_view value) {
    while (!value.empty()) {
        const size_t comma = value.find(',');
        std::string_view item = value.substr(0, comma);
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        const size_t semi = item.find(';');
        const std::string_view coding = trimmed(item.substr(0, semi));
        if (!same_word(coding, "gzip") && coding != "*") continue;
        if (semi == std::string_view::npos) return true;
        // "gzip;q=0" refuses it; any other weight accepts it.
        std::string_view q = trimmed(item.substr(semi + 1));
        if (!q.starts_with("q=") && !q.starts_with("Q=")) return true;
        q.remove_prefix(2);
        return std::any_of(q.begin(), q.end(), [](char c) { return c >= '1' && c <= '9'; });
    }
    return false;
}

std::optional<std::map<std::string, std::string>> parse_query(std::string_view query) {
    std::map<std::string, std::string> params;
    while (!query.empty()) {
        const size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) continue;
        const size_t eq = pair.find('=');
        const auto name = decode(pair.substr(0, eq), true);
        const auto value =
            decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!name || !value || !is_plain_text(*name) || !is_plain_text(*value)) return std::nullopt;
        params.emplace(*name, *value);  // the first of a repeated name counts
    }
    return params;
}

namespace {

struct Route {
    std::string method, path;
    Handler handler;
    Server::GateFor gate_for;  // empty: a read
};

// The threads of gated work run below the reads (a thread's nice value on
// Linux is its own): a costly read or a child's wait never takes a core
// from a query. Once per thread; children started from it inherit it.
void below_reads() {
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
}

}  // namespace

struct Server::Impl {
    explicit Impl(Limits l) : limits(l), reads(l.read_threads), work(WORK_THREADS) {}

    // Threads for gated work: each mostly waits on a child process, and the
    // gates, not this number, bound how many run.
    static constexpr unsigned WORK_THREADS = 32;

    Limits limits;
    std::vector<Route> routes;
    std::function<std::optional<Response>(const Request&)> check;
    std::vector<std::pair<std::string, std::string>> always;
    std::function<void(int, const std::string&, Response&)> error_page;
    std::function<void(std::exception_ptr, Response&)> on_exception;
    std::atomic<bool> stopping{false};
    std::atomic<size_t> connections{0}, queued_reads{0};
    std::atomic<uint64_t> answer_bytes{0};  // bodies made and not yet sent
    std::mutex addresses_mutex;
    std::map<net::ip::address, size_t> addresses;  // connections open, by client address

    // Room for `n` bytes of answer: always for the first, else within the limit.
    bool reserve(uint64_t n) {
        uint64_t used = answer_bytes.load();
        do {
            if (used > 0 && used + n > limits.answer_bytes) return false;
        } while (!answer_bytes.compare_exchange_weak(used, used + n));
        return true;
    }

    // Destroyed in reverse: the pools (joined) before the network that
    // their tasks post to.
    net::io_context ioc{1};
    tcp::acceptor acceptor{ioc};
    net::steady_timer accept_pause{ioc};
    net::thread_pool reads;
    net::thread_pool work;

    void accept();
    Response error(int status, const std::string& why) {
        Response r;
        r.status = status;
        r.content_type = "text/plain; charset=utf-8";
        r.body = why + "\n";
        if (error_page) error_page(status, why, r);
        return r;
    }
    // A handler's exception as an answer: 500 unless on_exception says otherwise.
    void translate(std::exception_ptr e, Response& r) {
        r = error(500, "internal error");
        if (on_exception) on_exception(e, r);
    }
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
  public:
    Session(tcp::socket socket, net::ip::address peer, Server::Impl& server)
        : server_(server), stream_(std::move(socket)), peer_(std::move(peer)) {}
    ~Session() {
        release();
        --server_.connections;
        std::lock_guard lock(server_.addresses_mutex);
        if (--server_.addresses[peer_] == 0) server_.addresses.erase(peer_);
    }

    void read_next() {
        parser_.emplace();
        parser_->header_limit(server_.limits.header_bytes);
        parser_->body_limit(server_.limits.body_bytes);
        stream_.expires_after(server_.limits.request_time);
        bhttp::async_read(
            stream_, buffer_, *parser_,
            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
    }

  private:
    friend class StreamSink;

    void on_read(beast::error_code ec) {
        if (ec == bhttp::error::body_limit) return refuse(413, "body");
        if (ec == bhttp::error::header_limit) {
            // A request line that never ends is a URL too long; else the headers are.
            const auto data = buffer_.cdata();
            const std::string_view seen(static_cast<const char*>(data.data()), data.size());
            return refuse(seen.find("\r\n") == std::string_view::npos ? 414 : 431, "headers");
        }
        if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
            ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
            return refuse(400, "request");
        }
        if (ec) return close();  // gone, or too slow: dropped
        handle(parser_->release());
    }

    // A request that two readers could frame differently (RFC 9112 6.1,
    // 3.2): smuggling's way in, refused rather than guessed.
    static bool ambiguous(const bhttp::request<bhttp::string_body>& msg) {
        const size_t hosts = msg.count(bhttp::field::host);
        if (hosts > 1 || (msg.version() >= 11 && hosts == 0)) return true;
        const size_t codings = msg.count(bhttp::field::transfer_encoding);
        if (codings == 0) return false;
        const auto te = msg.find(bhttp::field::transfer_encoding);
        return codings > 1 ||
               !same_word(trimmed(std::string_view(te->value().data(), te->value().size())),
                          "chunked");
    }

    // An error of the request itself: answered, then the connection closed
    // (the rest of what it sends is not read).
    void refuse(int status, const std::string& why) {
        keep_alive_ = false;
        send(server_.error(status, why));
    }

    void handle(bhttp::request<bhttp::string_body> msg) {
        if (ambiguous(msg)) return refuse(400, "framing");
        keep_alive_ = msg.keep_alive();
        Request req;
        req.method = std::string(msg.method_string());
        req.stopping = &server_.stopping;
        const std::string_view target(msg.target().data(), msg.target().size());
        if (target.size() > server_.limits.target_bytes) return send(server_.error(414, "target"));
        const size_t q = target.find('?');
        const auto path = decode(target.substr(0, q), false);
        const auto params =
            parse_query(q == std::string_view::npos ? std::string_view() : target.substr(q + 1));
        if (!path || !params || !is_plain_text(*path)) {
            return send(server_.error(400, "encoding"));
        }
        req.path = *path;
        req.params = std::move(*params);
        for (const auto& f : msg) {
            std::string name(f.name_string());
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            req.headers.emplace(std::move(name), std::string(f.value()));
        }
        req.body = std::move(msg.body());
        gzip_ = accepts_gzip(req.header("accept-encoding"));
        if (server_.check) {
            if (auto refused = server_.check(req)) return send(std::move(*refused));
        }
        const Route* route = nullptr;
        bool path_known = false;
        for (const Route& r : server_.routes) {
            if (r.path != req.path) continue;
            path_known = true;
            if (r.method == req.method) route = &r;
        }
        if (!route) return send(server_.error(path_known ? 405 : 404, "route"));
        std::shared_ptr<Gate> gate = route->gate_for ? route->gate_for(req) : nullptr;
        if (gate && !gate->try_enter()) return send(server_.error(503, "busy"));
        if (!gate && server_.queued_reads.load() >= server_.limits.read_queue) {
            return send(server_.error(503, "busy"));
        }
        held_ = gate;  // left when the answer is sent (release)
        gone_ = req.gone;
        stream_.expires_never();
        watch();
        if (!gate) ++server_.queued_reads;
        auto run = [self = shared_from_this(), route, gated = gate != nullptr,
                    req = std::move(req)]() mutable { self->run(*route, gated, req); };
        if (gate) {
            net::post(server_.work, std::move(run));
        } else {
            net::post(server_.reads, std::move(run));
        }
    }

    // On a worker thread.
    void run(const Route& route, bool gated, const Request& req) {
        if (gated) {
            below_reads();
        } else {
            --server_.queued_reads;
        }
        Response res;
        try {
            route.handler(req, res);
        } catch (...) {
            server_.translate(std::current_exception(), res);
        }
        if (res.stream) {
            stream_out(std::move(res));
            return;
        }
        if (gzip_ && res.body.size() >= SMALLEST_GZIPPED && compressible(res.content_type)) {
            res.body = Gzip().add(res.body, true);
            res.set_header("Content-Encoding", "gzip");
        }
        if (!server_.reserve(res.body.size())) {
            res = server_.error(503, "memory");  // its body freed at once
        } else {
            reserved_ = res.body.size();
        }
        held_by_handler_ = std::move(res.held);
        net::post(stream_.get_executor(),
                  [self = shared_from_this(), res = std::move(res)]() mutable {
                      self->send(std::move(res));
                  });
    }

    void stream_out(Response res);

    // The gate's place and the answer's memory, given back once it is sent.
    void release() {
        if (held_) {
            held_->leave();
            held_.reset();
        }
        server_.answer_bytes -= std::exchange(reserved_, 0);
        held_by_handler_.reset();
    }

    // Turns gone_ true when the client hangs up while its answer is made,
    // however it closes: what it sends first (the next request of a
    // pipelining client, or a byte before it hangs up) is read into the
    // buffer the next request is parsed from.
    void watch() {
        watching_ = true;
        if (buffer_.size() >= server_.limits.header_bytes) return;  // enough kept: the rest waits
        stream_.socket().async_read_some(
            buffer_.prepare(4096), [self = shared_from_this()](beast::error_code ec, size_t n) {
                self->buffer_.commit(n);
                if (ec == net::error::operation_aborted) return;  // the answer is on its way
                if (ec) return self->gone_->store(true);          // closed or reset
                if (self->watching_) self->watch();
            });
    }

    void unwatch() {
        watching_ = false;
        beast::error_code ignored;
        stream_.socket().cancel(ignored);
    }

    void add_headers(bhttp::response_header<>& h, const Response& res) {
        h.set(bhttp::field::content_type, res.content_type);
        if (compressible(res.content_type)) h.set(bhttp::field::vary, "Accept-Encoding");
        for (const auto& [k, v] : server_.always) h.set(k, v);
        for (const auto& [k, v] : res.headers) h.set(k, v);
    }

    void send(Response res) {
        unwatch();
        auto m = std::make_shared<bhttp::response<bhttp::string_body>>(
            static_cast<bhttp::status>(res.status), 11);
        add_headers(m->base(), res);
        m->keep_alive(keep_alive_ && !server_.stopping);
        m->body() = std::move(res.body);
        m->prepare_payload();
        stream_.expires_after(server_.limits.write_time);
        bhttp::async_write(stream_, *m,
                           [self = shared_from_this(), m](beast::error_code ec, size_t) {
                               self->release();
                               if (ec || !m->keep_alive()) return self->close();
                               self->read_next();
                           });
    }

    void close() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        stream_.close();
    }

    Server::Impl& server_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
    const net::ip::address peer_;
    bool keep_alive_ = false;
    bool gzip_ = false;      // the client accepts gzip
    bool watching_ = false;  // on the network thread: a hang-up is watched for
    std::shared_ptr<Gate> held_;
    std::shared_ptr<void> held_by_handler_;  // Response::held, until the answer is sent
    uint64_t reserved_ = 0;                  // bytes of server_.answer_bytes this answer holds
    std::shared_ptr<std::atomic<bool>> gone_ = std::make_shared<std::atomic<bool>>(false);
};

// A streamed answer's pieces, from the worker thread that makes them to the
// network thread that writes them, one at a time.
class StreamSink : public Sink {
  public:
    StreamSink(std::shared_ptr<Session> s, Response head)
        : s_(std::move(s)), head_(std::move(head)) {
        if (s_->gzip_ && compressible(head_.content_type)) {
            gzip_.emplace();
            head_.set_header("Content-Encoding", "gzip");
        }
    }

    void write(std::string_view piece) override {
        if (piece.empty()) return;
        if (!gzip_) return put(std::string(piece), false);
        std::string packed = gzip_->add(piece, false);
        if (!packed.empty()) put(std::move(packed), false);
    }
    void finish() {
        if (gzip_) put(gzip_->add("", true), false);
        put("", true);
    }
    bool started() const { return started_; }

  private:
    void put(std::string data, bool last) {
        Server::Impl& server = s_->server_;
        if (server.stopping || s_->gone_->load()) throw Cancelled();
        // A piece in flight counts among the answers' bytes (one per stream).
        server.answer_bytes += data.size();
        struct GiveBack {
            std::atomic<uint64_t>& total;
            const uint64_t n;
            ~GiveBack() { total -= n; }
        } give_back{server.answer_bytes, data.size()};
        auto done = std::make_shared<std::promise<beast::error_code>>();
        auto result = done->get_future();
        auto buf = std::make_shared<std::string>(std::move(data));
        // The head travels with the first piece, by value: this sink may be
        // gone (the server stopping) before the network thread runs.
        std::shared_ptr<const Response> head;
        if (!started_) head = std::make_shared<const Response>(head_);
        started_ = true;
        net::post(s_->stream_.get_executor(), [s = s_, buf, done, head, last] {
            s->stream_.expires_after(s->server_.limits.write_time);
            auto body = [s, buf, done, last](beast::error_code ec) {
                if (ec) return done->set_value(ec);
                auto finished = [done, buf](beast::error_code e, size_t) { done->set_value(e); };
                if (last) {
                    net::async_write(s->stream_, bhttp::make_chunk_last(), std::move(finished));
                } else {
                    net::async_write(s->stream_, bhttp::make_chunk(net::buffer(*buf)),
                                     std::move(finished));
                }
            };
            if (!head) return body({});
            auto m = std::make_shared<bhttp::response<bhttp::empty_body>>(
                static_cast<bhttp::status>(head->status), 11);
            s->add_headers(m->base(), *head);
            m->chunked(true);
            m->keep_alive(s->keep_alive_);
            auto sr = std::make_shared<bhttp::response_serializer<bhttp::empty_body>>(*m);
            bhttp::async_write_header(s->stream_, *sr,
                                      [m, sr, body](beast::error_code ec, size_t) { body(ec); });
        });
        // The network thread ends every write: by its end, its error, or
        // the stream's deadline. At shutdown it may never run the post.
        while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
            if (server.stopping) throw Cancelled();
        }
        if (result.get()) {
            s_->gone_->store(true);
            throw Cancelled();
        }
    }

    std::shared_ptr<Session> s_;
    Response head_;
    std::optional<Gzip> gzip_;
    bool started_ = false;
};

}  // namespace

void Session::stream_out(Response res) {
    auto make = std::move(res.stream);
    res.stream = nullptr;
    StreamSink sink(shared_from_this(), res);
    bool whole = false;
    try {
        make(sink);
        sink.finish();
        whole = true;
    } catch (...) {
        if (!sink.started()) {
            Response error;
            server_.translate(std::current_exception(), error);
            net::post(stream_.get_executor(),
                      [self = shared_from_this(), error = std::move(error)]() mutable {
                          self->send(std::move(error));
                      });
            return;
        }
    }
    // Cut short (its work failed, or ran out of time): the connection is
    // closed without the last chunk, which every client reads as a broken answer.
    release();
    net::post(stream_.get_executor(), [self = shared_from_this(), whole] {
        self->unwatch();
        if (whole && self->keep_alive_ && !self->server_.stopping) return self->read_next();
        self->close();
    });
}

void Server::Impl::accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (!acceptor.is_open()) return;
        if (ec) {
            // Out of descriptors, most likely: breathe, then accept again.
            accept_pause.expires_after(std::chrono::milliseconds(50));
            accept_pause.async_wait([this](beast::error_code) { accept(); });
            return;
        }
        const net::ip::address peer = socket.remote_endpoint(ec).address();
        bool room = !ec && connections.load() < limits.connections;
        if (room) {
            std::lock_guard lock(addresses_mutex);
            room = addresses[peer] < limits.per_address;
            if (room) ++addresses[peer];
        }
        if (!room) {
            beast::error_code ignored;
            socket.close(ignored);  // full, or this address holds its share: refused at once
        } else {
            ++connections;
            socket.set_option(tcp::no_delay(true), ec);
            std::make_shared<Session>(std::move(socket), peer, *this)->read_next();
        }
        accept();
    });
}

Server::Server(Limits limits) : impl_(std::make_shared<Impl>(limits)) {}

Server::~Server() {
    stop();
    impl_->reads.join();
    impl_->work.join();
}

void Server::route(const std::string& method, const std::string& path, Handler handler,
                   std::shared_ptr<Gate> gate) {
    GateFor gate_for;
    if (gate) gate_for = [gate](const Request&) { return gate; };
    route(method, path, std::move(handler), std::move(gate_for));
}

void Server::route(const std::string& method, const std::string& path, Handler handler,
                   GateFor gate_for) {
    impl_->routes.push_back({method, path, std::move(handler), std::move(gate_for)});
}

void Server::filter(std::function<std::optional<Response>(const Request&)> check) {
    impl_->check = std::move(check);
}

void Server::always(std::vector<std::pair<std::string, std::string>> headers) {
    impl_->always = std::move(headers);
}

void Server::on_error(std::function<void(int, const std::string&, Response&)> make) {
    impl_->error_page = std::move(make);
}

void Server::on_exception(std::function<void(std::exception_ptr, Response&)> make) {
    impl_->on_exception = std::move(make);
}

int Server::bind(const std::string& host, int port) {
    Impl& i = *impl_;
    // A socket per connection: the soft limit on descriptors (often 1024)
    // raised to the hard one, and the connections kept below it.
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
        ::getrlimit(RLIMIT_NOFILE, &files);
        const rlim_t spare = 128;  // tables, pipes to children, the listener
        if (files.rlim_cur > spare)
            i.limits.connections = std::min<size_t>(i.limits.connections, files.rlim_cur - spare);
    }
    beast::error_code ec;
    tcp::endpoint where;
    const auto address = net::ip::make_address(host, ec);
    if (!ec) {
        where = tcp::endpoint(address, static_cast<unsigned short>(port));
    } else {
        tcp::resolver resolver(i.ioc);
        const auto found = resolver.resolve(host, std::to_string(port), ec);
        if (ec || found.empty()) {
            throw std::runtime_error("cannot listen on " + host +
                                     ": not an address of this machine");
        }
        where = found.begin()->endpoint();
    }
    i.acceptor.open(where.protocol(), ec);
    if (!ec) i.acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) i.acceptor.bind(where, ec);
    if (!ec) i.acceptor.listen(i.limits.backlog, ec);
    if (ec) {
        throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                                 " (in use, or not an address of this machine)");
    }
    return i.acceptor.local_endpoint().port();
}

void Server::run() {
    impl_->accept();
    impl_->ioc.run();
    // Stopped: every handler sees cancelled(), its child is killed, it ends.
    impl_->reads.join();
    impl_->work.join();
}

void Server::stop() {
    impl_->stopping = true;
    impl_->ioc.stop();
}

}  // namespace nimtb::apps::http
