#include "apps/server/api.h"

#include "service/views.h"

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;

service::Hooks log_hooks() {
    service::Hooks hooks;
    hooks.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    return hooks;
}

void send_json(httplib::Response& res, const json& j, int status) {
    res.status = status;
    res.set_content(j.dump(), "application/json");
}

std::string param(const httplib::Request& req, const char* name) {
    if (!req.has_param(name)) throw HttpError(400, fmt::format("missing parameter '{}'", name));
    return req.get_param_value(name);
}

engine::Heaps position_param(const httplib::Request& req) {
    return engine::parse_heaps(param(req, "position"));
}

void answering(httplib::Response& res, const std::function<void()>& work) {
    try {
        work();
    } catch (const HttpError& e) {
        send_json(res, {{"error", e.what()}}, e.status);
    } catch (const nimtb::InputError& e) {
        send_json(res, {{"error", e.what()}}, 400);
    } catch (const json::exception& e) {
        send_json(res, {{"error", std::string("bad JSON: ") + e.what()}}, 400);
    } catch (const std::exception& e) {
        send_json(res, {{"error", e.what()}}, 500);
    }
}

ServerState::Open& ServerState::table(const std::string& name) {
    if (!is_table_name(name)) {
        throw HttpError(400, "'" + name +
                                 "' is not a table name: give a file name of the "
                                 "tables folder, like nim-normal-k3-h15.h5");
    }
    const fs::path path = fs::path(options.tables_dir) / name;
    std::error_code ec;
    const auto written = fs::last_write_time(path, ec);
    if (ec || !fs::is_regular_file(path, ec)) throw HttpError(404, "no table '" + name + "'");
    Open& t = open[name];
    if (!t.prober || t.written != written) {
        t = Open{};
        t.prober = std::make_unique<io::Prober>(path.string());
        t.written = written;
    }
    return t;
}

json ServerState::info(Open& t, const std::string& name) {
    json j = service::info_json(t.prober->table());
    j["path"] = name;  // the folder stays the server's business
    return j;
}

}  // namespace nimtb::apps
