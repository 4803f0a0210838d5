/* MPC(P, C): multiple producers, multiple consumers, in the style of the QPOR paper's Table 1 "MPC" family. P
 * producers each put one item into a bounded buffer guarded by `buf`; C consumers each make two attempts to take
 * an item. A consumer that takes an item accounts for it under `acct`, and so does a producer — while still
 * holding `buf` (intertwined critical sections), after reading how full the buffer is. Expected: safe.
 * Measured: MPC(2,1) 16, MPC(2,2) 316, MPC(3,2) 4764 maximal configurations; no SSB in any mode here (the
 * interactions do not depend on values read under another mutex, unlike DISP).
 *
 * expect: --algo=qpor -DP=2 -DC=1 => verdict=safe errors=none executions=16 blocked=0 ssb=0
 * expect: --algo=qpor -DP=2 -DC=2 => verdict=safe errors=none executions=316 blocked=0 ssb=0
 * expect: --algo=qpor -DP=2 -DC=2 --alt=sdpor => verdict=safe errors=none executions=316 ssb=0
 */
#include <assert.h>
#include <pthread.h>

#ifndef P
#define P 2
#endif
#ifndef C
#define C 2
#endif
#define CAP 2

pthread_mutex_t buf = PTHREAD_MUTEX_INITIALIZER, acct = PTHREAD_MUTEX_INITIALIZER;
int count, produced, consumed, full_seen;

void *producer(void *arg) {
    pthread_mutex_lock(&buf);
    if (count < CAP) {
        count++;
        pthread_mutex_lock(&acct);
        produced++;
        if (count == CAP) full_seen++;
        pthread_mutex_unlock(&acct);
    }
    pthread_mutex_unlock(&buf);
    return 0;
}

void *consumer(void *arg) {
    for (int attempt = 0; attempt < 2; attempt++) {
        int got = 0;
        pthread_mutex_lock(&buf);
        if (count > 0) {
            count--;
            got = 1;
        }
        pthread_mutex_unlock(&buf);
        if (got) {
            pthread_mutex_lock(&acct);
            consumed++;
            pthread_mutex_unlock(&acct);
        }
    }
    return 0;
}

int main(void) {
    pthread_t p[P], c[C];
    for (int i = 0; i < P; i++) pthread_create(&p[i], 0, producer, 0);
    for (int i = 0; i < C; i++) pthread_create(&c[i], 0, consumer, 0);
    for (int i = 0; i < P; i++) pthread_join(p[i], 0);
    for (int i = 0; i < C; i++) pthread_join(c[i], 0);
    assert(consumed <= produced && produced - consumed == count);
    return 0;
}
