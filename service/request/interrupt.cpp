#include "service/request/interrupt.h"

#include <csignal>

namespace nimtb::service {

std::atomic<bool>& interrupted() {
    static std::atomic<bool> flag{false};
    return flag;
}

namespace {
extern "C" void on_signal(int) {
    interrupted().store(true);
}
}  // namespace

void stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);  // the terminal closed: clean up as for Ctrl-C
}

}  // namespace nimtb::service
