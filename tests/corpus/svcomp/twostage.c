/* twostage.c — SV-COMP pthread twostage style: a two-stage update under two mutexes. The writer sets data1Value
 * (stage 1, under data1Lock) and then data2Value = data1Value + 1 (stage 2, under data2Lock); READERS readers
 * (default 1) skip when stage 1 has not happened, else read data1Value and then data2Value and assert (with
 * <assert.h>) that data2Value == data1Value + 1.
 *
 * Default: the writer holds data1Lock until stage 2 is done and a reader holds it while it reads data2Value (the
 * locks nest in the same order: no deadlock): a reader sees both stages or neither. Expected verdict: safe.
 * traces (derived): each thread's whole body is one critical section of data1Lock (data2Lock, taken inside it,
 * adds no order): (READERS+1)! orders = 2 (READERS=2: 6, READERS=3: 24); final_states=1 (1, 2).
 * -DBUG (twostage_3's bug): both release data1Lock between the stages, so a reader can see stage 1 done and
 * stage 2 not yet: expected verdict: error. traces (derived, READERS=1): the reader's data1Lock section before
 * the writer's: the reader returns (1 trace); after it: the reader's data2Lock section before (fails) or after the
 * writer's stage 2: 2; total 3, 1 failing. READERS=2: 18 traces, 10 failing (brute force over a model of the
 * lock and data events; dfs agrees, but after 10,332,544 executions and 170 s: only qpor and vhb are recorded
 * for it); final_states=1.
 *
 * expect: => verdict=safe errors=none executions=65 traces=2 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=2 blocked=0 final_states=1
 * expect: -DBUG => verdict=error errors=assertion@75 executions=1642 traces=3 blocked=0 final_states=1
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@75 executions=3 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@75 executions=3 blocked=0 final_states=1
 * expect: -DREADERS=2 => verdict=safe errors=none executions=7621 traces=6 blocked=0 final_states=1
 * expect: --algo=qpor -DREADERS=2 => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --algo=vhb -DREADERS=2 => verdict=safe errors=none executions=4 blocked=0 final_states=1
 * expect: --algo=qpor -DREADERS=2 -DBUG => verdict=error errors=assertion@75 executions=18 blocked=0 ssb=0
 * expect: --algo=vhb -DREADERS=2 -DBUG => verdict=error errors=assertion@75 executions=9 blocked=0 final_states=1
 * expect: --algo=qpor -DREADERS=3 => verdict=safe errors=none executions=24 blocked=0 ssb=0
 * expect: --algo=vhb -DREADERS=3 => verdict=safe errors=none executions=8 blocked=0 final_states=1
 */
#include <pthread.h>
#include <assert.h>

#ifndef READERS
#define READERS 1
#endif

pthread_mutex_t data1Lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t data2Lock = PTHREAD_MUTEX_INITIALIZER;
int data1Value = 0;
int data2Value = 0;

void *writer(void *arg) {
    pthread_mutex_lock(&data1Lock);
    data1Value = 1;
#ifdef BUG
    pthread_mutex_unlock(&data1Lock); /* stage 1 published before stage 2 */
#endif
    pthread_mutex_lock(&data2Lock);
    data2Value = data1Value + 1;
    pthread_mutex_unlock(&data2Lock);
#ifndef BUG
    pthread_mutex_unlock(&data1Lock);
#endif
    return 0;
}

void *reader(void *arg) {
    int t1, t2;
    pthread_mutex_lock(&data1Lock);
    if (data1Value == 0) {
        pthread_mutex_unlock(&data1Lock);
        return 0;
    }
    t1 = data1Value;
#ifdef BUG
    pthread_mutex_unlock(&data1Lock);
#endif
    pthread_mutex_lock(&data2Lock);
    t2 = data2Value;
    pthread_mutex_unlock(&data2Lock);
#ifndef BUG
    pthread_mutex_unlock(&data1Lock);
#endif
    assert(t2 == t1 + 1);
    return 0;
}

int main(void) {
    pthread_t w, r[READERS];
    pthread_create(&w, 0, writer, 0);
    for (int k = 0; k < READERS; k++)
        pthread_create(&r[k], 0, reader, 0);
    pthread_join(w, 0);
    for (int k = 0; k < READERS; k++)
        pthread_join(r[k], 0);
    return 0;
}
