/* ticket_lock.c — SV-COMP's pthread-ext/48_ticket_lock_low_contention, the "48_ticket_lock(n)" row of Table 1 of
 * Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19): a family where
 * the value-centric partitioning gives no reduction (the paper reports 6, 204, 41,400 classes for n = 2, 3, 4 for
 * every algorithm).
 *
 * N threads each take the ticket lock once: an atomic fetch-and-increment of next_ticket draws a ticket, the
 * thread spins until now_serving equals it, runs the critical section (increment, check and decrement a plain
 * int `c`: an overlap fails the assertion and races) and releases by storing its ticket + 1 to now_serving.
 * (SV-COMP's version wraps the tickets modulo a small bound and draws them in a __VERIFIER_atomic_ function; with
 * one acquisition per thread the wrap never happens, so it is left out.) The spin only reads (spin-assume:
 * blocked executions, no bound). Every ticket and every now_serving value is distinct: nothing for a
 * value-centric method to merge. Expected: safe. N is the scaling parameter (default 2).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): N! (the order in
 * which the threads draw their tickets): N=2: 2, N=3: 6 (dfs: 479,887 executions), N=4: 24 (qpor).
 *
 * expect: => verdict=safe errors=none executions=369 traces=2 blocked=140
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=2 ssb=0
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=6 blocked=24 ssb=0
 * expect: --algo=qpor -DN=4 => verdict=safe errors=none executions=24 blocked=312 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 2
#endif

atomic_uint next_ticket;
atomic_uint now_serving;
int c;

void *thr(void *arg) {
    (void)arg;
    unsigned my = atomic_fetch_add(&next_ticket, 1);
    while (now_serving != my)
        ; /* spin */
    c++; /* critical section */
    assert(c == 1);
    c--;
    now_serving = my + 1;
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++) pthread_create(&t[i], 0, thr, 0);
    for (int i = 0; i < N; i++) pthread_join(t[i], 0);
    return 0;
}
