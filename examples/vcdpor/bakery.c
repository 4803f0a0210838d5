/* bakery.c — Lamport's bakery algorithm (CACM 1974) for 2 threads, the mutual-exclusion family "lamport(n)" of
 * Table 3 of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19).
 *
 *   thread i:  choosing[i] = 1; number[i] = 1 + number[other]; choosing[i] = 0;
 *              await choosing[other] == 0;
 *              await number[other] == 0 || (number[other], other) > (number[i], i);
 *              critical section
 *              number[i] = 0;
 *
 * (max(number[0], number[1]) is 1 + number[other]: a thread's own number is 0 when it takes a ticket.) Ticket
 * values grow with ITERS but stay bounded by 2·ITERS. The waits only read (spin-assume: blocked executions).
 * Each thread enters ITERS times (-DITERS, the paper's scaling parameter; default 1). choosing[] and number[] are
 * C11 seq_cst atomics; the critical section reads a plain int `in_cs` (c = in_cs + 1), writes c, checks c == 1
 * and writes c - 1 (an overlap fails the assertion and races).
 * Value-centric angle: choosing[i] alternates 1/0 and number[i] = 0 is written at every exit.
 *
 * -DBUG drops the `choosing` doorway: both threads can read number[other] == 0 before either publishes its
 * ticket, both take ticket 1, and thread 1 — whose tie-break should make it wait — may already have passed
 * its check. Expected verdict: error (assertion, data races on in_cs).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions, measured): ITERS=1: 9; ITERS=2: 213,
 * ITERS=3: 5,289 (qpor only: dfs at ITERS=2 had found 50 traces after 7.6 M executions / 600 s); -DBUG,
 * ITERS=1: 21.
 *
 * expect: => verdict=safe errors=none executions=16757 traces=9 blocked=4439 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=9 blocked=13 ssb=0
 * expect: --algo=qpor -DITERS=2 => verdict=safe errors=none executions=213 blocked=351 ssb=0
 * expect: -DBUG => verdict=error errors=assertion@61,data_race@59,data_race@60,data_race@62 executions=1505 traces=21 blocked=235
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@61,data_race@59,data_race@60,data_race@62 executions=21 blocked=6 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ITERS
#define ITERS 1
#endif

atomic_int choosing[2];
atomic_int number[2];
int in_cs;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    for (int k = 0; k < ITERS; k++) {
#ifndef BUG
        choosing[me] = 1;
#endif
        int mine = 1 + number[other];
        number[me] = mine;
#ifndef BUG
        choosing[me] = 0;
        while (choosing[other] == 1)
            ; /* spin */
#endif
        int n;
        while ((n = number[other]) != 0 && (n < mine || (n == mine && other < me)))
            ; /* spin */
        int c = in_cs + 1; /* critical section: count ourselves in, check, count out */
        in_cs = c;
        assert(c == 1);
        in_cs = c - 1;
        number[me] = 0;
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
