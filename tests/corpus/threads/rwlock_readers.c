/* rwlock_readers.c — two readers read a shared int under a pthread_rwlock_t's read lock while a writer sets it
 * under the write lock.
 *
 * traces (derived): the read-mode operations (lock, unlock) of the readers commute with each other, and every one of
 * them conflicts with the writer's write-mode ones. A reader's section lies wholly before the write lock or after
 * the write unlock: 2^2 = 4 traces; qpor explores 4 executions in every mode (the readers' lock operations are never
 * ordered among themselves). Final states: what each reader saw, 0 or 1: 4.
 * -DTRY: the writer tries once (pthread_rwlock_trywrlock) and writes only if it got the lock. The try is ordered
 * against each reader's lock and unlock: before the lock, between the two (the reader is inside: the try fails) or
 * after the unlock. It succeeds in the 2^2 = 4 traces where no reader is inside, and fails in the 3^2 − 4 = 5 where
 * some reader is: 9 traces, 9 executions for qpor; final states: those 4, and x left 0 with both readers seeing 0.
 * -DHOLD: the second reader never unlocks. Where its lock comes before the write lock, the writer waits for good —
 * a deadlock (line 49), one trace: the other reader's operations commute with all that happened; where the writer
 * goes first, the other reader before or after it: 2 traces that end normally. 3 traces.
 *
 * expect: => verdict=safe errors=none traces=4 blocked=0 final_states=4
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0 final_states=4
 * expect: --algo=qpor --alt=sdpor => verdict=safe errors=none executions=4 blocked=0
 * expect: -DTRY => verdict=safe errors=none traces=9 blocked=0 final_states=5
 * expect: -DTRY --algo=qpor => verdict=safe errors=none executions=9 blocked=0 ssb=0 final_states=5
 * expect: -DHOLD => verdict=error errors=deadlock@49 traces=3
 * expect: -DHOLD --algo=qpor => verdict=error errors=deadlock@49 executions=2 blocked=1 ssb=0
 */
#include <pthread.h>

pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
int x;
int seen[2];

void *reader(void *arg) {
    long id = (long)arg;
    pthread_rwlock_rdlock(&lock);
    seen[id] = x;
#ifdef HOLD
    if (id == 1) return 0;
#endif
    pthread_rwlock_unlock(&lock);
    return 0;
}

void *writer(void *arg) {
    (void)arg;
#ifdef TRY
    if (pthread_rwlock_trywrlock(&lock) == 0) {
        x = 1;
        pthread_rwlock_unlock(&lock);
    }
#else
    pthread_rwlock_wrlock(&lock);
    x = 1;
    pthread_rwlock_unlock(&lock);
#endif
    return 0;
}

int main(void) {
    pthread_t r[2], w;
    for (long i = 0; i < 2; ++i) pthread_create(&r[i], 0, reader, (void *)i);
    pthread_create(&w, 0, writer, 0);
    for (int i = 0; i < 2; ++i) pthread_join(r[i], 0);
    pthread_join(w, 0);
    return 0;
}
