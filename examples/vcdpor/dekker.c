/* dekker.c — Dekker's mutual exclusion for 2 threads (as given by Knuth 1966), the "dekker(n)" row of Table 3
 * of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19).
 *
 *   entry:  flag[me] = 1;
 *           while (flag[other] == 1)
 *               if (turn != me) { flag[me] = 0; while (turn != me); flag[me] = 1; }
 *   exit:   turn = other; flag[me] = 0;
 *
 * The outer loop stores, so it is no spin loop for Skein's spin-assume and would need an unroll bound. It is
 * written here in an equivalent bounded form: while a thread is in its entry section, `turn` can only be set to
 * `me` (by the other thread's exit), so once `turn == me` holds it keeps holding, the back-off branch runs at
 * most once per entry, and every later iteration of the outer loop only re-reads flag[other]:
 *
 *           if (flag[other] == 1) {
 *               if (turn != me) { flag[me] = 0; while (turn != me); flag[me] = 1; }
 *               while (flag[other] == 1);          (turn == me from here on)
 *           }
 *
 * Both inner loops only read (spin-assume: blocked executions, no bound needed). Each thread enters ITERS times
 * (-DITERS, the paper's scaling parameter; default 1). flag[] and turn are C11 seq_cst atomics; the critical
 * section reads a plain int `in_cs` (c = in_cs + 1), writes c, checks c == 1 and writes c - 1 (an overlap fails the
 * assertion and races).
 * Value-centric angle: flag[me] = 1 is rewritten after every back-off and at every entry. Expected: safe.
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions, measured): ITERS=1: 8; ITERS=2: 230,
 * ITERS=3: 6,993 (qpor only: dfs at ITERS=2 had found 92 traces after 10.8 M executions / 240 s).
 *
 * expect: => verdict=safe errors=none executions=7564 traces=8 blocked=751 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=8 blocked=10 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=230 blocked=379 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITERS
#define ITERS 1
#endif

atomic_int flag[2];
atomic_int turn;
int in_cs;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    for (int k = 0; k < ITERS; k++) {
        flag[me] = 1;
        if (flag[other] == 1) {
            if (turn != me) {
                flag[me] = 0;
                while (turn != me)
                    ; /* spin */
                flag[me] = 1;
            }
            while (flag[other] == 1)
                ; /* spin */
        }
        int c = in_cs + 1; /* critical section: count ourselves in, check, count out */
        in_cs = c;
        assert(c == 1);
        in_cs = c - 1;
        turn = other;
        flag[me] = 0;
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
