/* peterson.c — Peterson's mutual exclusion for two threads, with C11 sequentially consistent atomics.
 *
 * flag[] and turn are `_Atomic int`, so every access is a seq_cst atomic access and the algorithm is correct
 * (it is NOT correct with plain ints on real hardware/compilers; under Skein's sequential consistency plain ints
 * would behave the same but be reported as data races — that is why they are atomic here). The critical section
 * updates a plain int `in_cs`: Skein's race detector orders the two critical sections through the atomic
 * write -> atomic read synchronisation (flag[me] = 0 read by the waiting thread), so no data race is reported.
 * Expected verdict: safe. Each thread enters ITERS times (-DITERS=N; default 1).
 *
 * The busy-wait `while (flag[other] && turn == other)` only reads, so Skein replaces a second iteration by an
 * assume of the exit condition (spin-assume): an execution in which the waiting thread checks too early is cut
 * and counted as blocked (hence blocked > 0); the complete executions are those where every check passes first
 * time, i.e. the waiter's check is scheduled after the write that releases it.
 *
 * traces (derived, ITERS=1): (a) T0 checks flag[1] before T1 sets it: T0 enters; T1 wrote turn last, so it
 * must read flag[0] == 0 after T0's exit: 1 trace. (b) symmetric: 1. (c) both flags are set before either check:
 * the thread that wrote turn last waits (it passes only by reading the other's flag[other] == 0 after its exit),
 * the other reads flag = 1 and then turn != other: 1 trace for each of the 2 orders of the turn writes.
 * Total 4 traces; final_states=2 (turn ends 0 or 1). -DITERS=2 has 48 traces but ~1.7M executions under dfs
 * (a benchmark size, not a corpus one).
 *
 * expect: => verdict=safe errors=none executions=1535 traces=4 blocked=2290 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=6 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITERS
#define ITERS 1
#endif

atomic_int flag[2];
atomic_int turn;
int in_cs = 0;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    for (int k = 0; k < ITERS; k++) {
        flag[me] = 1;
        turn = other;
        while (flag[other] == 1 && turn == other)
            ; /* spin */
        in_cs++;                /* critical section */
        assert(in_cs == 1);
        in_cs--;
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
