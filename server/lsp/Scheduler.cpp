#include "server/lsp/Scheduler.h"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace skein::lsp {

Scheduler::Scheduler(unsigned poolSize, unsigned concurrency) : concurrency_(std::max(1u, concurrency)) {
    poolSize = std::max(1u, poolSize);
    for (unsigned i = 0; i < poolSize; ++i)
        pool_.emplace_back([this](std::stop_token st) { workerLoop(st); });
}

Scheduler::~Scheduler() {
    {
        std::lock_guard lock(mutex_);
        for (auto& [key, q] : queues_) {
            q.pending.reset();
            if (q.cancel) q.cancel->store(true);
        }
    }
    for (auto& t : pool_) t.request_stop();
    changed_.notify_all();
    pool_.clear(); // joins
}

void Scheduler::schedule(const std::string& key, Task task, std::chrono::milliseconds delay) {
    {
        std::lock_guard lock(mutex_);
        Queue& q = queues_[key];
        q.pending = std::move(task);
        q.due = Clock::now() + delay;
        if (q.running && q.cancel) q.cancel->store(true);
        ++changes_;
    }
    changed_.notify_all();
}

bool Scheduler::cancel(const std::string& key) {
    bool any = false;
    {
        std::lock_guard lock(mutex_);
        auto it = queues_.find(key);
        if (it == queues_.end()) return false;
        Queue& q = it->second;
        any = q.pending.has_value() || q.running;
        q.pending.reset();
        if (q.running && q.cancel) q.cancel->store(true);
        if (!q.running) queues_.erase(it);
        ++changes_;
    }
    changed_.notify_all();
    return any;
}

void Scheduler::setConcurrency(unsigned n) {
    {
        std::lock_guard lock(mutex_);
        concurrency_ = std::max(1u, std::min<unsigned>(n, unsigned(pool_.size())));
        ++changes_;
    }
    changed_.notify_all();
}

size_t Scheduler::running() const {
    std::lock_guard lock(mutex_);
    return running_;
}

bool Scheduler::waitIdle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return queues_.empty(); });
}

void Scheduler::workerLoop(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
        // The ready task that has waited longest, if a slot is free.
        auto now = Clock::now();
        std::optional<Clock::time_point> nextDue;
        Queue* pick = nullptr;
        std::string pickKey;
        if (running_ < concurrency_)
            for (auto& [key, q] : queues_) {
                if (!q.pending || q.running) continue;
                if (q.due <= now) {
                    if (!pick || q.due < pick->due) pick = &q, pickKey = key;
                } else if (!nextDue || q.due < *nextDue) {
                    nextDue = q.due;
                }
            }
        if (!pick) {
            // Sleep until something changes, the next debounce deadline passes, or the pool stops.
            uint64_t seen = changes_;
            auto changed = [&] { return changes_ != seen; };
            if (nextDue)
                changed_.wait_until(lock, stop, *nextDue, changed);
            else
                changed_.wait(lock, stop, changed);
            continue;
        }
        Task task = std::move(*pick->pending);
        pick->pending.reset();
        pick->running = true;
        auto flag = std::make_shared<std::atomic<bool>>(false);
        pick->cancel = flag;
        ++running_;
        lock.unlock();
        try {
            task(*flag);
        } catch (const std::exception& e) {
            // A task must not take the server down; the checker reports its own failures, so this is a bug: say it
            // where the client's log shows it (stderr).
            std::fprintf(stderr, "skein lsp: a check of %s failed: %s\n", pickKey.c_str(), e.what());
        } catch (...) {
            std::fprintf(stderr, "skein lsp: a check of %s failed\n", pickKey.c_str());
        }
        task = nullptr; // destroy captures outside the lock
        lock.lock();
        --running_;
        auto it = queues_.find(pickKey);
        if (it != queues_.end()) {
            it->second.running = false;
            it->second.cancel.reset();
            if (!it->second.pending) queues_.erase(it);
        }
        ++changes_;
        changed_.notify_all();
    }
}

} // namespace skein::lsp
