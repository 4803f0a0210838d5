/* semaphore_pool.c — three workers share a pool of UNITS (2) units, a POSIX counting semaphore: each takes a unit
 * (sem_wait) and gives it back (sem_post).
 *
 * traces (derived): a wait conflicts with every operation on the semaphore, two posts commute. So a trace is the
 * order of the three waits (3! = 6) and, for each post, the waits it comes between: with waits w1 < w2 < w3 of
 * workers A, B, C, A's post lies after w1 (3 places: before w2, before w3, after w3), B's after w2 (2 places), C's
 * after w3 (1); the third wait needs a unit back, so A's or B's post precedes it: 3·2 − 1 = 5. 6·5 = 30 traces, and
 * qpor's optimal mode explores each once with no sleep-set blocked execution (two posts are never ordered).
 * -DUNITS=1: the semaphore is a lock: the three critical sections in any order, 6 traces.
 * -DCOUNT: each worker counts itself in while it holds a unit (an atomic `inside`) and asserts that at most UNITS
 * are in: safe — and with -DUNITS=1 -DWRONG (the semaphore made with three units for a pool of one) it fails. qpor
 * only here: dfs needs 1.4 M executions for its 966 traces (942 with -DWRONG), qpor's optimal mode 966 (942).
 * -DLEAK: worker 0 keeps its unit; with UNITS=1 the workers after it wait for good. Traces (derived): the order in
 * which the waits succeed — 0 first (the others blocked), 1 or 2 and then 0 (the last one blocked), 1 and 2 and then
 * 0 (complete) in either order: 3 deadlocks (line 41) and 2 complete executions, 5 traces.
 *
 * expect: => verdict=safe errors=none traces=30 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=30 blocked=0 ssb=0 final_states=1
 * expect: --algo=qpor --alt=k1 => verdict=safe errors=none executions=30 blocked=0
 * expect: -DUNITS=1 => verdict=safe errors=none traces=6 blocked=0
 * expect: -DUNITS=1 --algo=qpor => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: -DCOUNT --algo=qpor => verdict=safe errors=none executions=966 ssb=0 final_states=1
 * expect: -DCOUNT -DUNITS=1 -DWRONG --algo=qpor => verdict=error errors=assertion@44 executions=942 ssb=0
 * expect: -DLEAK -DUNITS=1 => verdict=error errors=deadlock@41 traces=5
 * expect: -DLEAK -DUNITS=1 --algo=qpor => verdict=error errors=deadlock@41 executions=2 blocked=3 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#ifndef UNITS
#define UNITS 2
#endif

sem_t pool;
atomic_int inside;

void *worker(void *arg) {
    long id = (long)arg;
    sem_wait(&pool);
#ifdef COUNT
    atomic_fetch_add(&inside, 1);
    assert(atomic_load(&inside) <= UNITS);
    atomic_fetch_sub(&inside, 1);
#endif
#ifdef LEAK
    if (id == 0) return 0;
#endif
    sem_post(&pool);
    return 0;
}

int main(void) {
    pthread_t t[3];
#ifdef WRONG
    sem_init(&pool, 0, 3);
#else
    sem_init(&pool, 0, UNITS);
#endif
    for (long i = 0; i < 3; ++i) pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
    return 0;
}
