/* tsay.c — Tsay's two-thread mutual exclusion ("Deriving a scalable algorithm for mutual exclusion", DISC'98),
 * the "tsay(n)" row of Table 3 of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order
 * Reduction" (OOPSLA'19).
 *
 *   thread i:  intent[i] = 1; last = i;
 *              if (intent[other] == 1) await last != i;
 *              critical section
 *              intent[i] = 0; last = i;
 *
 * A Peterson variant in which the thread that wrote `last` last waits, and the exit writes `last = i` again to
 * release a waiting partner. The wait only reads (spin-assume: blocked executions). Each thread enters ITERS
 * times (-DITERS, the paper's scaling parameter; default 1). intent[] and last are C11 seq_cst atomics; the
 * critical section reads a plain int `in_cs` (c = in_cs + 1), writes c, checks c == 1 and writes c - 1 (an
 * overlap fails the assertion and races).
 * Value-centric angle: `last = i` at the exit and again at the next entry write the same value.
 * Expected: safe.
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions, measured): ITERS=1: 14; ITERS=2: 762,
 * ITERS=3: 43,112 (qpor only: dfs at ITERS=2 had found 170 traces after 630,000 executions / 30 s).
 *
 * expect: => verdict=safe errors=none executions=4278 traces=14 blocked=791 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=14 blocked=6 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=762 blocked=274 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITERS
#define ITERS 1
#endif

atomic_int intent[2];
atomic_int last;
int in_cs;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    for (int k = 0; k < ITERS; k++) {
        intent[me] = 1;
        last = me;
        if (intent[other] == 1)
            while (last == me)
                ; /* spin */
        int c = in_cs + 1; /* critical section: count ourselves in, check, count out */
        in_cs = c;
        assert(c == 1);
        in_cs = c - 1;
        intent[me] = 0;
        last = me;
    }
    return 0;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, 0, proc, (void *)0L);
    pthread_create(&t1, 0, proc, (void *)1L);
    pthread_join(t0, 0);
    pthread_join(t1, 0);
    return 0;
}
