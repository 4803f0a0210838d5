/* semaphore_buffer.c — a one-slot buffer between a producer and a consumer, guarded by two POSIX semaphores.
 *
 * `empty` (1) counts free slots, `full` (0) filled ones: the producer waits on empty, writes the slot, posts full;
 * the consumer waits on full, reads the slot, posts empty. Each of ROUNDS (2) items is handed over in order.
 * Skein models sem_init/sem_wait/sem_trywait/sem_post (the count in the semaphore, a wait blocking at 0, a post
 * releasing to the waits after it); dfs and qpor explore them (core/explore/unfolding/DESIGN.md, "Semaphores"),
 * vhb hands such a program over.
 * traces (derived): every pair of dependent events of the two threads is ordered by the semaphores (a wait after
 * the post that enabled it, the slot's write k before the consumer's wait k, its read k before the producer's wait
 * k+1): 1 trace; final_states=1.
 *
 * -DTRY: the consumer polls with `while (sem_trywait(&full) != 0);` — a spin loop: an iteration that took no unit
 * is cut (and counted as blocked), so no loop bound is needed: safe, the same trace.
 * -DBUG: the consumer waits on `empty` instead of `full`: it can take the free slot before anything is written and
 * read 0 — an assertion failure (line 66) — and either way the producer ends up waiting on `empty` for good while
 * the consumer waits there too: a deadlock (line 44; 2 traces).
 * -DNOSEM: no semaphores at all: the slot's accesses race (line 65) and the consumer may read a stale value.
 *
 * expect: => verdict=safe errors=none traces=1 blocked=0 final_states=1
 * expect: -DTRY => verdict=safe errors=none traces=1 final_states=1
 * expect: -DBUG => verdict=error errors=assertion@66,deadlock@44 traces=2
 * expect: -DNOSEM => verdict=error errors=assertion@66,data_race@65
 * expect: -DNOSEM --algo=qpor => verdict=error errors=assertion@66,data_race@65
 * expect: --algo=qpor => verdict=safe errors=none executions=1 blocked=0 ssb=0 final_states=1
 * expect: -DTRY --algo=qpor => verdict=safe errors=none executions=1 ssb=0 final_states=1
 * expect: -DBUG --algo=qpor => verdict=error errors=assertion@66,deadlock@44 executions=1 blocked=1 ssb=0
 * expect: --algo=vhb => verdict=bounded errors=none
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

#ifndef ROUNDS
#define ROUNDS 2
#endif

sem_t empty, full;
int slot;

void *producer(void *arg) {
    (void)arg;
    for (int i = 1; i <= ROUNDS; ++i) {
#ifndef NOSEM
        sem_wait(&empty);
#endif
        slot = i;
#ifndef NOSEM
        sem_post(&full);
#endif
    }
    return 0;
}

void *consumer(void *arg) {
    (void)arg;
    for (int i = 1; i <= ROUNDS; ++i) {
#if defined(BUG)
        sem_wait(&empty);
#elif defined(TRY)
        while (sem_trywait(&full) != 0)
            ;
#elif !defined(NOSEM)
        sem_wait(&full);
#endif
        int v = slot;
        assert(v == i);
#ifndef NOSEM
        sem_post(&empty);
#endif
    }
    return 0;
}

int main(void) {
    sem_init(&empty, 0, 1);
    sem_init(&full, 0, 0);
    pthread_t p, c;
    pthread_create(&p, 0, producer, 0);
    pthread_create(&c, 0, consumer, 0);
    pthread_join(p, 0);
    pthread_join(c, 0);
    return 0;
}
