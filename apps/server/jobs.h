#pragma once
// Work of the server that a page follows and can stop: a table solved for
// the explorer's side-by-side pictures. A job runs on a thread of its own,
// admitted by a gate (503 when it is full). Whoever starts a job gets a
// ticket, a random id no one else can guess: GET /api/job reads the job's
// progress, POST /api/job/cancel withdraws the ticket. Two pages that ask
// for the same work share one job with a ticket each; the job stops when
// every ticket is withdrawn, or left unread for TICKET_IDLE (its page was
// closed), or when the server stops. Finished jobs are forgotten after
// KEPT_DONE, their threads joined.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "apps/server/http.h"

namespace nimtb::apps {

class Jobs {
  public:
    // The work: cancelled() turns true when it should stop (it then throws
    // nimtb::Cancelled); progress(fraction) reports how far it is.
    using Work = std::function<nlohmann::json(const std::function<bool()>& cancelled,
                                              const std::function<void(double)>& progress)>;
    static constexpr std::chrono::seconds TICKET_IDLE{30};
    static constexpr std::chrono::minutes KEPT_DONE{10};

    Jobs() = default;
    Jobs(const Jobs&) = delete;
    Jobs& operator=(const Jobs&) = delete;
    // Stops every job still running and waits for it.
    ~Jobs() { stop_all(); }
    void stop_all();

    // Jobs that may run at once; a new one past them is refused.
    static constexpr size_t MAX_RUNNING = 16;
    // Tickets kept (a finished job's for KEPT_DONE), and the tickets of one
    // job: a client that asks again and again gets 503, not a pile of them.
    static constexpr size_t MAX_TICKETS = 4096;
    static constexpr size_t MAX_TICKETS_PER_JOB = 256;
    // A ticket for the job of `key` still running, or for a new job running
    // `work` of `total` steps; HttpError 503 when MAX_RUNNING run, or the
    // tickets are at their limits.
    std::string start(const std::string& key, uint64_t total, Work work);
    // {"state": "running" | "done" | "failed" | "cancelled", "done", "total",
    //  and "answer" or "error"}; HttpError 404 for an unknown ticket.
    nlohmann::json status(const std::string& ticket);
    void cancel(const std::string& ticket);

  private:
    struct Job {
        std::string key;
        std::atomic<bool> cancel{false};
        std::atomic<double> progress{0};
        uint64_t total = 0;
        mutable std::mutex mutex;  // guards the fields below
        std::string state = "running";
        nlohmann::json answer;
        std::string error;
        std::chrono::steady_clock::time_point ended;
        std::thread thread;
    };
    struct Ticket {
        std::shared_ptr<Job> job;
        std::chrono::steady_clock::time_point seen;
        bool withdrawn = false;  // cancelled, or left unread
    };
    // Under mutex_: idle tickets withdrawn, jobs without a ticket stopped,
    // old finished jobs joined and forgotten.
    void sweep();
    std::string new_id();

    std::mutex mutex_;
    std::map<std::string, Ticket> tickets_;
    std::map<std::string, std::shared_ptr<Job>> running_;  // by key, while followed
    std::vector<std::shared_ptr<Job>> all_;                // every job whose thread is not joined
};

}  // namespace nimtb::apps
