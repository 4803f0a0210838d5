/* cond_timedwait.c — a worker waits up to a second for main's `ready`, with pthread_cond_timedwait.
 *
 * Skein does not model time (core/program/Program.h, kTimedCall): a timed wait first chooses to time out — it
 * unlocks the mutex and locks it again, and the other threads may run in between — or to wait until a signal ends
 * it. A wait no signal ends is no deadlock: that schedule is the timeout's. Main sets `ready` under the mutex and
 * does not signal.
 * traces (derived): whichever thread locks first. The worker first: it times out, and main's section runs between
 * its unlock and re-lock or after its own unlock — 2 traces; or it waits, for good (blocked). Main first: the worker
 * times out (1 trace) or waits for good (blocked). 3 traces, 2 blocked (dfs counts 5 traces: the blocked ones too);
 * one final state (`ready` is 1).
 *
 * -DBUG: the worker asserts `ready` after the wait, as if only a signal could end it — false when it times out
 *  before main's section (line 68).
 * -DSIGNAL: main signals after its section. The worker first: 2 traces that time out, and 1 that waits and is woken
 *  (main's section must follow the release). Main first: the worker times out (1), or waits before the signal (woken:
 *  1) or after it (lost: blocked). 5 traces, 1 blocked (dfs: 6).
 * -DLOOP: `while (!ready) pthread_cond_timedwait(...)`: an iteration that timed out and found `ready` still 0 changed
 *  nothing, and is cut (a spin loop: LowerInstr.cpp, isSpinLoop). What is left: main first, the worker finds `ready`
 *  set — 1 trace. (The worker first, timing out with main's section in the window, is the same loop exit.) The worker
 *  first waiting for good: blocked (dfs: 2 traces).
 * -DLOOP -DNOSET: main never sets `ready`: the worker polls for good (line 61) while main waits to join it.
 * -DLOOP -DPLAIN: pthread_cond_wait, which only a signal ends: the worker first waits for good, and main with it at
 *  its join (line 87: where a deadlock with no thread waiting for a mutex is reported, the first thread's place).
 * -DC11: cnd_timedwait, which answers thrd_timedout: as the default, 3 traces.
 *
 * expect: => verdict=safe errors=none traces=5 blocked=2 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=3 blocked=2 ssb=0 final_states=1
 * expect: --algo=vhb => verdict=safe errors=none
 * expect: -DBUG => verdict=error errors=assertion@68
 * expect: -DBUG --algo=qpor => verdict=error errors=assertion@68
 * expect: -DSIGNAL => verdict=safe errors=none traces=6
 * expect: -DSIGNAL --algo=qpor => verdict=safe errors=none executions=5 blocked=1 ssb=0
 * expect: -DLOOP => verdict=safe errors=none traces=2
 * expect: -DLOOP --algo=qpor => verdict=safe errors=none executions=1 ssb=0
 * expect: -DLOOP -DNOSET => verdict=error errors=deadlock@61
 * expect: -DLOOP -DNOSET --algo=qpor => verdict=error errors=deadlock@61
 * expect: -DLOOP -DPLAIN => verdict=error errors=deadlock@87
 * expect: -DLOOP -DPLAIN --algo=qpor => verdict=error errors=deadlock@87
 * expect: -DC11 => verdict=safe errors=none traces=5 blocked=2
 * expect: -DC11 --algo=qpor => verdict=safe errors=none executions=3 blocked=2 ssb=0
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <threads.h>
#include <time.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;

void *worker(void *arg) {
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    pthread_mutex_lock(&m);
#if defined(LOOP) && defined(PLAIN)
    while (!ready) pthread_cond_wait(&c, &m);
#elif defined(LOOP)
    while (!ready) pthread_cond_timedwait(&c, &m, &deadline);
#elif defined(C11)
    int r = cnd_timedwait((cnd_t *)&c, (mtx_t *)&m, &deadline);
    assert(r == thrd_timedout || ready);
#else
    int r = pthread_cond_timedwait(&c, &m, &deadline);
#ifdef BUG
    assert(ready);
#endif
    assert(r == ETIMEDOUT || ready);
#endif
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t w;
    pthread_create(&w, 0, worker, 0);
#ifndef NOSET
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_mutex_unlock(&m);
#endif
#ifdef SIGNAL
    pthread_cond_signal(&c);
#endif
    pthread_join(w, 0);
    return 0;
}
