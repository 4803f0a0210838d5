#pragma once
// Per-document work queues with debounce, a bounded worker pool and cooperative cancellation (clangd's
// TUScheduler, reduced to what the checker needs). It knows nothing about checking: a task is a callable that
// polls its cancellation flag.
//
// Each key (a document URI) has at most one queued task and at most one running task. schedule() replaces the
// queued task (a newer version supersedes older queued work) and sets the running task's flag, so a running
// exploration stops at its next poll. At most `concurrency` tasks run at once, across all keys.
//
// Thread-safety: every public method may be called from any thread, including from a task (the Scheduler's
// lock is not held while a task runs). The destructor cancels and joins; it must not run on a pool thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace skein::lsp {

class Scheduler {
  public:
    using Clock = std::chrono::steady_clock;
    using Task = std::function<void(const std::atomic<bool>& cancelled)>;

    // `poolSize` threads are started; at most setConcurrency() of them run tasks at a time.
    explicit Scheduler(unsigned poolSize = 4, unsigned concurrency = 1);
    ~Scheduler(); // cancels running tasks, drops queued ones, joins the pool
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    // Queues `task` for `key` to start after `delay`, replacing any queued task of that key, and cancels the
    // key's running task.
    void schedule(const std::string& key, Task task, std::chrono::milliseconds delay);
    // Drops the key's queued task and cancels its running task. Returns true when there was something to
    // stop.
    bool cancel(const std::string& key);
    void setConcurrency(unsigned n);
    // Waits until no task is queued or running (tests and shutdown); false on timeout.
    bool waitIdle(std::chrono::milliseconds timeout);
    size_t running() const;

  private:
    struct Queue {
        std::optional<Task> pending;
        Clock::time_point due{};
        bool running = false;
        std::shared_ptr<std::atomic<bool>> cancel; // of the running task
    };
    void workerLoop(std::stop_token stop);

    mutable std::mutex mutex_;
    std::condition_variable_any changed_;
    std::map<std::string, Queue> queues_;
    unsigned concurrency_;
    size_t running_ = 0;
    uint64_t changes_ = 0; // bumped (under mutex_) with every notify, so a waiting worker sees any change
    std::vector<std::jthread> pool_;
};

} // namespace skein::lsp
