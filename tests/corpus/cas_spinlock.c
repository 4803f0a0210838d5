/* cas_spinlock.c — N threads increment a plain counter under a test-and-test-and-set spin lock built from a C11
 * compare-exchange; main asserts the total after the joins. Expected verdict: safe.
 *
 * What it checks, first: the acquire loop only reads and compare-exchanges, so it is a spin loop (LowerInstr.cpp,
 * isSpinLoop) and an attempt whose compare-exchange failed is cut at the loop's back edge, after the inner wait too
 * (the state is as the attempt found it: only a later, successful attempt matters). Before, such a loop ran until
 * --unroll or --time-limit.
 * traces (derived): a thread's complete run takes the lock at its first attempt, so the complete executions are the
 * orders in which the threads take it: N! (2 for N=2, 6 for N=3), each its own trace (the counter's accesses and
 * the lock's writes order them); every run with a failed attempt is cut (blocked).
 * -DCOUNTED: the loop counts its attempts (a value carried from one to the next: not a spin loop), so every failed
 * attempt is explored. Then a compare-exchange that fails only reads (C11: a failed compare-exchange is a load),
 * so dfs counts the interleavings of two failing ones as one trace, and qpor's optimal mode must explore one
 * execution per trace: a compare-exchange is a read of the unfolding where the write it reads makes it fail
 * (core/explore/unfolding/DESIGN.md, "Compare-exchange"). Before that, every compare-exchange was a write there and
 * N=3 took 78 executions for dfs's 60 traces.
 * traces (derived for N=2 -DCOUNTED): which thread's first compare-exchange comes first (2 ways); the loser either
 * fails (it runs while the lock is held, then spins on the load, which spin-assume cuts while nothing changes, and
 * retries after the release) or comes after the release and succeeds: its failed attempt is a read of the winner's
 * write and commutes with the winner's plain accesses, so 2 x 2 = 4 traces; the runs cut while spinning are blocked.
 * -DWIDE: the lock is a long and the compare-exchange 8 bytes (two 4-byte words, each with the same parent write):
 * the same counts. At N=3 -DCOUNTED dfs takes 95,095 runs (2.3 s, too slow for this corpus) for its 60 traces; qpor
 * took 78 while a compare-exchange of two words was a write always.
 * -DBROKEN: the lock is taken with a plain test-then-set (load, then store: not a spin loop): both threads can
 * enter, and the counter's increments race. Expected verdict: error (data race, assertion).
 *
 * expect: -DN=2 => verdict=safe errors=none executions=26 traces=2 blocked=43 final_states=1
 * expect: -DN=3 => verdict=safe errors=none traces=6 final_states=1
 * expect: --algo=qpor -DN=2 => verdict=safe errors=none executions=2 blocked=4 ssb=0
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=6 blocked=48 ssb=0
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=6
 * expect: --algo=qpor -DN=3 -DWIDE => verdict=safe errors=none executions=6 ssb=0
 * expect: -DN=2 -DCOUNTED => verdict=safe errors=none executions=83 traces=4 blocked=22 final_states=1
 * expect: --algo=qpor -DN=2 -DCOUNTED => verdict=safe errors=none executions=4 blocked=2 ssb=0
 * expect: --algo=qpor -DN=3 -DCOUNTED => verdict=safe errors=none executions=60 blocked=51 ssb=0
 * expect: --algo=vhb -DN=3 -DCOUNTED => verdict=safe errors=none executions=36
 * expect: -DN=2 -DWIDE -DCOUNTED => verdict=safe errors=none traces=4
 * expect: --algo=qpor -DN=2 -DWIDE -DCOUNTED => verdict=safe errors=none executions=4 ssb=0
 * expect: --algo=qpor -DN=3 -DWIDE -DCOUNTED => verdict=safe errors=none executions=60 blocked=51 ssb=0
 * expect: -DN=2 -DBROKEN => verdict=error errors=assertion@95,data_race@84 executions=415 traces=20 blocked=55
 * expect: --algo=qpor -DN=2 -DBROKEN => verdict=error errors=assertion@95,data_race@84 executions=20 blocked=4 ssb=0
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

int acquire(void) {
    int tries = 0;
    for (;;) {
#ifdef COUNTED
        tries++; // carried from one attempt to the next: not a spin loop (see above)
#endif
#ifdef BROKEN
        if (atomic_load(&lock) == 0) {
            atomic_store(&lock, 1);
            return tries;
        }
#else
#ifdef WIDE
        long expected = 0;
#else
        int expected = 0;
#endif
        if (atomic_compare_exchange_strong(&lock, &expected, 1))
            return tries;
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
