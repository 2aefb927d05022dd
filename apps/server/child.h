#pragma once
// Work of the server that can be long, run as a child process of the
// `nimtb` program: a solve, a dump, a count, a sequence, a quotient. A child
// can be given limits a thread cannot (an address-space limit, a deadline
// that ends it at once with SIGKILL), it holds no lock of the server's (HDF5
// included), and a damaged file that crashes HDF5 crashes the child only.
// The child is asked for events (`--events json`, service/request/events.h)
// and speaks nothing else the server reads: its stdout is a stream of JSON
// events (progress, data handed on as it comes, one result or one error
// with its kind); its stderr, text for a person, goes to /dev/null.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "service/request/events.h"

namespace nimtb::apps {

struct ChildLimits {
    std::chrono::milliseconds time{30'000};     // killed when it runs longer
    uint64_t memory_bytes = uint64_t{2} << 30;  // RLIMIT_AS (none under a sanitizer)
    // Its nice value, when not 0. A child inherits the thread's that starts
    // it: gated work's threads run at 10 (http.h), so their children do
    // too; a solve (every core, for long) asks for 10 wherever it starts (a
    // job's thread runs at 0), so that answers from tables stay quick.
    int nice = 0;
};

struct ChildOutcome {
    // answered: its result event came; failed: its error event; crashed:
    // neither (a signal, a sanitizer's report, a stream cut short).
    enum class End { answered, failed, killed_for_time, cancelled, crashed } end = End::crashed;
    int exit_code = -1;     // when it exited
    nlohmann::json result;  // answered: the result event, without "event"
    service::ErrorKind error_kind = service::ErrorKind::failed;  // failed: the error event's
    std::string error;                                           // and its message
};

struct ChildIo {
    // The text of each data event as it comes; throws to stop the child (it is then killed).
    std::function<void(std::string_view)> data;
    // Each progress event's fraction, in [0, 1].
    std::function<void(double)> progress;
    // Polled every few milliseconds: true stops the child (End::cancelled).
    std::function<bool()> cancelled;
};

// Runs `program args...` (program: the nimtb binary; args ask for
// `--events json`) with stdin and stderr on /dev/null, no descriptor of the server's but the pipes,
// at its nice level, in a process group of its own that dies with the server (PR_SET_PDEATHSIG).
// Returns how it ended; throws std::runtime_error only when no process could be started.
ChildOutcome run_child(const std::string& program, const std::vector<std::string>& args,
                       const ChildLimits& limits, const ChildIo& io);

}  // namespace nimtb::apps
