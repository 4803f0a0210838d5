/* section_cas_lock.c — N threads increment a counter under a spin lock whose compare-and-swap is an SV-COMP atomic
 * section (`if (*p == old) { *p = new; ok = 1; }`, as SV-COMP's `__VERIFIER_atomic_CAS` helpers are written); the
 * spin reads and the release are sections too. main asserts the total after the joins. Expected verdict: safe.
 *
 * What it checks: the section writes the lock and `ok` when it finds the lock free and only reads the lock when it
 * does not, so its runs differ by what they read. qpor gives each event of such a site (one run per history) its
 * own run's accesses (core/explore/unfolding/DESIGN.md, "Atomic sections": SectionSite::runAccesses): a failing
 * attempt reads the lock and commutes with the other failing ones. Until 2026-11-26 (seventeenth session) every run
 * carried the union of the runs' accesses (a write of the lock): N=3 took 78 executions and 84 blocked for dfs's 60
 * traces; now 60 and 51.
 * traces (derived for N=2): as for tests/corpus/cas_spinlock.c — which thread's first attempt comes first (2), and
 * whether the loser's attempt fails while the lock is held (its spin read is then cut by the assume until the
 * release, blocked runs) or comes after the release: 2 x 2 = 4. N=3: dfs counts 60 traces in 95,095 runs (4.7 s,
 * too slow for this corpus).
 *
 * expect: -DN=2 => verdict=safe errors=none executions=83 traces=4 blocked=22 final_states=1
 * expect: --algo=qpor -DN=2 => verdict=safe errors=none executions=4 blocked=2 ssb=0 final_states=1
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=60 blocked=51 ssb=0 final_states=1
 * expect: --algo=vhb -DN=2 => verdict=safe errors=none executions=4 blocked=2 final_states=1
 */
#include <assert.h>
#include <pthread.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
void __VERIFIER_assume(int);

#ifndef N
#define N 3
#endif

int lock, counter;

int cas(int *p, int old, int nw) {
    int ok = 0;
    __VERIFIER_atomic_begin();
    if (*p == old) {
        *p = nw;
        ok = 1;
    }
    __VERIFIER_atomic_end();
    return ok;
}

void *worker(void *arg) {
    (void)arg;
    while (!cas(&lock, 0, 1)) {
        int v;
        __VERIFIER_atomic_begin();
        v = lock;
        __VERIFIER_atomic_end();
        __VERIFIER_assume(v == 0);
    }
    counter++;
    __VERIFIER_atomic_begin();
    lock = 0;
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++) pthread_create(&t[i], 0, worker, 0);
    for (int i = 0; i < N; i++) pthread_join(t[i], 0);
    assert(counter == N);
    return 0;
}
