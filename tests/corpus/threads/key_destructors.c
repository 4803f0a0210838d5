/* key_destructors.c — two workers each leave a value in a thread-specific data key; the key's destructor counts them
 * as the workers exit, and main checks the count after joining both.
 *
 * A destructor runs when a thread holding a value for the key returns from its start routine or calls pthread_exit
 * (core/exec/Executor.cpp, runKeyDestructor); creating the key writes its number into `key`, which the workers read.
 * traces (derived): main's write of `key` precedes both workers (created after it); their destructors' critical
 * sections on `m` come in either order: 2 traces; `destroyed` ends 2: final_states=1.
 *
 * -DEXIT: the workers end with pthread_exit: the same 2 traces.
 * -DRACY: the destructor counts without the mutex: a data race on `destroyed` (line 35, against line 35), and an
 *  update lost, so main's assertion fails (line 55).
 * -DMAIN: main also leaves a value and returns: no destructor runs at a program exit, so the count stays 2.
 *
 * expect: => verdict=safe errors=none traces=2 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0 final_states=1
 * expect: -DEXIT => verdict=safe errors=none traces=2 final_states=1
 * expect: -DEXIT --algo=qpor => verdict=safe errors=none executions=2 ssb=0 final_states=1
 * expect: -DRACY => verdict=error errors=assertion@55,data_race@35
 * expect: -DRACY --algo=qpor => verdict=error errors=assertion@55,data_race@35
 * expect: -DMAIN => verdict=safe errors=none traces=2 final_states=1
 * expect: -DMAIN --algo=qpor => verdict=safe errors=none executions=2 ssb=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

pthread_key_t key;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int destroyed;
int one = 1;

void count(void *value) {
#ifndef RACY
    pthread_mutex_lock(&m);
#endif
    destroyed += *(int *)value;
#ifndef RACY
    pthread_mutex_unlock(&m);
#endif
}

void *worker(void *arg) {
    (void)arg;
    pthread_setspecific(key, &one);
#ifdef EXIT
    pthread_exit(0);
#endif
    return 0;
}

int main(void) {
    pthread_t t[2];
    pthread_key_create(&key, count);
    for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
    assert(destroyed == 2);
#ifdef MAIN
    pthread_setspecific(key, &one);
#endif
    return 0;
}
