/* indexer_cas.c — SV-COMP pthread indexer style: threads insert values into a shared open-addressing hash table
 * with compare-and-swap (__sync_bool_compare_and_swap), linear probing on a collision. T=2 threads insert M=2
 * values each (thread 0: 1, 2; thread 1: 3, 4) into SIZE=4 slots, hashed by w % 2 so that they collide (1 and 3
 * on slot 1, 2 and 4 on slot 0). Each thread asserts its probing ends within SIZE steps; main asserts after the
 * joins that every value is in the table exactly once (reach_error() through __VERIFIER_assert).
 *
 * Default: the CAS claims a slot atomically: expected verdict: safe.
 * traces (derived): each thread's inserts run in order, so all that varies is which thread's CAS takes slot 1
 * first and which takes slot 0 first (2 x 2); everything else follows (the loser of slot 1 finds slot 2 free
 * before its own second insert, a failed CAS reads a value already written): 4 traces, each leaving a distinct
 * table ({2,1,3,4}, {2,3,1,4}, {4,1,3,2}, {4,3,1,2}): final_states=4.
 * -DBUG: the slot is claimed with a plain test (`table[h] == 0`) and then a store: both threads can see slot 1 (or
 * slot 0) empty and both store into it, so one value is lost: main's check fails (and the tests and stores race:
 * data_race on the test line and on the store line). Expected verdict: error. traces: 16, counted by brute force
 * over a model of the two threads (reads and writes of the slots); 12 of them lose a value, the other 4 end in
 * the 4 tables above: final_states=4.
 * -DT=4 -DM=1 (four threads inserting 1, 2, 3, 4, one each; SIZE=4): now failed CASes of different threads meet
 * on a slot already taken. A failed compare-and-swap only reads, so two of them commute: 12 traces (dfs, and a
 * brute-force count over a model of the threads that takes a failed CAS as a read), 12 final tables. qpor once
 * took every CAS as a write, also one that fails, and explored 24 executions here with ssb=0 (the same model with
 * failed CASes as writes gives 24): since a failed compare-exchange is a read of the unfolding (unfolding/DESIGN.md,
 * "Compare-exchange") it explores the 12. -DT=3 -DSIZE=6 (three threads, two values each): 48 traces (the model;
 * dfs did not finish in 30 s), and qpor and vhb explore 48 (before: qpor 1464, the model's count with failed CASes
 * as writes). -DT=3 (six values, four slots): the table fills up and the probing assertion fails: 30 executions
 * (the model: 30; before: 768); expected verdict: error.
 *
 * expect: => verdict=safe errors=none executions=53 traces=4 blocked=0 final_states=4
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=4 blocked=0 final_states=4
 * expect: -DBUG => verdict=error errors=assertion@48,data_race@69,data_race@70 executions=460 traces=16 blocked=0 final_states=4
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@48,data_race@69,data_race@70 executions=16 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@48,data_race@69,data_race@70 executions=16 blocked=0 final_states=4
 * expect: -DBUG --no-race-detection => verdict=error errors=assertion@48 executions=460 traces=16 blocked=0 final_states=4
 * expect: --algo=qpor -DBUG --no-race-detection => verdict=error errors=assertion@48 executions=16 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG --no-race-detection => verdict=error errors=assertion@48 executions=16 blocked=0 final_states=4
 * expect: -DT=4 -DM=1 => verdict=safe errors=none executions=17333 traces=12 blocked=0 final_states=12
 * expect: --algo=qpor -DT=4 -DM=1 => verdict=safe errors=none executions=12 blocked=0 ssb=0
 * expect: --algo=vhb -DT=4 -DM=1 => verdict=safe errors=none executions=12 blocked=0 final_states=12
 * expect: --algo=qpor -DT=3 -DSIZE=6 => verdict=safe errors=none executions=48 blocked=0 ssb=0
 * expect: --algo=vhb -DT=3 -DSIZE=6 => verdict=safe errors=none executions=48 blocked=0 final_states=48
 * expect: --algo=qpor -DT=3 => verdict=error errors=assertion@48 executions=30 blocked=0 ssb=0
 * expect: --algo=vhb -DT=3 => verdict=error errors=assertion@48 executions=30 blocked=0 final_states=0
 */
#include <pthread.h>

extern void abort(void);
void reach_error(void) { abort(); }
void __VERIFIER_assert(int c) { if (!c) reach_error(); }

#ifndef SIZE
#define SIZE 4
#endif
#ifndef T
#define T 2
#endif
#ifndef M
#define M 2 /* values per thread */
#endif

int table[SIZE];

void *inserter(void *arg) {
    int tid = (int)(long)arg;
    for (int k = 0; k < M; k++) {
        int w = tid * M + k + 1;
        int h = w % 2, probes = 0;
#ifdef BUG
        while (1) { /* test, then set: not atomic */
            if (table[h] == 0) {
                table[h] = w;
                break;
            }
            h = (h + 1) % SIZE;
            probes++;
            __VERIFIER_assert(probes < SIZE);
        }
#else
        while (!__sync_bool_compare_and_swap(&table[h], 0, w)) {
            h = (h + 1) % SIZE;
            probes++;
            __VERIFIER_assert(probes < SIZE);
        }
#endif
    }
    return 0;
}

int main(void) {
    pthread_t t[T];
    for (long i = 0; i < T; i++)
        pthread_create(&t[i], 0, inserter, (void *)i);
    for (int i = 0; i < T; i++)
        pthread_join(t[i], 0);
    for (int w = 1; w <= T * M; w++) {
        int found = 0;
        for (int h = 0; h < SIZE; h++)
            found += table[h] == w;
        __VERIFIER_assert(found == 1);
    }
    return 0;
}
