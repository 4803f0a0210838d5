/* late_sem_init.c — a semaphore initialised after the thread that posts it was created: the classic start-up bug.
 *
 * main starts a worker that signals "ready" with sem_post, then initialises the semaphore, then waits for the
 * signal. If the worker posts before main's sem_init, the initialisation sets the count back to 0: the unit is lost
 * and main waits for good (a deadlock, line 38). A late sem_init is an event, dependent with every operation on the
 * semaphore (core/model/Events.def, SyncInit), so every explorer orders it with the post.
 * traces (derived): the post before the initialisation (deadlock) or between it and the wait (the wait cannot come
 * first: the count is 0): 2 traces, 1 complete and 1 blocked.
 * -DFIXED: the semaphore is initialised before the create (no event then: no other thread can see it): 1 trace.
 * qpor derives a semaphore's count at a history from an initialisation every history holds: it hands the late
 * one to dfs, with a note (named explicitly, `--algo=qpor` stops with that limit: bounded, no verdict).
 *
 * expect: => verdict=error errors=deadlock@38 traces=2 executions=1 blocked=1
 * expect: -DFIXED => verdict=safe errors=none traces=1 final_states=1
 * expect: --algo=qpor => verdict=bounded errors=none
 * expect: -DFIXED --algo=qpor => verdict=safe errors=none executions=1 blocked=0 ssb=0
 */
#include <pthread.h>
#include <semaphore.h>

sem_t ready;

void *worker(void *arg) {
    (void)arg;
    sem_post(&ready);
    return 0;
}

int main(void) {
    pthread_t t;
#ifdef FIXED
    sem_init(&ready, 0, 0);
#endif
    pthread_create(&t, 0, worker, 0);
#ifndef FIXED
    sem_init(&ready, 0, 0);
#endif
    sem_wait(&ready);
    pthread_join(t, 0);
    return 0;
}
