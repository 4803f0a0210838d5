#include "core/explore/dfs/Dfs.h"

#include <unordered_set>

#include "core/explore/RaceDetector.h"

namespace skein::explore::dfs {

using exec::ExecStatus;
using model::Event;
using model::EventKind;
using model::ThreadId;

uint64_t mazurkiewiczHash(const std::vector<Event>& events) {
    const size_t n = events.size();
    std::vector<std::vector<uint32_t>> succ(n);
    std::vector<uint32_t> preds(n, 0);
    auto edge = [&](size_t a, size_t b) {
        succ[a].push_back(uint32_t(b));
        preds[b]++;
    };
    std::vector<int64_t> lastOfThread, createOf;
    for (size_t j = 0; j < n; ++j) {
        const Event& e = events[j];
        if (lastOfThread.size() <= e.tid) lastOfThread.resize(e.tid + 1, -1), createOf.resize(e.tid + 1, -1);
        if (lastOfThread[e.tid] >= 0) edge(size_t(lastOfThread[e.tid]), j);
        else if (createOf[e.tid] >= 0) edge(size_t(createOf[e.tid]), j);
        lastOfThread[e.tid] = int64_t(j);
        if (e.kind == EventKind::ThreadCreate) {
            if (createOf.size() <= e.value) createOf.resize(e.value + 1, -1), lastOfThread.resize(e.value + 1, -1);
            createOf[e.value] = int64_t(j);
        }
        if (e.kind == EventKind::ThreadJoin && e.value < lastOfThread.size() && lastOfThread[e.value] >= 0)
            edge(size_t(lastOfThread[e.value]), j);
        for (size_t i = 0; i < j; ++i)
            if (events[i].tid != e.tid && model::dependent(events[i], e)) edge(i, j);
    }
    // Lexicographically least topological order by thread id.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    std::vector<uint32_t> ready;
    for (size_t i = 0; i < n; ++i)
        if (preds[i] == 0) ready.push_back(uint32_t(i));
    for (size_t done = 0; done < n; ++done) {
        size_t best = 0;
        for (size_t k = 1; k < ready.size(); ++k)
            if (events[ready[k]].tid < events[ready[best]].tid) best = k;
        uint32_t e = ready[best];
        ready.erase(ready.begin() + long(best));
        const Event& ev = events[e];
        mix(ev.tid);
        mix(uint64_t(ev.kind));
        if (ev.kind == EventKind::Nondet || ev.kind == EventKind::CondSignal) mix(ev.value);
        for (uint32_t s : succ[e])
            if (--preds[s] == 0) ready.push_back(s);
    }
    return h;
}

namespace {

struct Node {
    std::vector<report::Decision> options;
    size_t next = 0;
};

} // namespace

report::CheckResult explore(const program::Program& p, const ExploreOptions& opts, Observer* obs) {
    report::CheckResult result;
    result.algorithm = "dfs";
    report::Stats& st = result.stats;
    RunClock clock(opts);
    ErrorCollector errors(opts, obs);
    exec::Executor ex(p, opts.exec);
    RaceDetector races;
    std::unordered_set<uint64_t> traces, finals;
    std::vector<Node> stack;
    std::vector<report::Decision> schedule;
    bool stop = false;
    RunLog runs;

    for (;;) {
        ex.reset();
        races.reset();
        schedule.clear();
        size_t depth = 0;
        for (;;) {
            if (ex.status() != ExecStatus::Running) break;
            // Options at this state. A thread-local choice (nondet) commutes with everything: resolve it first,
            // without interleaving alternatives — unless drawing it starts an atomic section, which then runs
            // before every other thread: that is a scheduling choice like any other event.
            std::vector<report::Decision> options;
            size_t nt = ex.numThreads();
            for (ThreadId t = 0; t < nt && options.empty(); ++t)
                if (ex.enabled(t) && ex.thread(t).pending.kind == EventKind::Nondet &&
                    (!ex.inAtomicSection(t) || ex.exclusiveThread() == t))
                    for (uint32_t c = 0; c < ex.thread(t).choices; ++c) options.push_back({t, c});
            if (options.empty())
                for (ThreadId t = 0; t < nt; ++t)
                    if (ex.enabled(t))
                        for (uint32_t c = 0; c < ex.thread(t).choices; ++c) options.push_back({t, c});
            if (options.empty()) break;
            report::Decision d;
            if (depth < stack.size()) {
                d = stack[depth].options[stack[depth].next];
            } else {
                stack.push_back({std::move(options), 0});
                d = stack.back().options[0];
            }
            ++depth;
            schedule.push_back(d);
            ex.step(d.thread, d.choice);
            ++st.events;
        }
        runs.noteRun(ex, result);

        if (collectErrors(errors, opts.detectRaces ? &races : nullptr, ex, schedule)) stop = true;
        if (runs.count(ex, st)) stop = true; // Unsupported: the program cannot be checked
        // The Mazurkiewicz traces: of complete executions, errors and deadlocks (Running: no thread enabled and
        // the live ones wait — a deadlock, reported above, unless it is a blocked atomic section).
        const ExecStatus status = ex.status();
        if (status == ExecStatus::Finished || status == ExecStatus::Error ||
            (status == ExecStatus::Running && ex.exclusiveThread() == model::kNoThread))
            traces.insert(mazurkiewiczHash(ex.trace()));
        if (status == ExecStatus::Finished) finals.insert(ex.finalStateHash());

        st.mazurkiewiczTraces = traces.size();
        if (!stop && clock.afterExecution(result, obs)) stop = true;
        if (stop) {
            if (errors.limitReached() || opts.stopOnFirstError) result.stoppedEarly = true;
            break;
        }
        // Backtrack: the deepest node with an untried option.
        while (!stack.empty() && stack.back().next + 1 >= stack.back().options.size()) stack.pop_back();
        if (stack.empty()) break;
        stack.back().next++;
    }

    runs.addBoundsTo(result);
    st.mazurkiewiczTraces = traces.size();
    st.finalStates = finals.size();
    st.elapsedMs = clock.elapsedMs();
    st.peakRssKb = currentPeakRssKb();
    result.errors = errors.take();
    result.verdict = report::computeVerdict(result);
    return result;
}

} // namespace skein::explore::dfs
