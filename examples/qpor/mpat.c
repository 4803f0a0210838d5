/* MPAT(K): parallel pattern matching in the style of the QPOR paper's Table 1 "Mpat" family. K workers each
 * search one slice of a text for a pattern; a worker publishes whether its slice matched in its own result
 * slot (protected by the slot's mutex) and adds its count to the global total under the total's mutex. Main,
 * after starting the workers, polls the slots in order (each poll takes the slot's mutex). Each poll happens
 * before or after its worker's publication (2^K) and the workers take the total's mutex in any order (K!):
 * K!·2^K maximal configurations — the paper's Confs: MPAT(4) = 384, MPAT(5) = 3840, MPAT(6) = 46080.
 * Expected: safe (main's final check runs after the joins).
 *
 * expect: --algo=qpor -DK=2 => verdict=safe errors=none executions=8 ssb=0
 * expect: --algo=qpor -DK=3 => verdict=safe errors=none executions=48 ssb=0
 * expect: --algo=qpor -DK=4 => verdict=safe errors=none executions=384 ssb=0
 * expect: --algo=qpor -DK=3 --alt=k1 => verdict=safe errors=none executions=48
 * expect: --algo=dfs -DK=1 => verdict=safe errors=none traces=2
 */
#include <assert.h>
#include <pthread.h>

#ifndef K
#define K 4
#endif
#define SLICE 6

#define TEXT "abcabdabcxabcabdabcabxabcabdabcabxababcabdabcabxab"
const char text[] = TEXT;
const char pattern[] = "abc";

pthread_mutex_t slot_lock[K];
int slot[K]; /* 1: the worker finished and found at least one match */
pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
int total;

void *worker(void *arg) {
    long id = (long)arg;
    int found = 0;
    for (int i = id * SLICE; i < (id + 1) * SLICE && i + 2 < (int)sizeof text - 1; i++)
        if (text[i] == pattern[0] && text[i + 1] == pattern[1] && text[i + 2] == pattern[2]) found++;
    pthread_mutex_lock(&slot_lock[id]);
    slot[id] = found > 0;
    pthread_mutex_unlock(&slot_lock[id]);
    pthread_mutex_lock(&total_lock);
    total += found;
    pthread_mutex_unlock(&total_lock);
    return 0;
}

int main(void) {
    pthread_t t[K];
    for (int i = 0; i < K; i++) pthread_mutex_init(&slot_lock[i], 0);
    for (long i = 0; i < K; i++) pthread_create(&t[i], 0, worker, (void *)i);
    int seen = 0;
    for (int i = 0; i < K; i++) {
        pthread_mutex_lock(&slot_lock[i]);
        seen += slot[i];
        pthread_mutex_unlock(&slot_lock[i]);
    }
    for (int i = 0; i < K; i++) pthread_join(t[i], 0);
    assert(seen <= K && total >= 0);
    return 0;
}
