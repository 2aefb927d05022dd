#include "service/request/progress_bar.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

#include "service/request/solve_report.h"

namespace nimtb::service {

bool stderr_is_terminal() {
    return isatty(STDERR_FILENO) == 1;
}

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

ProgressBar::~ProgressBar() {
    finish();
}

void ProgressBar::update(uint64_t done, uint64_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done < total) return;
    last_ = now;
    drawn_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double fraction = total ? double(done) / double(total) : 1.0;
    const double rate = seconds > 0 ? double(done) / seconds : 0;
    std::string left = "--";
    if (rate > 0 && done < total) left = fmt::format("{:.0f}s", double(total - done) / rate);
    constexpr int WIDTH = 30;
    const int filled = static_cast<int>(fraction * WIDTH);
    fmt::print(stderr, "\r{} [{}{}] {:5.1f}%  {}/s  left {}   ", label_, std::string(filled, '#'),
               std::string(WIDTH - filled, '.'), 100 * fraction, human_count(rate), left);
    std::fflush(stderr);
}

void ProgressBar::finish() {
    if (enabled_ && drawn_) {
        fmt::print(stderr, "\n");
        drawn_ = false;
    }
}

}  // namespace nimtb::service
