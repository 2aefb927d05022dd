#include "apps/server/jobs.h"

#include "apps/server/api.h"

namespace nimtb::apps {

Jobs::~Jobs() {
    std::map<std::string, std::shared_ptr<Job>> jobs;
    {
        std::lock_guard lock(mutex_);
        jobs.swap(jobs_);
    }
    for (auto& [id, job] : jobs) job->cancel = true;
    for (auto& [id, job] : jobs)
        if (job->thread.joinable()) job->thread.join();
}

std::string Jobs::start(const std::string& key, Work work) {
    std::lock_guard lock(mutex_);
    for (const auto& [id, job] : jobs_) {
        std::lock_guard job_lock(job->mutex);
        if (job->key == key && job->state == "running") return id;
    }
    const std::string id = std::to_string(next_++);
    auto job = std::make_shared<Job>();
    job->key = key;
    jobs_[id] = job;
    job->thread = std::thread([job, work = std::move(work)] {
        service::Hooks hooks = log_hooks();
        hooks.cancel = &job->cancel;
        hooks.progress = [job](uint64_t done, uint64_t total) {
            job->done = done;
            job->total = total;
        };
        std::string state = "done", error;
        nlohmann::json answer;
        try {
            answer = work(hooks);
        } catch (const Cancelled&) {
            state = "cancelled";
            error = "the solve was cancelled; nothing was written";
        } catch (const std::exception& e) {
            state = "failed";
            error = e.what();
        }
        std::lock_guard finished(job->mutex);
        job->state = state;
        job->answer = std::move(answer);
        job->error = error;
    });
    return id;
}

std::shared_ptr<Jobs::Job> Jobs::find(const std::string& id) const {
    std::lock_guard lock(mutex_);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) throw HttpError(404, "no job " + id + " (the server was restarted?)");
    return it->second;
}

nlohmann::json Jobs::status(const std::string& id) const {
    const std::shared_ptr<Job> job = find(id);
    std::lock_guard lock(job->mutex);
    nlohmann::json j = {
        {"state", job->state}, {"done", job->done.load()}, {"total", job->total.load()}};
    if (job->state == "done") j["answer"] = job->answer;
    if (!job->error.empty()) j["error"] = job->error;
    return j;
}

void Jobs::cancel(const std::string& id) {
    find(id)->cancel = true;
}

}  // namespace nimtb::apps
