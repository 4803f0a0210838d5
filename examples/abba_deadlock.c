/* abba_deadlock.c — two threads take the same two mutexes in opposite orders (A then B, B then A).
 *
 * If thread 1 holds A and thread 2 holds B, each waits for the other forever: a deadlock, which Skein reports as
 * an error (GenMC and Nidhugg only count such an execution as "blocked"). Expected verdict: error (deadlock).
 * -DORDERED: both threads take A before B; expected verdict: safe.
 * expect: --algo=vhb => verdict=error errors=deadlock@28 executions=2 blocked=1
 * traces (derived): the lock operations on A and on B are the dependent events. Either one thread completes
 * both critical sections before the other takes its first mutex (2 traces: T1 first or T2 first), or each holds
 * its first mutex and the execution deadlocks (1 trace) = 3; blocked counts the interleavings that reach the
 * deadlock (T1 lock A and T2 lock B in either order, after both creates / around create 2). With -DORDERED the
 * only choice is who takes A first: 2 traces. Each thread adds its id to `sum` inside the critical section on
 * both mutexes, so no data race either way; final_states=1.
 *
 * expect: => verdict=error errors=deadlock@28 executions=87 traces=3 blocked=3 final_states=1
 * expect: --algo=qpor => verdict=error errors=deadlock executions=2 blocked=1 ssb=0
 * expect: -DORDERED => verdict=safe errors=none executions=51 traces=2 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

pthread_mutex_t A = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t B = PTHREAD_MUTEX_INITIALIZER;
int sum = 0;

void *t1(void *arg) {
    (void)arg;
    pthread_mutex_lock(&A);
    pthread_mutex_lock(&B);
    sum += 1;
    pthread_mutex_unlock(&B);
    pthread_mutex_unlock(&A);
    return 0;
}

void *t2(void *arg) {
    (void)arg;
#ifdef ORDERED
    pthread_mutex_lock(&A);
    pthread_mutex_lock(&B);
#else
    pthread_mutex_lock(&B);
    pthread_mutex_lock(&A);
#endif
    sum += 2;
    pthread_mutex_unlock(&A);
    pthread_mutex_unlock(&B);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(sum == 3);
    return 0;
}
