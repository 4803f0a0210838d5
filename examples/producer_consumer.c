/* producer_consumer.c — a one-slot buffer guarded by a mutex and two condition variables.
 *
 * One producer puts ITEMS items (1, 2, ...) into the slot; ITEMS consumers take one item each. Every wait is in
 * a `while` loop that re-checks its condition after waking up, so a consumer never takes from an empty slot and
 * the producer never overwrites a full one. Expected verdict: safe.
 *
 * -DBUGGY: the consumers wait with `if` instead of `while`. With two consumers: consumer A waits on the empty
 * slot, the producer fills it and signals A; before A re-acquires the mutex, consumer B takes the mutex and the
 * item; A then returns from its wait and takes from the empty slot: `assert(full)` fails.
 * Expected verdict: error (assertion).
 *
 * Counts (dfs). ITEMS=1 (one producer, one consumer), derived: either the consumer locks first, finds the slot
 * empty and waits, and the producer's critical section (ending with the signal that wakes it) comes next; or the
 * producer locks first and the consumer finds the item: traces=2, one final state. ITEMS=2: who of the two
 * consumers enters first, whether each one waits, which waiter a signal wakes, and whether the producer has to
 * wait for the slot to empty multiply to the recorded 32 traces (too many to derive by hand); BUGGY has 32 too: the
 * orders where a woken consumer finds the slot empty fail the assertion (that consumer stops, the rest run on).
 *
 * expect: -DITEMS=1 => verdict=safe errors=none executions=5 traces=2 blocked=0 final_states=1
 * expect: --algo=qpor -DITEMS=1 => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: => verdict=safe errors=none executions=2096 traces=32 blocked=0 final_states=1
 * expect: -DBUGGY => verdict=error errors=assertion@62 executions=1880 traces=32 blocked=0 final_states=1
 * expect: --algo=vhb => verdict=safe errors=none executions=32 blocked=0 final_states=1
 * expect: --algo=vhb -DBUGGY => verdict=error errors=assertion@62 executions=32 blocked=0 final_states=1
 * expect: --algo=vhb -DITEMS=1 => verdict=safe errors=none executions=2 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

#ifndef ITEMS
#define ITEMS 2
#endif

int slot = 0, full = 0, sum = 0;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;

void *producer(void *arg) {
    (void)arg;
    for (int i = 1; i <= ITEMS; i++) {
        pthread_mutex_lock(&m);
        while (full)
            pthread_cond_wait(&not_full, &m);
        slot = i;
        full = 1;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&m);
    }
    return 0;
}

void *consumer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
#ifdef BUGGY
    if (!full)
#else
    while (!full)
#endif
        pthread_cond_wait(&not_empty, &m);
    assert(full);
    full = 0;
    sum += slot;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t p, c[ITEMS];
    for (int i = 0; i < ITEMS; i++)
        pthread_create(&c[i], 0, consumer, 0);
    pthread_create(&p, 0, producer, 0);
    for (int i = 0; i < ITEMS; i++)
        pthread_join(c[i], 0);
    pthread_join(p, 0);
    assert(sum == ITEMS * (ITEMS + 1) / 2);
    return 0;
}
