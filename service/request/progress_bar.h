#pragma once
// A one-line progress bar on stderr: percent, rate, time left; what the
// command-line programs connect to a solve's or a sequence's progress hook.

#include <chrono>
#include <cstdint>
#include <string>

namespace nimtb::service {

// Drawn only when enabled (stderr is a terminal, or --progress), at most
// ten times a second.
class ProgressBar {
  public:
    ProgressBar(std::string label, bool enabled);
    ~ProgressBar();
    void update(uint64_t done, uint64_t total);
    void finish();

  private:
    std::string label_;
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_, last_;
};

bool stderr_is_terminal();

}  // namespace nimtb::service
