#pragma once
// Ctrl-C for the command-line programs (nimtb, nimtb-mpi): SIGINT, SIGTERM and SIGHUP
// set one flag that their hooks hand to the work as its cancellation.

#include <atomic>

namespace nimtb::service {

// Set by SIGINT/SIGTERM/SIGHUP once stop_on_signals() is called. A signal handler
// can only reach a global; this flag is the one piece of process state
// nimtb keeps outside an object.
std::atomic<bool>& interrupted();
void stop_on_signals();

}  // namespace nimtb::service
