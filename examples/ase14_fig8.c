/* ase14_fig8.c — Fig. 8 of "Predicate Dependence / assertion-guided abstraction" (ASE'14): one mutex protects a
 * whole array; thread 1 increments items 0..K-1, thread 2 items K..2K-1, each item inside its own
 * lock/unlock block (the paper uses K = 8: 16 items).
 *
 * The two threads never touch the same item, yet their lock operations on the shared mutex are dependent, so
 * every interleaving of the 2K critical sections is a distinct Mazurkiewicz trace: C(2K, K) traces — 12,870 for
 * the paper's K = 8 ("a standard DPOR implementation requires 12,870 runs"), while critical-section peeking
 * needs a single run. Everything is locked: expected verdict: safe, final_states=1 (every item ends at 1).
 *
 * traces (derived): K=1: C(2,1) = 2; K=2: C(4,2) = 6; K=4: C(8,4) = 70. dfs explores all interleavings of
 * the lock, read, write, unlock events, so the corpus stops at K=4; K=8 is a benchmark size.
 *
 * expect: -DK=1 => verdict=safe errors=none executions=26 traces=2 blocked=0 final_states=1
 * expect: --algo=qpor -DK=1 => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: -DK=2 => verdict=safe errors=none executions=118 traces=6 blocked=0 final_states=1
 * expect: -DK=4 => verdict=safe errors=none executions=1622 traces=70 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

#ifndef K
#define K 8
#endif

pthread_mutex_t array_lock = PTHREAD_MUTEX_INITIALIZER;
int array[2 * K];

void *thread_1(void *arg) {
    (void)arg;
    for (int i = 0; i < K; ++i) {
        pthread_mutex_lock(&array_lock);
        array[i] = array[i] + 1;
        pthread_mutex_unlock(&array_lock);
    }
    return 0;
}

void *thread_2(void *arg) {
    (void)arg;
    for (int i = K; i < 2 * K; ++i) {
        pthread_mutex_lock(&array_lock);
        array[i] = array[i] + 1;
        pthread_mutex_unlock(&array_lock);
    }
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, thread_1, 0);
    pthread_create(&t2, 0, thread_2, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    for (int i = 0; i < 2 * K; i++)
        assert(array[i] == 1);
    return 0;
}
