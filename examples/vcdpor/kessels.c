/* kessels.c — Kessels' two-thread mutual exclusion, "Arbitration without common modifiable variables" (Acta
 * Informatica 1982), the "kessels(n)" row of Table 3 of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic
 * Partial Order Reduction" (OOPSLA'19).
 *
 * Peterson's algorithm with the shared `turn` split into two bits, each written by one thread only:
 *
 *   thread i:  q[i] = 1; r[i] = (r[other] + i) % 2;
 *              await !(q[other] == 1 && r[i] == (r[other] + i) % 2);
 *              critical section
 *              q[i] = 0;
 *
 * (thread 0 copies r[1] and waits while the bits are equal; thread 1 writes the complement of r[0] and waits
 * while they differ: whoever wrote its bit last waits.) The wait only reads (spin-assume: blocked executions).
 * Each thread enters ITERS times (-DITERS, the paper's scaling parameter; default 1). q[] and r[] are C11
 * seq_cst atomics; the critical section reads a plain int `in_cs` (c = in_cs + 1), writes c, checks c == 1 and
 * writes c - 1 (an overlap fails the assertion and races).
 * Value-centric angle: r[i] often gets the value it already has, q[i] = 1 is rewritten every round.
 * Expected: safe.
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions, measured): ITERS=1: 5; ITERS=2: 66
 * (dfs: 3,193,517 executions); ITERS=3: 912, ITERS=4: 12,990 (qpor).
 *
 * expect: => verdict=safe errors=none executions=1809 traces=5 blocked=3011 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=5 blocked=9 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=66 blocked=131 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITERS
#define ITERS 1
#endif

atomic_int q[2];
atomic_int r[2];
int in_cs;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    for (int k = 0; k < ITERS; k++) {
        q[me] = 1;
        int mine = (r[other] + me) % 2;
        r[me] = mine;
        while (q[other] == 1 && mine == (r[other] + me) % 2)
            ; /* spin */
        int c = in_cs + 1; /* critical section: count ourselves in, check, count out */
        in_cs = c;
        assert(c == 1);
        in_cs = c - 1;
        q[me] = 0;
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
