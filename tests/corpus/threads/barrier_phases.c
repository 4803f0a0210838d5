/* barrier_phases.c — three workers publish a value, meet at a pthread_barrier_t, read their neighbour's value and
 * meet again before they overwrite anything (the second meeting keeps a slow reader from seeing the next value).
 *
 * traces (derived): a round's three arrivals conflict with each other (the last one completes the round and is its
 * serial thread), in any of 3! = 6 orders; everything else is ordered by them — a write before its thread's arrival,
 * a read after its thread's departure, which follows the round's last arrival — or commutes: two departures, and a
 * departure with the next round's arrivals. Two rounds: 6 × 6 = 36 traces, which qpor explores in every mode with no
 * sleep-set blocked execution (MEETINGS=4: 6^4 = 1,296). Final states: the serial thread of each round, each worker
 * counting its turns — two turns among three workers: 6 (four turns: 15). qpor only: dfs explores every interleaving
 * of the three workers' dozen events, and had not finished after 12 minutes.
 * -DNOSECOND: no second meeting, and each worker then writes its value again: the neighbour's read races with that
 * write (lines 40 and 43) and can see it (line 41).
 *
 * expect: --algo=qpor => verdict=safe errors=none executions=36 blocked=0 ssb=0 final_states=6
 * expect: --algo=qpor --alt=k1 => verdict=safe errors=none executions=36 blocked=0
 * expect: -DMEETINGS=4 --algo=qpor => verdict=safe errors=none executions=1296 blocked=0 ssb=0 final_states=15
 * expect: -DNOSECOND --algo=qpor => verdict=error errors=assertion@41,data_race@43 executions=24 ssb=0
 */
#include <assert.h>
#include <pthread.h>

#ifndef MEETINGS
#define MEETINGS 2
#endif

pthread_barrier_t bar;
int value[3];
int serial[3];

void meet(int id) {
    if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
        serial[id]++;
}

void *worker(void *arg) {
    int id = (int)(long)arg;
    for (int round = 1; round < MEETINGS; round += 2) {
        value[id] = round;
        meet(id);
        int next = value[(id + 1) % 3];
        assert(next == round);
#ifdef NOSECOND
        value[id] = round + 1;
#else
        meet(id);
#endif
    }
    return 0;
}

int main(void) {
    pthread_t t[3];
    pthread_barrier_init(&bar, 0, 3);
    for (long i = 0; i < 3; ++i) pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
    return 0;
}
