/* fib_bench_mutex.c — SV-COMP pthread fib_bench style: two threads grow a Fibonacci pair, one doing i += j, the other
 * j += i, N times each (default N=2), each update under one mutex; main checks after the joins that neither
 * value exceeds BOUND. reach_error() is defined in the file (abort()) and reached through __VERIFIER_assert.
 *
 * Starting from i = j = 1, the largest value any order can build is fib(2N+2), reached when the two threads
 * alternate: 8 for N=2, 21 for N=3. Default BOUND = fib(2N+2): expected verdict: safe. -DBUG sets BOUND one
 * lower: the alternating orders exceed it, so reach_error() is reachable: expected verdict: error (the
 * reach_error() call in __VERIFIER_assert).
 * traces (derived): every update is one critical section of the same mutex, so a trace is an order of the 2N
 * sections that keeps each thread's own order: C(2N, N) = 6 for N=2, 20 for N=3. Each order ends in a distinct
 * (i, j) (for N=2: (3,7) (5,7) (5,8) (7,3) (7,5) (8,5)), so final_states = C(2N, N).
 * -DBUG (N=2): the two alternating orders, ending in (5,8) and (8,5), fail in main after the joins (its last
 * step, so they are still complete executions of their own trace): 6 traces, 4 final states.
 * -DRACY: the updates run without the mutex, as in the original benchmark: per iteration t1 reads i, reads j,
 * writes i; t2 reads j, reads i, writes j. The accesses race (data_race on i and on j, between the two update
 * lines). Mazurkiewicz traces of two such straight-line threads of 6 events (dependent: same variable, one a
 * write), counted by brute force over the C(12,6) = 924 interleavings: 19, with 16 distinct final (i, j) (the
 * figures of examples/vhb/fib_bench.c, whose atomics do the same without a modulus). A stale read only makes a
 * sum smaller, so the bound still holds: with --no-race-detection the verdict is safe.
 *
 * expect: => verdict=safe errors=none executions=171 traces=6 blocked=0 final_states=6
 * expect: --algo=qpor => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=6 blocked=0 final_states=6
 * expect: -DBUG => verdict=error errors=assertion@43 executions=171 traces=6 blocked=0 final_states=4
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@43 executions=6 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@43 executions=6 blocked=0 final_states=4
 * expect: -DN=3 => verdict=safe errors=none executions=645 traces=20 blocked=0 final_states=20
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=20 blocked=0 ssb=0
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=20 blocked=0 final_states=20
 * expect: -DRACY --no-race-detection => verdict=safe errors=none executions=3431 traces=19 blocked=0 final_states=16
 * expect: --algo=qpor -DRACY --no-race-detection => verdict=safe errors=none executions=19 blocked=0 ssb=0
 * expect: --algo=vhb -DRACY --no-race-detection => verdict=safe errors=none executions=19 blocked=0 final_states=16
 * expect: -DRACY => verdict=error errors=data_race@82 executions=3431 traces=19 blocked=0 final_states=16
 * expect: --algo=qpor -DRACY => verdict=error errors=data_race@82 executions=19 blocked=0 ssb=0
 * expect: --algo=vhb -DRACY => verdict=error errors=data_race@82 executions=19 blocked=0 final_states=16
 */
#include <pthread.h>

extern void abort(void);
void reach_error() { abort(); }
void __VERIFIER_assert(int cond) {
    if (!cond) {
        reach_error();
    }
}

#ifndef N
#define N 2
#endif
#if N == 3
#define FIB 21
#else
#define FIB 8
#endif
#ifdef BUG
#define BOUND (FIB - 1)
#else
#define BOUND FIB
#endif

int i = 1, j = 1;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *t1(void *arg) {
    for (int k = 0; k < N; k++) {
#ifndef RACY
        pthread_mutex_lock(&m);
#endif
        i = i + j;
#ifndef RACY
        pthread_mutex_unlock(&m);
#endif
    }
    return 0;
}

void *t2(void *arg) {
    for (int k = 0; k < N; k++) {
#ifndef RACY
        pthread_mutex_lock(&m);
#endif
        j = j + i;
#ifndef RACY
        pthread_mutex_unlock(&m);
#endif
    }
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    __VERIFIER_assert(i <= BOUND && j <= BOUND);
    return 0;
}
