#pragma once
// Work of the server that a page follows and can stop: a table solved on the
// spot for the explorer's side-by-side pictures. Each job runs on a thread of
// its own; GET /api/job reads its progress, GET /api/job/cancel stops it (the
// solve then leaves no file). A job ends with a JSON answer or an error.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "service/request/hooks.h"

namespace nimtb::apps {

class Jobs {
  public:
    using Work = std::function<nlohmann::json(const service::Hooks&)>;

    Jobs() = default;
    Jobs(const Jobs&) = delete;
    Jobs& operator=(const Jobs&) = delete;
    // Stops every job still running and waits for it.
    ~Jobs();

    // Starts `work`, or returns the id of the job of the same `key` still running.
    std::string start(const std::string& key, Work work);
    // {"state": "running" | "done" | "failed" | "cancelled", "done", "total",
    //  and "answer" or "error"}; HttpError 404 for an unknown id.
    nlohmann::json status(const std::string& id) const;
    void cancel(const std::string& id);

  private:
    struct Job {
        std::string key;
        std::atomic<bool> cancel{false};
        std::atomic<uint64_t> done{0}, total{0};
        mutable std::mutex mutex;  // guards the fields below
        std::string state = "running";
        nlohmann::json answer;
        std::string error;
        std::thread thread;
    };
    std::shared_ptr<Job> find(const std::string& id) const;

    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<Job>> jobs_;
    uint64_t next_ = 1;
};

}  // namespace nimtb::apps
