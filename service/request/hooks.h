#pragma once
// How a front end follows and stops the work it asked the service floor for:
// progress, cancellation and notes. The command connects Ctrl-C and its
// progress bar, the Python module a KeyboardInterrupt. (The server runs such
// work as child processes of the command, and kills a child whose client
// went away: apps/server/child.h.)

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace nimtb::service {

struct Hooks {
    // (done, total), on the calling thread, at least once per step of the work.
    std::function<void(uint64_t, uint64_t)> progress;
    // Set from any thread to stop the work: it throws nimtb::Cancelled and
    // leaves no file behind.
    const std::atomic<bool>* cancel = nullptr;
    // A line the user should read while the work goes on ("resuming from the
    // checkpoint in ..."), without a trailing newline.
    std::function<void(const std::string&)> note;

    void say(const std::string& line) const {
        if (note) note(line);
    }
};

}  // namespace nimtb::service
