/* peterson.c — Peterson's mutual exclusion for 2 threads, the "peterson(n)" row of Table 3 (mutual-exclusion
 * benchmarks) of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19).
 *
 *   entry:  flag[me] = 1; turn = other; await !(flag[other] == 1 && turn == other);
 *   exit:   flag[me] = 0;
 *
 * Each thread enters the critical section ITERS times (-DITERS, the paper's scaling parameter; default 1).
 * flag[] and turn are C11 seq_cst atomics (the paper assumes sequential consistency; atomics keep the protocol
 * itself race-free). The critical section reads a plain int `in_cs` (c = in_cs + 1), writes c, checks c == 1 and
 * writes c - 1: a thread that enters while the other is inside reads 1 and fails the assertion, and the plain
 * accesses race. (Three events instead of ++/assert/-- keep the dfs oracle fast.) The busy-wait only reads, so
 * Skein's spin-assume cuts an iteration that would re-read (blocked executions): no loop bound is needed.
 * Value-centric angle: every entry rewrites flag[me] = 1 and turn = other with the values they had in the
 * previous round, so many writes are same-value writes.
 *
 * -DBUG writes turn before flag (the classic broken order): both threads can enter; expected verdict: error
 * (assertion at the check, data races on in_cs).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): ITERS=1: 4 (as in
 * ../peterson.c, derived there); ITERS=2: 48 (dfs: 245,774 executions); ITERS=3: 588, ITERS=4: 7,360 (qpor; the
 * count of the anchor peterson ITERS=4 under GenMC). -DBUG, ITERS=1: 30.
 *
 * expect: => verdict=safe errors=none executions=613 traces=4 blocked=952 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=6 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=48 blocked=88 ssb=0
 * expect: -DBUG => verdict=error errors=assertion@55,data_race@53,data_race@54,data_race@56 executions=2076 traces=30 blocked=978
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@55,data_race@53,data_race@54,data_race@56 executions=30 blocked=4 ssb=0
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
#ifdef BUG
        turn = other; /* BUG: must come after flag[me] = 1 */
        flag[me] = 1;
#else
        flag[me] = 1;
        turn = other;
#endif
        while (flag[other] == 1 && turn == other)
            ; /* spin */
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
