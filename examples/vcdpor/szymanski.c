/* szymanski.c — Szymanski's mutual exclusion (ICS'88) for 2 threads, the "szymanski(n)" row of Table 3 of
 * Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19) — the row where
 * the value-centric partitioning is almost as fine as Mazurkiewicz's.
 *
 * flag[i] in 0..4 (0: outside, 1: wants in, 2: waits for the doorway to close, 3: in the doorway, 4: doorway
 * closed). Thread i:
 *
 *   flag[i] = 1; await flag[other] < 3;
 *   flag[i] = 3; if (flag[other] == 1) { flag[i] = 2; await flag[other] == 4; }
 *   flag[i] = 4; (thread 1 only) await flag[0] < 2;          — wait for lower ids
 *   critical section
 *   (thread 0 only) await flag[1] < 2 || flag[1] > 3;        — let higher ids through the doorway
 *   flag[i] = 0;
 *
 * All waits only read (spin-assume: blocked executions, no loop bound). Each thread enters ITERS times
 * (-DITERS, the paper's scaling parameter; default 1). flag[] is a C11 seq_cst atomic; the critical section
 * reads a plain int `in_cs` (c = in_cs + 1), writes c, checks c == 1 and writes c - 1 (an overlap fails the
 * assertion and races).
 * A wait on two conditions of one variable reads it once per check (two reads can see two different values
 * and let thread 0 leave its exit wait wrongly: mutual exclusion then fails at ITERS=2). Expected: safe.
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions, measured): ITERS=1: 29; ITERS=2: 1,522
 * (qpor only: dfs at ITERS=2 had found 428 traces after 550,000 executions / 30 s).
 *
 * expect: => verdict=safe errors=none executions=6698 traces=29 blocked=4336 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=29 blocked=95 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=1522 blocked=5158 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITERS
#define ITERS 1
#endif

atomic_int flag[2];
int in_cs;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    for (int k = 0; k < ITERS; k++) {
        flag[me] = 1;
        while (flag[other] >= 3)
            ; /* spin */
        flag[me] = 3;
        if (flag[other] == 1) {
            flag[me] = 2;
            while (flag[other] != 4)
                ; /* spin */
        }
        flag[me] = 4;
        if (me == 1)
            while (flag[0] >= 2)
                ; /* spin */
        int c = in_cs + 1; /* critical section: count ourselves in, check, count out */
        in_cs = c;
        assert(c == 1);
        in_cs = c - 1;
        if (me == 0) {
            int f;
            while ((f = flag[1]) == 2 || f == 3) /* one read per check: two could see two different values */
                ; /* spin */
        }
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
