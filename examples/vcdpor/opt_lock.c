/* opt_lock.c — optimistic locking: T threads each increment a shared datum once, reading it without the lock and
 * committing under the lock only if a version counter shows that nobody committed in between (else they retry,
 * at most R attempts). The "opt_lock(n)" row of Table 4 (individual benchmarks) of Chatterjee, Pavlogiannis,
 * Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19): "three threads in an optimistic-lock
 * scheme", scaled by a loop-unroll bound (here R).
 *
 *   attempt:  v = ver; d = data;                         (optimistic snapshot)
 *             if (CAS(lock, 0, 1)) {                      (commit lock; a busy lock fails the attempt)
 *                 if (ver == v) { data = d + 1; ver = v + 1; committed }
 *                 lock = 0;
 *             }
 *
 * An execution in which a thread used up its R attempts without committing is cut (__VERIFIER_assume: a bounded
 * model of an unbounded retry loop; counted as blocked). In the others every thread committed once, so main
 * checks data == T and ver == T after the joins. lock, ver and data are C11 seq_cst atomics (race-free).
 * Value-centric angle: lock is written 1 and 0 over and over, and a failed CAS or a validation read does not
 * care which of the equal writes it sees. Expected: safe. Defaults T=2 (the paper uses 3), R=2.
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): T=2: R=2: 12,
 * R=3: 30 (dfs: 37,666 executions); T=3: R=2: 708, R=3: 10,050 (qpor; 762 and 13,872 until a failed CAS became a
 * read of the unfolding — core/explore/unfolding/DESIGN.md, "Compare-exchange" — as it is for dfs's traces).
 *
 * expect: => verdict=safe errors=none executions=5694 traces=12 blocked=4925
 * expect: --algo=qpor => verdict=safe errors=none executions=12 blocked=18 ssb=0
 * expect: --algo=qpor -DR=3 => verdict=safe errors=none executions=30 blocked=28 ssb=0
 * expect: --algo=qpor -DT=3 => verdict=safe errors=none executions=708 blocked=3546 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

extern void __VERIFIER_assume(int);

#ifndef T
#define T 2
#endif
#ifndef R
#define R 2
#endif

atomic_int lock, ver, data;

void *worker(void *arg) {
    (void)arg;
    int ok = 0;
    for (int a = 0; a < R && !ok; a++) {
        int v = ver, d = data;
        int expected = 0;
        if (atomic_compare_exchange_strong(&lock, &expected, 1)) {
            if (ver == v) {
                data = d + 1;
                ver = v + 1;
                ok = 1;
            }
            lock = 0;
        }
    }
    __VERIFIER_assume(ok);
    return 0;
}

int main(void) {
    pthread_t t[T];
    for (long i = 0; i < T; i++) pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < T; i++) pthread_join(t[i], 0);
    assert(data == T && ver == T);
    return 0;
}
