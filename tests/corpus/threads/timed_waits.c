/* timed_waits.c — two workers each try to enter a critical section for a second, and give up when it times out.
 *
 * Skein does not model time: the clock reads 0 and stands still, and a timed acquire may time out whenever its object
 * is taken — a try's outcomes over the interleavings (waiting and then acquiring is the schedule where the try comes
 * later), answering ETIMEDOUT instead of EBUSY (core/program/Program.h, kTimedCall).
 * traces (derived): whichever worker acquires first; the other's attempt comes while the first holds the lock (it
 * times out) or after its unlock (it enters too): 2 × 2 = 4 traces; `entered` ends 1 or 2: final_states=2.
 *
 * -DBOTH: main asserts that both entered — false when one timed out (line 73).
 * -DSEM: the same with sem_timedwait on a semaphore of one unit (given back with sem_post): 4 traces.
 * -DC11: mtx_timedlock on a mtx_timed mutex, which answers thrd_timedout: 4 traces.
 *
 * expect: => verdict=safe errors=none traces=4 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0 final_states=2
 * expect: -DBOTH => verdict=error errors=assertion@73 traces=4
 * expect: -DBOTH --algo=qpor => verdict=error errors=assertion@73 executions=4
 * expect: -DSEM => verdict=safe errors=none traces=4 final_states=2
 * expect: -DSEM --algo=qpor => verdict=safe errors=none executions=4 ssb=0 final_states=2
 * expect: -DC11 => verdict=safe errors=none traces=4 final_states=2
 * expect: -DC11 --algo=qpor => verdict=safe errors=none executions=4 ssb=0 final_states=2
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <threads.h>
#include <time.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
mtx_t cm;
sem_t s;
int entered;

void *worker(void *arg) {
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
#if defined(SEM)
    if (sem_timedwait(&s, &deadline) == 0) {
        entered++;
        sem_post(&s);
    }
#elif defined(C11)
    int r = mtx_timedlock(&cm, &deadline);
    if (r == thrd_success) {
        entered++;
        mtx_unlock(&cm);
    } else {
        assert(r == thrd_timedout);
    }
#else
    int r = pthread_mutex_timedlock(&m, &deadline);
    if (r == 0) {
        entered++;
        pthread_mutex_unlock(&m);
    } else {
        assert(r == ETIMEDOUT);
    }
#endif
    return 0;
}

int main(void) {
    sem_init(&s, 0, 1);
    mtx_init(&cm, mtx_timed);
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
#ifdef BOTH
    assert(entered == 2);
#endif
    assert(entered >= 1);
    return 0;
}
