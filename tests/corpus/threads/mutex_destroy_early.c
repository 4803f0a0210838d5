/* mutex_destroy_early.c — main tears the shared lock down before it has joined the worker that uses it.
 *
 * Two workers count under one mutex; main joins the first, then destroys the mutex and only then joins the second.
 * If the second worker has not finished with the mutex, main destroys it while it is held (line 44), or the worker
 * locks a destroyed mutex (line 29): both pthread_misuse (POSIX leaves them undefined). While another thread may
 * still run, pthread_mutex_destroy is an event, dependent with every operation on the mutex (core/model/Events.def,
 * SyncDestroy), so every explorer orders it with the workers' locks and unlocks.
 * traces (derived): the destroy follows the first worker's section (main joined it); among the second worker's
 * lock and unlock it comes before the lock (the first worker's section came first; misuse at line 29), between them
 * (again after the first's section, which had to end before the destroy: misuse at line 44) or after the unlock
 * (no error; the two sections in either order): 1 + 1 + 2 = 4 traces; final_states=1 (count 2: the runs that end
 * in a misuse are not complete).
 * -DFIXED: main joins both workers first; the destroy is then no event (every other thread is joined by main):
 * 2 traces, safe.
 *
 * expect: => verdict=error errors=pthread_misuse@29,pthread_misuse@44 traces=4 final_states=1
 * expect: --algo=qpor => verdict=error errors=pthread_misuse@29,pthread_misuse@44 executions=4 ssb=0 final_states=1
 * expect: -DFIXED => verdict=safe errors=none traces=2 final_states=1
 * expect: -DFIXED --algo=qpor => verdict=safe errors=none executions=2 ssb=0 final_states=1
 * expect: -DFIXED --algo=vhb => verdict=safe errors=none final_states=1
 */
#include <pthread.h>

pthread_mutex_t lock;
int count;

void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    count++;
    pthread_mutex_unlock(&lock);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_mutex_init(&lock, 0);
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
#ifdef FIXED
    pthread_join(b, 0);
#endif
    pthread_mutex_destroy(&lock);
#ifndef FIXED
    pthread_join(b, 0);
#endif
    return 0;
}
