/* sem_destroy_early.c — main tears down the semaphore it shares with a worker before it has joined the worker.
 *
 * The worker posts `done` once per item (two items); main waits for the first, destroys `done`, and only then joins
 * the worker. The worker's second post may come after the destroy: a post of a destroyed semaphore (line 32),
 * pthread_misuse (POSIX leaves it undefined). While another thread may still run, sem_destroy is an event, dependent
 * with every operation on the semaphore (core/model/Events.def, SyncDestroy), so dfs orders it with the worker's
 * posts; qpor and vhb hand the program to dfs (qpor derives a semaphore's count at a history from its
 * initialisation and operations): qpor alone stops with that limit, no verdict.
 * traces (derived): main's wait follows the first post; the second post comes before the wait (then the destroy
 * follows it: no error), or after it and before the destroy (no error) or after the destroy (misuse): 3 traces;
 * final_states=1.
 * -DFIXED: main waits for both items first. The destroy is still an event (the worker is not joined), and follows
 * both posts: the second post before or after main's first wait, 2 traces, safe.
 *
 * expect: => verdict=error errors=pthread_misuse@32 traces=3 final_states=1
 * expect: -DFIXED => verdict=safe errors=none traces=2 final_states=1
 * expect: --algo=qpor => verdict=bounded errors=none
 */
#include <pthread.h>
#include <semaphore.h>

#ifndef ITEMS
#define ITEMS 2
#endif

sem_t done;

void *worker(void *arg) {
    (void)arg;
    for (int i = 0; i < ITEMS; ++i) {
        /* ... the item's work ... */
        sem_post(&done);
    }
    return 0;
}

int main(void) {
    pthread_t t;
    sem_init(&done, 0, 0);
    pthread_create(&t, 0, worker, 0);
    sem_wait(&done);
#ifdef FIXED
    sem_wait(&done);
#endif
    sem_destroy(&done);
    pthread_join(t, 0);
    return 0;
}
