#include "apps/server/jobs.h"

#include <fmt/core.h>

#include <algorithm>
#include <random>

#include "engine/base/errors.h"

namespace nimtb::apps {

using Clock = std::chrono::steady_clock;

void Jobs::stop_all() {
    std::vector<std::shared_ptr<Job>> jobs;
    {
        std::lock_guard lock(mutex_);
        jobs.swap(all_);
        tickets_.clear();
        running_.clear();
    }
    for (auto& job : jobs) job->cancel = true;
    for (auto& job : jobs)
        if (job->thread.joinable()) job->thread.join();
}

std::string Jobs::new_id() {
    static thread_local std::random_device device;
    return fmt::format("{:016x}{:016x}", uint64_t{device()} << 32 | device(),
                       uint64_t{device()} << 32 | device());
}

void Jobs::sweep() {
    const auto now = Clock::now();
    std::map<const Job*, bool> followed;  // by a ticket not withdrawn
    for (auto it = tickets_.begin(); it != tickets_.end();) {
        Ticket& t = it->second;
        bool running;
        Clock::time_point ended;
        {
            std::lock_guard job_lock(t.job->mutex);
            running = t.job->state == "running";
            ended = t.job->ended;
        }
        if (!t.withdrawn && running && now - t.seen > TICKET_IDLE) t.withdrawn = true;
        if ((!running && now - ended > KEPT_DONE) || (t.withdrawn && now - t.seen > KEPT_DONE)) {
            it = tickets_.erase(it);
            continue;
        }
        if (!t.withdrawn) followed[t.job.get()] = true;
        ++it;
    }
    for (auto it = running_.begin(); it != running_.end();) {
        std::lock_guard job_lock(it->second->mutex);
        if (it->second->state != "running" || !followed.count(it->second.get())) {
            it->second->cancel = true;
            it = running_.erase(it);
        } else {
            ++it;
        }
    }
    for (auto it = all_.begin(); it != all_.end();) {
        bool done;
        {
            std::lock_guard job_lock((*it)->mutex);
            done = (*it)->state != "running";
        }
        if (done) {
            (*it)->thread.join();  // it has set its state: it returns at once
            it = all_.erase(it);
        } else {
            ++it;
        }
    }
}

std::string Jobs::start(const std::string& key, uint64_t total, Work work) {
    std::lock_guard lock(mutex_);
    sweep();
    const std::string ticket = new_id();
    const auto too_many = [] {
        return http::Error(503,
                           "the server holds as many tickets for this work as it allows; try "
                           "again in a few seconds");
    };
    if (tickets_.size() >= MAX_TICKETS) throw too_many();
    if (const auto it = running_.find(key); it != running_.end()) {
        std::lock_guard job_lock(it->second->mutex);
        if (it->second->state == "running") {
            const auto held = std::count_if(tickets_.begin(), tickets_.end(), [&](const auto& t) {
                return t.second.job == it->second;
            });
            if (static_cast<size_t>(held) >= MAX_TICKETS_PER_JOB) throw too_many();
            tickets_[ticket] = {it->second, Clock::now(), false};
            return ticket;
        }
    }
    if (all_.size() >= MAX_RUNNING) {
        throw http::Error(503,
                          "the server is solving as many tables as it may at once; "
                          "try again in a few seconds");
    }
    auto job = std::make_shared<Job>();
    job->key = key;
    job->total = total;
    running_[key] = job;
    all_.push_back(job);
    tickets_[ticket] = {job, Clock::now(), false};
    job->thread = std::thread([job, work = std::move(work)] {
        std::string state = "done", error;
        nlohmann::json answer;
        try {
            answer =
                work([job] { return job->cancel.load(); }, [job](double p) { job->progress = p; });
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
        job->ended = Clock::now();
    });
    return ticket;
}

nlohmann::json Jobs::status(const std::string& ticket) {
    std::shared_ptr<Job> job;
    bool withdrawn;
    {
        std::lock_guard lock(mutex_);
        sweep();
        const auto it = tickets_.find(ticket);
        if (it == tickets_.end())
            throw http::Error(
                404, "no job " + ticket + " (it ended long ago, or the server was restarted)");
        it->second.seen = Clock::now();
        job = it->second.job;
        withdrawn = it->second.withdrawn;
    }
    std::lock_guard lock(job->mutex);
    if (withdrawn && job->state == "running") {
        return {{"state", "cancelled"},
                {"done", 0},
                {"total", job->total},
                {"error", "the solve was cancelled; nothing was written"}};
    }
    const double share = job->state == "done" ? 1.0 : job->progress.load();
    nlohmann::json j = {{"state", job->state},
                        {"done", static_cast<uint64_t>(share * double(job->total))},
                        {"total", job->total}};
    if (job->state == "done") j["answer"] = job->answer;
    if (!job->error.empty()) j["error"] = job->error;
    return j;
}

void Jobs::cancel(const std::string& ticket) {
    std::lock_guard lock(mutex_);
    const auto it = tickets_.find(ticket);
    if (it == tickets_.end()) throw http::Error(404, "no job " + ticket);
    it->second.withdrawn = true;
    const std::shared_ptr<Job> job = it->second.job;
    const bool followed = std::any_of(tickets_.begin(), tickets_.end(), [&](const auto& t) {
        return t.second.job == job && !t.second.withdrawn;
    });
    if (!followed) job->cancel = true;
}

}  // namespace nimtb::apps
