/* cas_spinlock.c — N threads increment a plain counter under a test-and-test-and-set spin lock built from a C11
 * compare-exchange; main asserts the total after the joins. Expected verdict: safe.
 *
 * What it checks: a compare-exchange that fails only reads (C11: a failed compare-exchange is a load), so dfs
 * counts the interleavings of two failing ones as one trace, and qpor's optimal mode must explore one execution per
 * trace: a compare-exchange is a read of the unfolding where the write it reads makes it fail
 * (core/explore/unfolding/DESIGN.md, "Compare-exchange"). Before that, every compare-exchange was a write there and
 * N=3 took 78 executions for dfs's 60 traces.
 * traces (derived for N=2): which thread's first compare-exchange comes first (2 ways); the loser either fails (it
 * runs while the lock is held, then spins on the load, which spin-assume cuts while nothing changes, and retries
 * after the release) or comes after the release and succeeds: its failed attempt is a read of the winner's write
 * and commutes with the winner's plain accesses, so 2 x 2 = 4 traces; the runs cut while spinning are blocked.
 * -DWIDE: the lock is a long and the compare-exchange 8 bytes (two 4-byte words, each with the same parent write):
 * the same counts. At N=3 dfs takes 95,095 runs (2.3 s, too slow for this corpus) for its 60 traces; qpor took 78
 * while a compare-exchange of two words was a write always.
 * -DBROKEN: the lock is taken with a plain test-then-set (load, then store): both threads can enter, and the
 * counter's increments race. Expected verdict: error (data race, assertion).
 *
 * expect: -DN=2 => verdict=safe errors=none executions=83 traces=4 blocked=22 final_states=1
 * expect: --algo=qpor -DN=2 => verdict=safe errors=none executions=4 blocked=2 ssb=0
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=60 blocked=51 ssb=0
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=36
 * expect: -DN=2 -DWIDE => verdict=safe errors=none traces=4
 * expect: --algo=qpor -DN=2 -DWIDE => verdict=safe errors=none executions=4 ssb=0
 * expect: --algo=qpor -DN=3 -DWIDE => verdict=safe errors=none executions=60 blocked=51 ssb=0
 * expect: -DN=2 -DBROKEN => verdict=error errors=assertion@77,data_race@66 executions=415 traces=20 blocked=55
 * expect: --algo=qpor -DN=2 -DBROKEN => verdict=error errors=assertion@77,data_race@66 executions=20 blocked=4 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef WIDE
atomic_long lock;
#else
atomic_int lock;
#endif
int counter;

void acquire(void) {
    for (;;) {
#ifdef BROKEN
        if (atomic_load(&lock) == 0) {
            atomic_store(&lock, 1);
            return;
        }
#else
#ifdef WIDE
        long expected = 0;
#else
        int expected = 0;
#endif
        if (atomic_compare_exchange_strong(&lock, &expected, 1))
            return;
#endif
        while (atomic_load(&lock) != 0)
            ;
    }
}

void release(void) { atomic_store(&lock, 0); }

void *worker(void *arg) {
    (void)arg;
    acquire();
    counter++;
    release();
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], 0);
    assert(counter == N);
    return 0;
}
