#include "apps/server/web_server.h"

#include "apps/server/api.h"
#include "apps/web_assets.h"

namespace nimtb::apps {

namespace {

// The errors httplib itself answers, in words.
std::string reason(int status) {
    switch (status) {
        case 400:
            return "400 bad request";
        case 404:
            return "404 no such page or API";
        case 405:
            return "405 method not allowed here";
        case 413:
            return fmt::format("413 the request body is over {} bytes", MAX_BODY_BYTES);
        case 414:
            return "414 the URL is too long";
        default:
            return fmt::format("{} error", status);
    }
}

}  // namespace

bool is_table_name(const std::string& name) {
    const auto plain = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    };
    return name.size() > 3 && name.size() <= 200 && name.front() != '.' && name.ends_with(".h5") &&
           std::all_of(name.begin(), name.end(), plain);
}

struct WebServer::Impl {
    explicit Impl(ServerOptions o) : state(std::move(o)) {}
    ServerState state;
    httplib::Server http;
    int port = 0;
    void routes();
};

void WebServer::Impl::routes() {
    for (const WebAsset& a : WEB_ASSETS) {
        std::string path = "/";  // the page itself at the root
        if (std::string_view(a.path) != "index.html") path.append(a.path);
        http.Get(path, [a](const httplib::Request&, httplib::Response& res) {
            res.set_content(a.body.data(), a.body.size(), a.type);
        });
    }
    add_table_routes(http, state);
    add_game_routes(http, state);
    add_research_routes(http, state);

    // Anything that ends in an error without a body of ours (404 for an
    // unknown path, 413 for a body too big, 414 for a URL too long) gets one.
    http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty() || res.get_header_value("Content-Type") != "application/json") {
            send_json(res, {{"error", reason(res.status)}}, res.status);
        }
    });
    http.set_payload_max_length(MAX_BODY_BYTES);
    // Answers are small: send them at once rather than wait for the client's acknowledgement.
    http.set_tcp_nodelay(true);
    // httplib's default, SO_REUSEPORT, would let a second server share a port
    // in use; SO_REUSEADDR alone still lets a server restart at once.
    http.set_socket_options([](int sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
}

WebServer::WebServer(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
    impl_->routes();
}

WebServer::~WebServer() = default;

int WebServer::bind() {
    Impl& i = *impl_;
    i.port = i.state.options.port == 0
                 ? i.http.bind_to_any_port(i.state.options.host)
                 : (i.http.bind_to_port(i.state.options.host, i.state.options.port)
                        ? i.state.options.port
                        : -1);
    if (i.port <= 0) {
        throw std::runtime_error(
            fmt::format("cannot listen on {}:{} (in use, or not an address "
                        "of this machine)",
                        i.state.options.host, i.state.options.port));
    }
    return i.port;
}

void WebServer::serve() {
    impl_->http.listen_after_bind();
}

void WebServer::stop() {
    impl_->http.stop();
}

}  // namespace nimtb::apps
