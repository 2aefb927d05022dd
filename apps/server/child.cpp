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
#include <stdexcept>

extern char** environ;

namespace nimtb::apps {

namespace {

// A sanitizer's runtime maps terabytes of shadow memory: under one, an
// address-space limit would stop every child before it starts.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool LIMIT_ADDRESS_SPACE = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool LIMIT_ADDRESS_SPACE = false;
#else
constexpr bool LIMIT_ADDRESS_SPACE = true;
#endif
#else
constexpr bool LIMIT_ADDRESS_SPACE = true;
#endif

// What the child does between fork() and exec(): async-signal-safe calls only.
[[noreturn]] void become_child(const char* program, char* const argv[], int out, int err,
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
    const int null = ::open("/dev/null", O_RDONLY);
    if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
    ::close_range(3, ~0U, 0);  // the server's sockets and files stay the server's
    ::execve(program, argv, environ);
    ::_exit(127);
}

// "12.3" from the last "\r... 12.3% ..." of a progress bar, or -1.
double progress_in(std::string_view text) {
    const size_t cr = text.rfind('\r');
    if (cr == std::string_view::npos) return -1;
    const size_t pct = text.find('%', cr);
    if (pct == std::string_view::npos) return -1;
    size_t start = pct;
    while (start > cr &&
           (std::isdigit(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '.'))
        --start;
    if (start == pct) return -1;
    return std::strtod(std::string(text.substr(start, pct - start)).c_str(), nullptr) / 100;
}

// The child's message: its error line when it printed one, else its first line.
std::string first_error(const std::string& err) {
    const std::string prefix = "nimtb: error: ";
    std::string first;
    size_t at = 0;
    while (at < err.size()) {
        size_t end = err.find_first_of("\r\n", at);
        if (end == std::string::npos) end = err.size();
        const std::string line = err.substr(at, end - at);
        if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
        if (first.empty() && !line.empty() && err[at > 0 ? at - 1 : 0] != '\r') first = line;
        at = end + 1;
    }
    return first;
}

}  // namespace

ChildOutcome run_child(const std::string& program, const std::vector<std::string>& args,
                       const ChildLimits& limits, const ChildIo& io) {
    std::vector<std::string> words{program};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);

    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("cannot start the work (no pipe)");
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(out[0]);
        ::close(out[1]);
        throw std::runtime_error("cannot start the work (no pipe)");
    }
    const pid_t pid = ::fork();
    if (pid == 0) become_child(program.c_str(), argv.data(), out[1], err[1], limits);
    ::close(out[1]);
    ::close(err[1]);
    if (pid < 0) {
        ::close(out[0]);
        ::close(err[0]);
        throw std::runtime_error("cannot start the work (no process)");
    }

    ChildOutcome outcome;
    std::string errors;  // the first 64 KiB of stderr
    constexpr size_t KEPT = 64 * 1024;
    const auto deadline = std::chrono::steady_clock::now() + limits.time;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open = 2;
    auto stop = [&](ChildOutcome::End why) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);  // in case it had not yet made its group
        outcome.end = why;
    };
    bool stopped = false;
    while (open > 0) {
        if (!stopped && std::chrono::steady_clock::now() > deadline) {
            stop(ChildOutcome::End::killed_for_time);
            stopped = true;
        }
        if (!stopped && io.cancelled && io.cancelled()) {
            stop(ChildOutcome::End::cancelled);
            stopped = true;
        }
        if (::poll(fds, 2, 20) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[64 * 1024];
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open;
                continue;
            }
            const std::string_view piece(buf, static_cast<size_t>(n));
            if (i == 1) {
                errors.append(piece.substr(0, KEPT - std::min(KEPT, errors.size())));
                if (const double p = progress_in(piece); p >= 0 && io.progress) io.progress(p);
                continue;
            }
            if (stopped || !io.out) continue;
            try {
                io.out(piece);
            } catch (...) {
                stop(ChildOutcome::End::cancelled);
                stopped = true;
            }
        }
    }
    for (pollfd& f : fds)
        if (f.fd >= 0) ::close(f.fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (stopped) return outcome;
    outcome.error = first_error(errors);
    if (WIFEXITED(status)) {
        outcome.exit_code = WEXITSTATUS(status);
        // Under a sanitizer a crash is an exit with its report.
        if (errors.find("Sanitizer") != std::string::npos) outcome.end = ChildOutcome::End::crashed;
    } else {
        outcome.end = ChildOutcome::End::crashed;
        outcome.exit_code = -1;
    }
    return outcome;
}

}  // namespace nimtb::apps
