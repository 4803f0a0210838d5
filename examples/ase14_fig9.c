/* ase14_fig9.c — Fig. 9 of the predicate-dependence paper (ASE'14): a read-(write-write) conflict between three
 * threads.
 *
 *   t1: a = 7; a = 6;       t2: a = 0; a = 1;       main: create, create, join, join, assert(a != 7)
 *
 * main's read cannot be co-enabled with any write (it comes after both joins), so it only sees the last write
 * of one of the threads (6 or 1) and the assertion holds. Expected verdict: error — not because of the
 * assertion, but because `a` is a plain int written by two threads without synchronisation, exactly as in the
 * paper: Skein reports the data race (the paper's analysis assumes sequential consistency and ignores races).
 * With --no-race-detection: verdict safe.
 *
 * traces (derived): the 4 writes are pairwise dependent; keeping each thread's order, C(4,2) = 6 interleavings,
 * all distinct traces ("DPOR would require 6 runs"); the paper's write-write pruning needs only 2 (which thread
 * writes last). final_states=2 (a == 6 or a == 1).
 *
 * expect: => verdict=error errors=data_race@34,data_race@35 executions=19 traces=6 blocked=0 final_states=2
 * expect: --algo=qpor => verdict=error errors=data_race executions=6 blocked=0 ssb=0
 * expect: --no-race-detection => verdict=safe errors=none executions=19 traces=6 blocked=0 final_states=2
 */
#include <assert.h>
#include <pthread.h>

int a = 0;

void *t1_main(void *arg) {
    (void)arg;
    a = 7;
    a = 6;
    return 0;
}

void *t2_main(void *arg) {
    (void)arg;
    a = 0;
    a = 1;
    return 0;
}

int main(int argc, char *argv[]) {
    (void)argc;
    (void)argv;
    pthread_t t1, t2;
    pthread_create(&t1, 0, t1_main, 0);
    pthread_create(&t2, 0, t2_main, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    assert(a != 7);
    return 0;
}
