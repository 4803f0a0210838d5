/* burns.c — Burns' one-bit mutual exclusion (Burns and Lynch 1980) for 2 threads, the "burns(n)" row of Table 3
 * of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19) — the row with
 * the largest value-centric reduction (381 classes against 140,380 traces at n = 4 in the paper).
 *
 * Thread i (one bit flag[i] each):
 *
 *   retry: flag[i] = 0; for j < i: await flag[j] == 0;
 *          flag[i] = 1; for j < i: if (flag[j] == 1) goto retry;
 *          for j > i: await flag[j] == 0;
 *   critical section
 *   flag[i] = 0;
 *
 * With two threads, thread 0 never retries (no lower id) and thread 1 never waits for a higher id. Thread 1's
 * retry loop stores, so it is not a spin loop, but it is bounded by the program itself: a retry needs a fresh
 * flag[0] = 1 of thread 0 after thread 1 saw flag[0] == 0, so thread 1 retries at most ITERS times. The waits
 * only read (spin-assume). Each thread enters ITERS times (-DITERS, the paper's scaling parameter; default 1).
 * flag[] is a C11 seq_cst atomic; the critical section reads a plain int `in_cs` (c = in_cs + 1), writes c,
 * checks c == 1 and writes c - 1 (an overlap fails
 * the assertion and races).
 * Value-centric angle: every attempt starts with flag[i] = 0, almost always a same-value write.
 * Expected: safe.
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions, measured): ITERS=1: 11; ITERS=2: 389
 * (dfs: 1,556,667 executions); ITERS=3: 15,994 (qpor).
 *
 * expect: => verdict=safe errors=none executions=1532 traces=11 blocked=353 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=11 blocked=11 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=389 blocked=446 ssb=0
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
    int me = (int)(long)arg;
    for (int k = 0; k < ITERS; k++) {
        if (me == 0) {
            flag[0] = 0;
            flag[0] = 1;
            while (flag[1] == 1)
                ; /* spin: wait for the higher id */
        } else {
            for (;;) {
                flag[1] = 0;
                while (flag[0] == 1)
                    ; /* spin: wait for the lower id */
                flag[1] = 1;
                if (flag[0] == 0) break;
            }
        }
        int c = in_cs + 1; /* critical section: count ourselves in, check, count out */
        in_cs = c;
        assert(c == 1);
        in_cs = c - 1;
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
