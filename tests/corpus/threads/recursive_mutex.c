/* recursive_mutex.c — two workers relock a mutex made recursive with pthread_mutexattr_settype.
 *
 * A recursive mutex relocked by its owner only counts the extra lock, and only the last unlock releases it. Before
 * the twenty-third session Skein refused recursive mutexes (verdict bounded); before the twenty-first,
 * pthread_mutexattr_settype was a no-op and the relock was reported as a deadlock — a wrong verdict.
 * Whether a thread holds a mutex is up to that thread alone, so the relocks and inner unlocks are its own steps, not
 * events: each worker has two mutex events (the outer lock, the last unlock) and reads and writes `x` between them.
 * traces (derived): the two critical sections in either order = 2 (everything else is ordered by them or local);
 * final_states=1 (x == 2).
 *
 * -DSTATIC: the same mutex from PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP (glibc's static initializer) instead of
 * pthread_mutex_init: the same results.
 * -DTRYLOCK: the inner lock is a pthread_mutex_trylock, which the owner of a recursive mutex always gets: the same.
 * -DBUG: each worker unlocks once: the first worker to lock ends holding the mutex, the other waits for it forever —
 * a deadlock at the other worker's lock (line 47), in both orders.
 * -DNORMAL: no attribute: a normal mutex, whose relock by its owner blocks for good — a deadlock
 * at the relock (line 51), and one at the other worker's outer lock (line 47) when it waits for the stuck one.
 *
 * expect: => verdict=safe errors=none executions=26 traces=2 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=2 blocked=0 final_states=1
 * expect: -DSTATIC => verdict=safe errors=none traces=2 blocked=0 final_states=1
 * expect: -DSTATIC --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: -DTRYLOCK => verdict=safe errors=none traces=2 blocked=0 final_states=1
 * expect: -DTRYLOCK --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: -DTRYLOCK --algo=vhb => verdict=safe errors=none executions=2 blocked=0 final_states=1
 * expect: -DBUG => verdict=error errors=deadlock@47 traces=2
 * expect: -DBUG --algo=qpor => verdict=error errors=deadlock@47 blocked=2 ssb=0
 * expect: -DBUG --algo=vhb => verdict=error errors=deadlock@47
 * expect: -DNORMAL => verdict=error errors=deadlock@47,deadlock@51
 * expect: -DNORMAL --algo=qpor => verdict=error errors=deadlock@47,deadlock@51
 * expect: -DNORMAL --algo=vhb => verdict=error errors=deadlock@47,deadlock@51
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>

#ifdef STATIC
pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
#else
pthread_mutex_t m;
#endif
int x;

void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
#ifdef TRYLOCK
    assert(pthread_mutex_trylock(&m) == 0);
#else
    pthread_mutex_lock(&m);
#endif
    x = x + 1;
    pthread_mutex_unlock(&m);
#ifndef BUG
    pthread_mutex_unlock(&m);
#endif
    return 0;
}

int main(void) {
#ifndef STATIC
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifndef NORMAL
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
#endif
    pthread_mutex_init(&m, &attr);
#endif
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(x == 2);
    return 0;
}
