/* spin_lock_attempts.c — two threads increment a plain counter under a lock taken by spinning on a failed attempt;
 * main asserts the total after the joins. Expected verdict: safe.
 *
 * What it checks: a loop whose iterations only read or try to change memory and fail — a pthread_mutex_trylock
 * that returns EBUSY, an exchange that writes the value it read, with sched_yield() or usleep() between attempts —
 * is a spin loop (core/program/LowerInstr.cpp, isSpinLoop): an iteration that changed nothing is cut at the back
 * edge, as GenMC's spin-assume cuts one that only read. Before, these loops ran until --unroll or --time-limit
 * (dfs: 7,305 executions in 5 s and counting; vhb: none).
 * traces (derived): a worker's complete run takes the lock at its first attempt, so the complete executions are the
 * two orders in which the workers take it, each its own trace; a run with a failed attempt is cut (blocked).
 * -DXCHG: the lock is an atomic int taken with atomic_exchange(&l, 1): an exchange that read 1 wrote 1, which under
 * sequential consistency changes nothing. The same counts.
 * -DYIELD: sched_yield() between two trylocks (a no-op in the model, and so inside a spin loop). The same counts.
 * -DBUG: the trylock variant increments after the unlock: the increments race and one can be lost. Expected
 * verdict: error (data race, assertion) — the cut attempts hide no interleaving of the increments. traces
 * (derived): the lock's two orders, times the four traces of two read-then-write increments after their unlocks
 * (one after the other either way, or both reads first and either write last): 8.
 * -DDRAIN: each worker decrements a budget of 2 with fetch_sub until it reads a value <= 0: every iteration
 * changes memory, so none is cut and both workers finish. traces (derived): the four fetch_subs read 2, 1, 0, -1 in
 * order; the third and fourth are the two workers' last (each stops at its first value <= 0), in either order, and
 * the first two belong to either worker: 2 x 4 = 8; none blocked; the budget ends at -2.
 *
 * expect: => verdict=safe errors=none executions=26 traces=2 blocked=12 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=2 ssb=0
 * expect: --algo=qpor --alt=sdpor => verdict=safe errors=none executions=2
 * expect: --algo=vhb => verdict=safe errors=none executions=2
 * expect: -DXCHG => verdict=safe errors=none executions=26 traces=2 blocked=12 final_states=1
 * expect: --algo=qpor -DXCHG => verdict=safe errors=none executions=2 blocked=2 ssb=0
 * expect: --algo=vhb -DXCHG => verdict=safe errors=none executions=2
 * expect: -DYIELD => verdict=safe errors=none traces=2 final_states=1
 * expect: --algo=qpor -DYIELD => verdict=safe errors=none executions=2 ssb=0
 * expect: -DBUG => verdict=error errors=assertion@85,data_race@67 traces=8
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@85,data_race@67 executions=8 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@85,data_race@67
 * expect: -DDRAIN => verdict=safe errors=none traces=8 blocked=0 final_states=1
 * expect: --algo=qpor -DDRAIN => verdict=safe errors=none executions=8 blocked=0 ssb=0
 * expect: --algo=vhb -DDRAIN => verdict=safe errors=none executions=8 blocked=0
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
atomic_int l;
atomic_int budget = 2;
int counter;

void *worker(void *arg) {
    (void)arg;
#if defined(DRAIN)
    while (atomic_fetch_sub(&budget, 1) > 0)
        ;
#elif defined(XCHG)
    while (atomic_exchange(&l, 1))
        ;
    counter++;
    atomic_store(&l, 0);
#else
    while (pthread_mutex_trylock(&m)) {
#ifdef YIELD
        sched_yield();
#endif
    }
#ifdef BUG
    pthread_mutex_unlock(&m);
    counter++;
#else
    counter++;
    pthread_mutex_unlock(&m);
#endif
#endif
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
#ifdef DRAIN
    assert(budget == -2);
#else
    assert(counter == 2);
#endif
    return 0;
}
