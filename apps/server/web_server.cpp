#include "apps/server/web_server.h"

#include <unistd.h>

#include <boost/asio/ip/address.hpp>

#include "apps/server/api.h"
#include "apps/web_assets.h"

namespace nimtb::apps {

namespace {

// Requests are small: a position, a rule, a game's draws.
constexpr uint64_t MAX_BODY_BYTES = 64 * 1024;

// What the floor refuses, in words.
std::string reason(int status, const std::string& why) {
    switch (status) {
        case 400:
            if (why == "encoding")
                return "400 the path or a parameter is not valid UTF-8, holds a control character, "
                       "or has a malformed % escape";
            if (why == "framing")
                return "400 the request can be read two ways (a transfer coding other than "
                       "chunked, two Host headers, or HTTP/1.1 without Host)";
            return "400 bad request";
        case 404:
            return "404 no such page or API";
        case 405:
            return "405 method not allowed here";
        case 413:
            return fmt::format("413 the request body is over {} bytes", MAX_BODY_BYTES);
        case 414:
            return "414 the URL is too long";
        case 431:
            return "431 the request's headers are too long";
        case 503:
            if (why == "memory")
                return "503 the server holds as many answers for their clients as it allows; try "
                       "again in a few seconds";
            return "503 the server is busy with as much of this work as it allows; try again in a "
                   "few seconds";
        default:
            return fmt::format("{} error", status);
    }
}

// The host of a Host or Origin value: "name:port", "[::1]:port" or "http://name:port".
std::string host_part(std::string value) {
    if (const size_t scheme = value.find("://"); scheme != std::string::npos)
        value.erase(0, scheme + 3);
    if (!value.empty() && value.front() == '[') {
        const size_t close = value.find(']');
        return close == std::string::npos ? value : value.substr(1, close - 1);
    }
    return value.substr(0, value.find(':'));
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Equal, in a time that does not depend on where they differ.
bool same_secret(const std::string& a, const std::string& b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
    return diff == 0;
}

// The value of cookie `name` in a Cookie header, or "".
std::string cookie(const std::string& header, const std::string& name) {
    size_t at = 0;
    while (at < header.size()) {
        while (at < header.size() && (header[at] == ' ' || header[at] == ';')) ++at;
        const size_t end = std::min(header.find(';', at), header.size());
        const std::string pair = header.substr(at, end - at);
        if (pair.rfind(name + "=", 0) == 0) return pair.substr(name.size() + 1);
        at = end;
    }
    return "";
}

constexpr const char* TOKEN_COOKIE = "nimtb_token";

}  // namespace

struct WebServer::Impl {
    explicit Impl(ServerOptions o) : state(o), http(o.limits) {}
    ServerState state;
    http::Server http;
    std::vector<std::string> hosts;  // names a client may call the server by

    void routes();
    std::optional<http::Response> refuse(const http::Request& req) const;
};

// Host (DNS rebinding: a page of another site that calls its name this
// machine's address), the token, and for a change where it comes from.
std::optional<http::Response> WebServer::Impl::refuse(const http::Request& req) const {
    auto no = [](int status, const std::string& message) {
        http::Response r;
        send_json(r, {{"error", message}}, status);
        return r;
    };
    if (const std::string host = req.header("host"); !host.empty()) {
        const std::string name = lower(host_part(host));
        boost::system::error_code ec;
        (void)boost::asio::ip::make_address(name, ec);
        if (ec && std::find(hosts.begin(), hosts.end(), name) == hosts.end()) {
            return no(421, "this server does not answer to the name '" + name +
                               "' (its operator can allow it with --allow-host)");
        }
    }
    const std::string& token = state.options.token;
    if (!token.empty()) {
        const auto given = req.params.find("token");
        const std::string bearer = req.header("authorization");
        const bool carried =
            same_secret(cookie(req.header("cookie"), TOKEN_COOKIE), token) ||
            (bearer.rfind("Bearer ", 0) == 0 && same_secret(bearer.substr(7), token)) ||
            (given != req.params.end() && same_secret(given->second, token));
        if (!carried) {
            return no(401,
                      "this server asks for its token: open the link with ?token=... that "
                      "its operator gave");
        }
        if (given != req.params.end() && req.path == "/") {
            // The link's token becomes the page's cookie, and leaves the address bar.
            http::Response r;
            r.status = 303;
            r.content_type = "text/plain; charset=utf-8";
            r.set_header("Location", "/");
            r.set_header("Set-Cookie", fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict",
                                                   TOKEN_COOKIE, token));
            return r;
        }
    }
    if (req.method != "GET") {
        // The page's own origin is exactly http://HOST as the request names
        // it: another scheme or port is another site (RFC 6454).
        const std::string origin = lower(req.header("origin"));
        const std::string site = req.header("sec-fetch-site");
        if ((!site.empty() && site != "same-origin" && site != "none") ||
            (!origin.empty() && origin != "http://" + lower(req.header("host")))) {
            return no(403, "a change must come from this server's own page");
        }
    }
    return std::nullopt;
}

void WebServer::Impl::routes() {
    for (const WebAsset& a : WEB_ASSETS) {
        std::string path = "/";  // the page itself at the root
        if (std::string_view(a.path) != "index.html") path.append(a.path);
        http.route("GET", path, [a](const http::Request&, http::Response& res) {
            res.content_type = a.type;
            res.body.assign(a.body.data(), a.body.size());
        });
    }
    add_table_routes(http, state);
    add_game_routes(http, state);
    add_research_routes(http, state);

    http.filter([this](const http::Request& req) { return refuse(req); });
    http.always({
        {"X-Content-Type-Options", "nosniff"},
        {"Content-Security-Policy",
         "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
         "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
         "frame-ancestors 'none'"},
        {"X-Frame-Options", "DENY"},
        {"Referrer-Policy", "no-referrer"},
        {"Cache-Control", "no-store"},
    });
    http.on_error([](int status, const std::string& why, http::Response& res) {
        send_json(res, {{"error", reason(status, why)}}, status);
        if (status == 503) res.set_header("Retry-After", "5");
    });
    http.on_exception(
        [this](std::exception_ptr e, http::Response& res) { answer_exception(state, e, res); });
}

WebServer::WebServer(ServerOptions options) {
    options.limits.body_bytes = MAX_BODY_BYTES;
    impl_ = std::make_unique<Impl>(std::move(options));
    const ServerOptions& o = impl_->state.options;
    std::vector<std::string>& hosts = impl_->hosts;
    hosts = {"localhost", lower(o.host)};
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0 && name[0]) {
        hosts.push_back(lower(name));
        hosts.push_back(lower(name) + ".local");
    }
    for (const std::string& h : o.allowed_hosts) hosts.push_back(lower(h));
    impl_->routes();
}

WebServer::~WebServer() = default;

int WebServer::bind() {
    return impl_->http.bind(impl_->state.options.host, impl_->state.options.port);
}

void WebServer::serve() {
    impl_->http.run();
}

void WebServer::stop() {
    impl_->http.stop();
}

}  // namespace nimtb::apps
