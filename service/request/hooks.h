#pragma once
// How a front end follows and stops the work it asked the service floor for:
// progress, cancellation and notes. The command connects Ctrl-C and its
// progress bar, the Python module a KeyboardInterrupt, the server a request
// whose browser went away.

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
    // Called with each file a search of a folder is about to open; throws
    // to pass the file over. The server reads each new file in a child
    // process first (a damaged file of HDF5's older format can crash HDF5).
    std::function<void(const std::string&)> vet;

    void say(const std::string& line) const {
        if (note) note(line);
    }
};

}  // namespace nimtb::service
