/* spin_deadlock.c — two threads take two spin locks in opposite orders (ABBA): each can end up holding one and
 * spinning for the other, for good. Expected verdict: error (deadlock).
 *
 * What it checks: an execution whose threads are all cut at spin loops or blocked is a deadlock when none of the
 * spinning ones could ever leave its loop: run on alone from the loop's header, each comes back to a spin cut having
 * only read and failed (exec::Executor::spinsForever; explore::terminalErrors). Spin-assume cuts every failed
 * attempt, so without this check the program would be reported safe with its deadlocked runs counted as blocked.
 * The deadlock is reported at the first spinning thread in the thread tree (thread 1, at its attempt on the lock
 * thread 2 holds), in every explorer. vhb stops at a thread cut after a read or failed attempt (a leaf: its
 * DESIGN.md, "Cut threads end a node"), so there the other thread is still able to run: it too must spin for good
 * when run on alone.
 * -DTTAS: test-and-test-and-set locks (a compare-exchange, then a read-only wait): the spinning thread is cut in the
 * inner wait, or at the outer loop's back edge after a wait that saw the lock free — the check runs the loop on
 * from where it was cut, and a wait that ended before the other thread released proves nothing.
 * -DTRYLOCK: pthread_mutex_trylock spins.
 * -DSAME_ORDER: both take a, then b: no deadlock. traces (derived): which thread takes a first (the other's
 * attempts on a fail until the release, and those runs are cut): 2 (vhb: 1 class — both orders read and write the
 * same values).
 * -DPARKED: thread 2 parks itself in a loop without any visible event (`for (;;);`, the halt SV-COMP files write
 * for an assume) instead of taking the locks, and main waits to join it: a thread parked on purpose waits for
 * nothing, so no deadlock is reported (the runs are blocked).
 * -DMAIN_RETURNS: thread 2 spins on a flag nobody sets, and main returns without joining it: the process ends, so
 * nothing spins forever. Expected verdict: safe.
 *
 * expect: => verdict=error errors=deadlock@58
 * expect: --algo=qpor => verdict=error errors=deadlock@58 ssb=0
 * expect: --algo=qpor --alt=sdpor => verdict=error errors=deadlock@58
 * expect: --algo=vhb => verdict=error errors=deadlock@58
 * expect: -DTTAS => verdict=error errors=deadlock@65
 * expect: --algo=qpor -DTTAS => verdict=error errors=deadlock@65 ssb=0
 * expect: --algo=vhb -DTTAS => verdict=error errors=deadlock@65
 * expect: -DTRYLOCK => verdict=error errors=deadlock@50
 * expect: --algo=qpor -DTRYLOCK => verdict=error errors=deadlock@50 ssb=0
 * expect: --algo=vhb -DTRYLOCK => verdict=error errors=deadlock@50
 * expect: -DSAME_ORDER => verdict=safe errors=none traces=2 final_states=1
 * expect: --algo=qpor -DSAME_ORDER => verdict=safe errors=none executions=2 ssb=0
 * expect: --algo=vhb -DSAME_ORDER => verdict=safe errors=none executions=1
 * expect: -DPARKED => verdict=safe errors=none executions=0
 * expect: --algo=qpor -DPARKED => verdict=safe errors=none executions=0
 * expect: -DMAIN_RETURNS => verdict=safe errors=none
 * expect: --algo=qpor -DMAIN_RETURNS => verdict=safe errors=none
 * expect: --algo=vhb -DMAIN_RETURNS => verdict=safe errors=none
 */
#include <pthread.h>
#include <stdatomic.h>

#ifdef TRYLOCK
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
void lock(pthread_mutex_t *m) {
    while (pthread_mutex_trylock(m))
        ;
}
void unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }
#else
atomic_int a, b;
void lock(atomic_int *l) {
#ifndef TTAS
    while (atomic_exchange(l, 1))
        ;
#else
    for (;;) {
        int expected = 0;
        if (atomic_compare_exchange_strong(l, &expected, 1))
            return;
        while (atomic_load(l) != 0)
            ;
    }
#endif
}
void unlock(atomic_int *l) { atomic_store(l, 0); }
#endif
atomic_int flag;

void *t1(void *arg) {
    (void)arg;
    lock(&a);
    lock(&b);
    unlock(&b);
    unlock(&a);
    return 0;
}

void *t2(void *arg) {
    (void)arg;
#if defined(PARKED)
    for (;;)
        ;
#elif defined(MAIN_RETURNS)
    while (atomic_load(&flag) == 0)
        ;
#elif defined(SAME_ORDER)
    lock(&a);
    lock(&b);
    unlock(&b);
    unlock(&a);
#else
    lock(&b);
    lock(&a);
    unlock(&a);
    unlock(&b);
#endif
    return 0;
}

int main(void) {
    pthread_t x, y;
    pthread_create(&x, 0, t1, 0);
    pthread_create(&y, 0, t2, 0);
#ifndef MAIN_RETURNS
    pthread_join(x, 0);
    pthread_join(y, 0);
#endif
    return 0;
}
