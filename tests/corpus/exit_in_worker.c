/* exit_in_worker.c — a worker ends the program with exit() on what it read, and main joins it.
 *
 * Skein lets the other threads run on after an exit() (a schedule that delays the exit has the same prefix), and a
 * join of the thread that called it blocks for good: nothing may observe that it ended the program. The worker's read
 * of `go` races with the writer's store.
 * traces (derived): the reader's read of go before the writer's store (reads 0: exit(1); main's join never returns,
 * the run is complete) or after it (reads 1: returns; main joins it and its assertion fails) = 2; final states: 1
 * (the complete run's).
 * qpor takes the exit and the creates as soon as their threads reach them (no events of the unfolding); vhb once
 * took the exited thread as joinable and stopped with "a realisation did not replay in the executor".
 *
 * expect: --no-race-detection => verdict=error errors=assertion@39 traces=2 final_states=1
 * expect: --algo=qpor --no-race-detection => verdict=error errors=assertion@39 executions=2 ssb=0 final_states=1
 * expect: --algo=vhb --no-race-detection => verdict=error errors=assertion@39 executions=2 final_states=1
 * expect: --algo=vhb --vhb-equivalence=paper --no-race-detection => verdict=error errors=assertion@39 executions=2
 * expect: => verdict=error errors=assertion@39,data_race@31
 * expect: --algo=qpor => verdict=error errors=assertion@39,data_race@31
 * expect: --algo=vhb => verdict=error errors=assertion@39,data_race
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
int go, done;
void *reader(void *a) {
    (void)a;
    if (go == 0) exit(1);
    return 0;
}
void *writer(void *a) {
    (void)a;
    go = 1;
    return 0;
}
int main(void) {
    pthread_t r, w;
    pthread_create(&r, 0, reader, 0);
    pthread_create(&w, 0, writer, 0);
    pthread_join(r, 0);
    assert(done == 1);
    return 0;
}
