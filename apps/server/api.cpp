#include "apps/server/api.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "service/views.h"

extern char** environ;

namespace nimtb::apps {

namespace fs = std::filesystem;
using nlohmann::json;

void vet_table(const std::string& path) {
    constexpr auto LIMIT = std::chrono::seconds(10);
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) throw TableError(path + ": cannot check the file (no pipe)");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    const std::string self = "/proc/self/exe", info = "info";
    char* argv[] = {const_cast<char*>(self.c_str()), const_cast<char*>(info.c_str()),
                    const_cast<char*>(path.c_str()), nullptr};
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(err[1]);
    if (spawned != 0) {
        ::close(err[0]);
        throw TableError(path + ": cannot check the file (no process)");
    }
    // The child's stderr is read as it comes: a child blocked on a full pipe
    // would otherwise look like one that hangs. Its first line is all we keep.
    constexpr size_t KEPT = 4096;
    std::string message;
    bool reading = true;
    auto read_some = [&] {
        char buf[4096];
        const ssize_t n = ::read(err[0], buf, sizeof buf);
        if (n <= 0) {
            reading = false;
            return;
        }
        message.append(buf, std::min(size_t(n), KEPT - std::min(KEPT, message.size())));
    };
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + LIMIT;
    bool late = false;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            late = true;
            break;
        }
        pollfd p{err[0], POLLIN, 0};
        if (reading && ::poll(&p, 1, 5) > 0) {
            read_some();
        } else if (!reading) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    while (reading) read_some();  // the child is gone: the rest, then the end
    ::close(err[0]);
    if (!late && WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    // (Under a sanitizer a crash is an exit with its report.)
    if (!late && WIFEXITED(status) && message.find("Sanitizer") == std::string::npos) {
        message = message.substr(0, message.find('\n'));
        const std::string prefix = "nimtb: error: ";
        if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
        throw TableError(message.empty() ? path + ": not a table nimtb can read" : message);
    }
    throw TableError(fmt::format(
        "{}: the file is damaged: reading its metadata {} (a file of HDF5's older format, "
        "without checksums; docs/FORMAT.md)",
        path, late ? "took over 10 s" : "crashed HDF5"));
}

Deadline::Deadline(std::chrono::milliseconds limit)
    : timer_([this, limit] {
          std::unique_lock lock(mutex_);
          if (!gone_.wait_for(lock, limit, [this] { return done_; })) passed_ = true;
      }) {}

Deadline::~Deadline() {
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    gone_.notify_one();
    timer_.join();
}

service::Hooks log_hooks() {
    service::Hooks hooks;
    hooks.note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
    hooks.vet = vet_table;
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
    } catch (const nimtb::ResourceError& e) {  // a universe too large: ask for a smaller one
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
        vet_table(path.string());  // in a child first: a damaged file may crash HDF5
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
