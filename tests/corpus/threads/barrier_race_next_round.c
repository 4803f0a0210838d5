/* barrier_race_next_round.c — two threads meet at a barrier of 2; after it, t0 writes x and arrives at the barrier
 * again (a second round nobody completes), t1 reads x and, if it read 1, writes it.
 *
 * t0's write races with t1's read and with t1's write: nothing orders them after the first round. The second round's
 * arrival commutes with t1's departure from the first, so an explorer that runs one order of the two must not let
 * the departure acquire what t0 did before arriving again: the race detector keeps a clock per round
 * (core/explore/RaceDetector.h, barrierRounds_). Found by the differential tests (seed 1300778, shrunk).
 * traces (derived): the two first-round arrivals in either order (2: both write the round's word), times t0's write W
 * against t1's read R (2: R first reads 0 and t1 stops; W first, R reads 1 and t1 writes 2, ordered after W through
 * R); t0's second-round arrival touches only the other round's word: 4 traces, final states x = 1 and x = 2. The
 * second arrival waits for good, but main returns without joining: no deadlock (README, "Semantics").
 *
 * expect: => verdict=error errors=data_race@30,data_race@31 traces=4 final_states=2
 * expect: --algo=qpor => verdict=error errors=data_race@30,data_race@31 executions=4 blocked=0 ssb=0 final_states=2
 */
#include <pthread.h>

int x;
pthread_barrier_t b;

void *t0(void *arg) {
    pthread_barrier_wait(&b);
    x = 1;
    pthread_barrier_wait(&b); /* the second round: no partner arrives */
    return arg;
}

void *t1(void *arg) {
    pthread_barrier_wait(&b);
    if (x)
        x = 2;
    return arg;
}

int main(void) {
    pthread_t h0, h1;
    pthread_barrier_init(&b, 0, 2);
    pthread_create(&h0, 0, t0, 0);
    pthread_create(&h1, 0, t1, 0);
    return 0;
}
