/* sigma_nondet.c — SV-COMP pthread sigma style with a nondeterministic number of threads: main draws
 * n = __VERIFIER_nondet_int(), bounds it with __VERIFIER_assume(1 <= n && n <= MAXT) (MAXT=3), mallocs an int
 * array of n slots and a VLA of n pthread_t, starts n threads that each set their own slot to 1, joins them and
 * checks (reach_error() through __VERIFIER_assert) that the slots sum to n.
 *
 * Default: thread k gets k as its argument and writes array[k]: the writes touch distinct slots, so they are
 * independent of each other: one trace per value of n. Expected verdict: safe on every n — reported as bounded,
 * as the nondet values come from a sampled domain (--nondet). With --nondet=0..4 the assume cuts n = 0 and n = 4
 * (blocked=2) and n = 1, 2, 3 give 3 traces and 3 final states (arrays of different sizes). With the default
 * domain {0, 1}: n = 0 blocked, n = 1 one trace.
 * -DBUG (sigma_false): threads get no argument and write array[array_index], the index main's creation loop
 * moves on (array_index++ right after each create). A thread that reads the index late writes a slot another
 * thread writes too (data race on it; the sum falls short: reach_error) or, reading n, writes past the array's
 * end (memory error, out of bounds, and again the sum falls short); the read of array_index races with main's
 * increment. Expected verdict: error: assertion (in __VERIFIER_assert), data_race, memory. Run with MAXT=2 and
 * --nondet=0..3 (n = 0, 3 blocked): n = 1: the thread reads the index before or after main's increment: 2
 * traces; n = 2: 7 traces (brute force over a model of main's loop — a write of the index, then per thread
 * create, read and write of the index, read for the loop test — and the threads' read of the index and slot
 * write): 9 traces; the executions that complete without an error are the ones where every thread read its
 * own index: one per n, final_states=2.
 *
 * expect: --nondet=0..4 => verdict=bounded errors=none executions=1141 traces=3 blocked=2 final_states=3
 * expect: --algo=qpor --nondet=0..4 => verdict=bounded errors=none executions=3 blocked=2 ssb=0
 * expect: --algo=vhb --nondet=0..4 => verdict=bounded errors=none executions=3 blocked=2 final_states=3
 * expect: => verdict=bounded errors=none executions=1 traces=1 blocked=1 final_states=1
 * expect: --algo=qpor => verdict=bounded errors=none executions=1 blocked=1 ssb=0
 * expect: --algo=vhb => verdict=bounded errors=none executions=1 blocked=1 final_states=1
 * expect: -DMAXT=2 --nondet=0..3 -DBUG => verdict=error errors=assertion@38,data_race@49,memory@49 executions=6786 traces=9 blocked=2 final_states=2
 * expect: --algo=qpor -DMAXT=2 --nondet=0..3 -DBUG => verdict=error errors=assertion@38,data_race@49,memory@49 executions=9 blocked=2 ssb=0
 * expect: --algo=vhb -DMAXT=2 --nondet=0..3 -DBUG => verdict=error errors=assertion@38,data_race@49,memory@49 executions=8 blocked=2 final_states=2
 */
#include <pthread.h>
#include <stdlib.h>

extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
void reach_error(void) { abort(); }
void __VERIFIER_assert(int c) { if (!c) reach_error(); }

#ifndef MAXT
#define MAXT 3
#endif

int *array;
int array_index = 0;

void *thread(void *arg) {
#ifdef BUG
    array[array_index] = 1; /* sigma_false: the slot is read from main's moving index */
#else
    int slot = (int)(long)arg;
    array[slot] = 1;
#endif
    return 0;
}

int main(void) {
    int n = __VERIFIER_nondet_int();
    __VERIFIER_assume(1 <= n && n <= MAXT);
    array = (int *)malloc(sizeof(int) * n);
    pthread_t t[n];
    for (int k = 0; k < n; k++)
        array[k] = 0;
#ifdef BUG
    for (array_index = 0; array_index < n; array_index++)
        pthread_create(&t[array_index], 0, thread, 0);
#else
    for (int k = 0; k < n; k++)
        pthread_create(&t[k], 0, thread, (void *)(long)k);
#endif
    for (int k = 0; k < n; k++)
        pthread_join(t[k], 0);
    int sum = 0;
    for (int k = 0; k < n; k++)
        sum += array[k];
    __VERIFIER_assert(sum == n);
    free(array);
    return 0;
}
