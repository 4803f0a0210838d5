/* posix_spinlock.c — two workers increment `x` under a pthread_spinlock_t.
 *
 * A POSIX spin lock is a mutex whose waiters spin instead of sleeping: the same interleavings and outcomes, so Skein
 * takes pthread_spin_lock/trylock/unlock as a mutex's operations (and pthread_spin_init/destroy, whose second
 * argument is `pshared`, as nothing to do).
 * traces (derived): the two critical sections in either order = 2; final_states=1 (x == 2).
 *
 * -DBUG: each worker forgets its unlock: the second worker to come waits for the lock for good — a deadlock at its
 * lock (line 26), in both orders.
 *
 * expect: => verdict=safe errors=none traces=2 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=2 blocked=0 final_states=1
 * expect: -DBUG => verdict=error errors=deadlock@26 traces=2
 * expect: -DBUG --algo=qpor => verdict=error errors=deadlock@26 blocked=2 ssb=0
 * expect: -DBUG --algo=vhb => verdict=error errors=deadlock@26
 */
#include <assert.h>
#include <pthread.h>

pthread_spinlock_t l;
int x;

void *worker(void *arg) {
    (void)arg;
    pthread_spin_lock(&l);
    x = x + 1;
#ifndef BUG
    pthread_spin_unlock(&l);
#endif
    return 0;
}

int main(void) {
    pthread_spin_init(&l, PTHREAD_PROCESS_PRIVATE);
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(x == 2);
    assert(pthread_spin_trylock(&l) == 0);
    pthread_spin_unlock(&l);
    pthread_spin_destroy(&l);
    return 0;
}
