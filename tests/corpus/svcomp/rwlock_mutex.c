/* rwlock_mutex.c — SV-COMP pthread read_write_lock style: a readers-writer lock built from a pthread mutex and
 * two counters, w (a writer holds it) and r (readers holding it). Taking it waits with __VERIFIER_assume inside
 * the mutex's critical section: a run that finds the lock busy is cut (blocked), the run that tries later is
 * another execution. WRITERS writers (default 1) increment x; READERS readers (default 1) read x twice and
 * assert (<assert.h>) both reads agree; main asserts x == WRITERS and the lock free after the joins.
 *
 * Default: a writer excludes everyone, so no reader sees x change: expected verdict: safe, and no data race (the
 * mutex orders every access to x). traces (derived): the critical sections of the mutex are take and release
 * per thread; a complete run holds the lock for the writer and the reader one after the other: 2 traces (qpor
 * cuts the 2 runs where one takes the mutex while the other holds the rw lock: blocked=2); final_states=1.
 * WRITERS=2: 3! = 6 orders of three exclusive holders (dfs agrees: 30,701 executions, 1 s). READERS=2: readers may
 * hold it together: the writer first or last, the readers' four sections in any order (C(4,2) = 6 each: 12), or
 * the writer between the two readers (2): 14 traces (dfs agrees: 5,957,490 executions, 150 s). WRITERS=2
 * READERS=2: per order of the writers (2), the readers both in one of the three gaps (3 x 6) or in two different
 * gaps (3 x 2): 2 x 24 = 48 traces. For these only qpor and vhb are recorded.
 * -DBUG: take_read does not wait for the writer: a reader can hold the lock while the writer does (the writer
 * still waits for r == 0), so the writer's update of x can fall between the two reads: expected verdict: error
 * (the reader's assertion, and data races between the writer's x = x + 1 and the reads). traces (derived): the
 * mutex orders writer-then-reader (1), reader-then-writer (1), or the reader taking the lock inside the writer's
 * hold and releasing it before or after the writer's release (2): in those two the write of x falls before,
 * between or after the two reads (3 each): 1 + 1 + 3 + 3 = 8, 2 failing. READERS=2 -DBUG: 178 traces (qpor; dfs
 * did not finish in 15 minutes; a sleep-set enumeration of a model of the lock and data events, independent of
 * Skein, gives 178 too).
 *
 * expect: => verdict=safe errors=none executions=133 traces=2 blocked=50 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=2 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=2 blocked=5 final_states=1
 * expect: -DBUG => verdict=error errors=assertion@97,data_race@94,data_race@95 executions=6802 traces=8 blocked=10 final_states=1
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@97,data_race@94,data_race@95 executions=8 blocked=1 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@97,data_race@94,data_race@95 executions=3 blocked=3 final_states=1
 * expect: --algo=qpor -DWRITERS=2 => verdict=safe errors=none executions=6 blocked=12 ssb=0
 * expect: --algo=vhb -DWRITERS=2 => verdict=safe errors=none executions=6 blocked=33 final_states=1
 * expect: --algo=qpor -DREADERS=2 => verdict=safe errors=none executions=14 blocked=14 ssb=0
 * expect: --algo=vhb -DREADERS=2 => verdict=safe errors=none executions=12 blocked=50 final_states=1
 * expect: --algo=qpor -DWRITERS=2 -DREADERS=2 => verdict=safe errors=none executions=48 blocked=82 ssb=0
 * expect: --algo=vhb -DWRITERS=2 -DREADERS=2 => verdict=safe errors=none executions=42 blocked=312 final_states=1
 * expect: --algo=qpor -DREADERS=2 -DBUG => verdict=error errors=assertion@97,data_race@94,data_race@95 executions=178 blocked=10 ssb=0
 * expect: --algo=vhb -DREADERS=2 -DBUG => verdict=error errors=assertion@97,data_race@94,data_race@95 executions=44 blocked=42 final_states=1
 */
#include <pthread.h>
#include <assert.h>

extern void __VERIFIER_assume(int);

#ifndef READERS
#define READERS 1
#endif
#ifndef WRITERS
#define WRITERS 1
#endif

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int w = 0; /* a writer holds the lock */
int r = 0; /* readers holding the lock */
int x = 0; /* the data */

void take_write(void) {
    pthread_mutex_lock(&m);
    __VERIFIER_assume(w == 0 && r == 0); /* wait: a run that finds the lock busy is cut */
    w = 1;
    pthread_mutex_unlock(&m);
}

void release_write(void) {
    pthread_mutex_lock(&m);
    w = 0;
    pthread_mutex_unlock(&m);
}

void take_read(void) {
    pthread_mutex_lock(&m);
#ifndef BUG
    __VERIFIER_assume(w == 0);
#endif
    r = r + 1;
    pthread_mutex_unlock(&m);
}

void release_read(void) {
    pthread_mutex_lock(&m);
    r = r - 1;
    pthread_mutex_unlock(&m);
}

void *writer(void *arg) {
    take_write();
    x = x + 1;
    release_write();
    return 0;
}

void *reader(void *arg) {
    take_read();
    int a = x;
    int b = x;
    release_read();
    assert(a == b);
    return 0;
}

int main(void) {
    pthread_t tw[WRITERS], tr[READERS];
    for (int k = 0; k < WRITERS; k++)
        pthread_create(&tw[k], 0, writer, 0);
    for (int k = 0; k < READERS; k++)
        pthread_create(&tr[k], 0, reader, 0);
    for (int k = 0; k < WRITERS; k++)
        pthread_join(tw[k], 0);
    for (int k = 0; k < READERS; k++)
        pthread_join(tr[k], 0);
    assert(x == WRITERS && w == 0 && r == 0);
    return 0;
}
