/* rwlock_cache.c — two readers check an invariant (a == b) under a pthread_rwlock_t's read lock while a writer
 * updates both fields under its write lock.
 *
 * Read locks commute with each other (a read acquisition waits only for a writer); a write lock conflicts with every
 * operation on the lock, and its release orders the writer's updates before the readers that lock after it (a
 * reader's release orders its reads before a later writer). dfs and qpor explore reader-writer locks (qpor's
 * DESIGN.md, "Semaphores, reader-writer locks and barriers"); vhb hands such a program over.
 * traces (derived): each reader's critical section comes before or after the writer's; the readers' sections
 * commute: 2 × 2 = 4; final_states=1.
 *
 * -DNOLOCK: no lock: a reader can see a updated and b not (line 35), and the accesses race (lines 47 and 48).
 * -DSELFDEADLOCK: main, after the joins, read-locks the lock and then asks to write-lock it: it waits for its own
 * read lock — a deadlock (line 65).
 *
 * expect: => verdict=safe errors=none traces=4 blocked=0 final_states=1
 * expect: -DNOLOCK => verdict=error errors=assertion@35,data_race@47,data_race@48
 * expect: -DSELFDEADLOCK => verdict=error errors=deadlock@65 traces=4
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0 final_states=1
 * expect: -DNOLOCK --algo=qpor => verdict=error errors=assertion@35,data_race@47,data_race@48 executions=16 ssb=0
 * expect: -DSELFDEADLOCK --algo=qpor => verdict=error errors=deadlock@65 executions=0 blocked=4 ssb=0
 * expect: --algo=vhb => verdict=bounded errors=none
 */
#include <assert.h>
#include <pthread.h>

pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
int a, b; // invariant under the lock: a == b

void *reader(void *arg) {
    (void)arg;
#ifndef NOLOCK
    pthread_rwlock_rdlock(&lock);
#endif
    int x = a, y = b;
    assert(x == y);
#ifndef NOLOCK
    pthread_rwlock_unlock(&lock);
#endif
    return 0;
}

void *writer(void *arg) {
    (void)arg;
#ifndef NOLOCK
    pthread_rwlock_wrlock(&lock);
#endif
    a = a + 1;
    b = b + 1;
#ifndef NOLOCK
    pthread_rwlock_unlock(&lock);
#endif
    return 0;
}

int main(void) {
    pthread_t r1, r2, w;
    pthread_create(&r1, 0, reader, 0);
    pthread_create(&r2, 0, reader, 0);
    pthread_create(&w, 0, writer, 0);
    pthread_join(r1, 0);
    pthread_join(r2, 0);
    pthread_join(w, 0);
#ifdef SELFDEADLOCK
    pthread_rwlock_rdlock(&lock);
    pthread_rwlock_wrlock(&lock);
#endif
    assert(a == 1 && b == 1);
    return 0;
}
