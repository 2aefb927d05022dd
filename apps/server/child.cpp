#include "apps/server/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "engine/base/sanitizers.h"

extern char** environ;

namespace nimtb::apps {

namespace {

// A sanitizer's runtime maps terabytes of shadow memory: under one, an
// address-space limit would stop every child before it starts.
constexpr bool LIMIT_ADDRESS_SPACE = !engine::ADDRESS_SANITIZER && !engine::THREAD_SANITIZER;

// What the child does between fork() and exec(): async-signal-safe calls only.
[[noreturn]] void become_child(const char* program, char* const argv[], int out,
                               const ChildLimits& limits) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (limits.nice) ::setpriority(PRIO_PROCESS, 0, limits.nice);
    const rlimit as{limits.memory_bytes, limits.memory_bytes};
    if (LIMIT_ADDRESS_SPACE) ::setrlimit(RLIMIT_AS, &as);
    // The server ignores SIGPIPE; an ignored signal stays ignored across exec.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &dfl, nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(null, 2) < 0) ::_exit(127);
    ::close_range(3, ~0U, 0);  // the server's sockets and files stay the server's
    ::execve(program, argv, environ);
    ::_exit(127);
}

// One line of the child's stdout: an event, taken into `outcome` or handed
// to `io`. A line that is no event is not the child's protocol: ignored,
// and a run without its result or error event ends as crashed.
void take_event(std::string_view line, const ChildIo& io, ChildOutcome& outcome) {
    std::optional<nlohmann::json> event = service::parse_event(line);
    if (!event) return;
    const std::string kind = (*event)["event"].get<std::string>();
    if (kind == "progress") {
        const auto f = event->find("fraction");
        if (io.progress && f != event->end() && f->is_number()) io.progress(f->get<double>());
    } else if (kind == "data") {
        const auto t = event->find("text");
        if (io.data && t != event->end() && t->is_string())
            io.data(t->get_ref<const std::string&>());
    } else if (kind == "result") {
        event->erase("event");
        outcome.result = std::move(*event);
        outcome.end = ChildOutcome::End::answered;
    } else if (kind == "error") {
        const auto k = event->find("kind");
        const auto m = event->find("message");
        outcome.error_kind = service::parse_error_kind(
            k != event->end() && k->is_string() ? k->get_ref<const std::string&>() : "");
        outcome.error = m != event->end() && m->is_string() ? m->get<std::string>() : "";
        outcome.end = ChildOutcome::End::failed;
    }
}

}  // namespace

ChildOutcome run_child(const std::string& program, const std::vector<std::string>& args,
                       const ChildLimits& limits, const ChildIo& io) {
    std::vector<std::string> words{program};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);

    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("cannot start the work (no pipe)");
    const pid_t pid = ::fork();
    if (pid == 0) become_child(program.c_str(), argv.data(), out[1], limits);
    ::close(out[1]);
    if (pid < 0) {
        ::close(out[0]);
        throw std::runtime_error("cannot start the work (no process)");
    }

    ChildOutcome outcome;
    std::string line;  // the event being read
    const auto deadline = std::chrono::steady_clock::now() + limits.time;
    pollfd fd{out[0], POLLIN, 0};
    auto stop = [&](ChildOutcome::End why) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);  // in case it had not yet made its group
        outcome.end = why;
    };
    bool stopped = false;
    while (fd.fd >= 0) {
        if (!stopped && std::chrono::steady_clock::now() > deadline) {
            stop(ChildOutcome::End::killed_for_time);
            stopped = true;
        }
        if (!stopped && io.cancelled && io.cancelled()) {
            stop(ChildOutcome::End::cancelled);
            stopped = true;
        }
        if (::poll(&fd, 1, 20) < 0 && errno != EINTR) break;
        if (!(fd.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[64 * 1024];
        const ssize_t n = ::read(fd.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd.fd);
            fd.fd = -1;
            continue;
        }
        if (stopped) continue;
        std::string_view piece(buf, static_cast<size_t>(n));
        for (size_t end; (end = piece.find('\n')) != std::string_view::npos;) {
            line.append(piece.substr(0, end));
            piece.remove_prefix(end + 1);
            try {
                take_event(line, io, outcome);
            } catch (...) {  // the caller's data went nowhere: the client left
                stop(ChildOutcome::End::cancelled);
                stopped = true;
                break;
            }
            line.clear();
        }
        if (!stopped) line.append(piece);
    }
    if (fd.fd >= 0) ::close(fd.fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (stopped) return outcome;
    if (WIFEXITED(status)) {
        outcome.exit_code = WEXITSTATUS(status);
    } else {
        outcome.end = ChildOutcome::End::crashed;  // a signal, whatever it said before
    }
    return outcome;
}

}  // namespace nimtb::apps
