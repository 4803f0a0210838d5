/* lazy01.c — SV-COMP pthread lazy01 style: three threads share `data` under one mutex; thread1 adds 1,
 * thread2 adds 2, thread3 reads data under the mutex and asserts (with <assert.h>) what it saw is below 3.
 *
 * Default (the benchmark's unsafe version): thread3 sees 3 when both adders ran before its critical section:
 * expected verdict: error (the assertion in thread3). -DFIXED asserts seen <= 3, which always holds: safe.
 * traces (derived): the three critical sections of one mutex in any order: 3! = 6 traces. The assertion fails
 * in the 2 orders with thread3's section last, as thread3's last step (still 6 executions, one per order); every
 * execution that completes ends with data == 3 (the value thread3 saw is a local): final_states=1.
 * -DIN_LOCK: thread3 asserts while it holds the mutex, as the original does: the failing execution ends there,
 * with the mutex held (an error ends the execution, so the others do not deadlock on it): the same 6 traces,
 * 2 failing.
 *
 * expect: => verdict=error errors=assertion@54 executions=931 traces=6 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=error errors=assertion@54 executions=6 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=error errors=assertion@54 executions=6 blocked=0 final_states=1
 * expect: -DFIXED => verdict=safe errors=none executions=931 traces=6 blocked=0 final_states=1
 * expect: --algo=qpor -DFIXED => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --algo=vhb -DFIXED => verdict=safe errors=none executions=6 blocked=0 final_states=1
 * expect: -DIN_LOCK => verdict=error errors=assertion@47 executions=665 traces=6 blocked=0 final_states=1
 * expect: --algo=qpor -DIN_LOCK => verdict=error errors=assertion@47 executions=6 blocked=0 ssb=0
 * expect: --algo=vhb -DIN_LOCK => verdict=error errors=assertion@47 executions=6 blocked=0 final_states=1
 */
#include <pthread.h>
#include <assert.h>

pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
int data = 0;

void *thread1(void *arg) {
    pthread_mutex_lock(&mutex);
    data++;
    pthread_mutex_unlock(&mutex);
    return 0;
}

void *thread2(void *arg) {
    pthread_mutex_lock(&mutex);
    data += 2;
    pthread_mutex_unlock(&mutex);
    return 0;
}

void *thread3(void *arg) {
    pthread_mutex_lock(&mutex);
    int seen = data;
#ifdef IN_LOCK
    assert(seen < 3); /* the original checks while holding the mutex */
#endif
    pthread_mutex_unlock(&mutex);
#ifdef IN_LOCK
#elif defined(FIXED)
    assert(seen <= 3);
#else
    assert(seen < 3);
#endif
    return 0;
}

int main(void) {
    pthread_t t1, t2, t3;
    pthread_create(&t1, 0, thread1, 0);
    pthread_create(&t2, 0, thread2, 0);
    pthread_create(&t3, 0, thread3, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    pthread_join(t3, 0);
    return 0;
}
