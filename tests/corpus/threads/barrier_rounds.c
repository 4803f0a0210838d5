/* barrier_rounds.c — two workers meet twice at one pthread_barrier_t.
 *
 * Each worker sets its stage and waits at the barrier; past it, the other's stage must be set. They meet again (a
 * second round of the same barrier) before moving to stage 2, so no one overwrites a stage the other still reads.
 * pthread_barrier_wait is two events to Skein: the arrival (the last one of a round completes it: that thread gets
 * PTHREAD_BARRIER_SERIAL_THREAD) and the departure, enabled once its round is complete; an arrival releases and a
 * departure acquires, so what came before the barrier is ordered before what comes after it in every thread. dfs
 * and qpor explore barriers (qpor: an arrival writes its round's word, a departure reads it); vhb hands them over.
 * traces (derived): per round, the two arrivals in either order (the departures and the stage accesses are ordered
 * by them; a departure commutes with the next round's arrivals): 2 × 2 = 4; final_states=3 (the last to arrive is a
 * round's serial thread: serial[] ends {2,0}, {0,2} or, in two of the traces, {1,1}).
 *
 * -DNOBARRIER: no barrier: a stage's read races with the other's writes of it (lines 41 and 43) and a worker can
 * see the other's stage still 0 (line 44).
 * -DTHREE: a barrier for three threads met by two: both wait for good at the first round — a deadlock (line 34).
 *
 * expect: => verdict=safe errors=none traces=4 blocked=0 final_states=3
 * expect: -DNOBARRIER => verdict=error errors=assertion@44,data_race@41,data_race@43
 * expect: -DTHREE => verdict=error errors=deadlock@34 traces=2
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0 final_states=3
 * expect: -DNOBARRIER --algo=qpor => verdict=error errors=assertion@44,data_race@41,data_race@43 executions=5 ssb=0
 * expect: -DTHREE --algo=qpor => verdict=error errors=deadlock@34 executions=0 blocked=2 ssb=0
 * expect: --algo=vhb => verdict=bounded errors=none
 */
#include <assert.h>
#include <pthread.h>

pthread_barrier_t bar;
int stage[2];
int serial[2]; // how often each worker was the serial thread (its own slot: no order between the workers)

void meet(int id) {
#ifndef NOBARRIER
    if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
        serial[id]++;
#endif
}

void *worker(void *arg) {
    int id = (int)(long)arg;
    stage[id] = 1;
    meet(id);
    int other = stage[1 - id];
    assert(other == 1);
    meet(id); // the barrier again: a second round
    stage[id] = 2;
    return 0;
}

int main(void) {
#ifdef THREE
    pthread_barrier_init(&bar, 0, 3);
#else
    pthread_barrier_init(&bar, 0, 2);
#endif
    pthread_t t[2];
    for (long i = 0; i < 2; ++i)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 2; ++i)
        pthread_join(t[i], 0);
#ifndef NOBARRIER
    assert(serial[0] + serial[1] == 2); // one serial thread per round
#endif
    return 0;
}
