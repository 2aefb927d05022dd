#pragma once
// Work of the server that can be long, run as a child process of the
// `nimtb` program: a solve, a dump, a count, a sequence, a quotient. A child
// can be given limits a thread cannot (an address-space limit, a deadline
// that ends it at once with SIGKILL), it holds no lock of the server's (HDF5
// included), and a damaged file that crashes HDF5 crashes the child only.
// Its stdout is handed to the caller as it comes (a dump streams through),
// the first line of its stderr becomes the error, and a line of its stderr
// that starts with '\r' and holds "NN.N%" is progress (the progress bar of
// `--progress`).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nimtb::apps {

struct ChildLimits {
    std::chrono::milliseconds time{30'000};     // killed when it runs longer
    uint64_t memory_bytes = uint64_t{2} << 30;  // RLIMIT_AS (none under a sanitizer)
    // Its priority below the server's: a solve (every core, for long) runs
    // at 10, so that answers from tables stay quick; work a person waits
    // for with nothing else to do (an export, a sequence) at 0.
    int nice = 0;
};

struct ChildOutcome {
    enum class End { exited, killed_for_time, cancelled, crashed } end = End::exited;
    int exit_code = 0;
    std::string error;  // the first line of stderr, "nimtb: error: " removed
};

struct ChildIo {
    // Each piece of stdout as it comes; throws to stop the child (it is then killed).
    std::function<void(std::string_view)> out;
    // Progress as a fraction in [0, 1], when the child draws a progress bar.
    std::function<void(double)> progress;
    // Polled every few milliseconds: true stops the child (End::cancelled).
    std::function<bool()> cancelled;
};

// Runs `program args...` (program: the nimtb binary) with stdin from
// /dev/null, no descriptor of the server's but the pipes, at its nice level,
// in a process group of its own that dies with the server (PR_SET_PDEATHSIG). Returns how it
// ended; throws std::runtime_error only when no process could be started.
ChildOutcome run_child(const std::string& program, const std::vector<std::string>& args,
                       const ChildLimits& limits, const ChildIo& io);

}  // namespace nimtb::apps
