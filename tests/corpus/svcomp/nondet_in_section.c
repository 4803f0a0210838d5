/* nondet_in_section.c — a nondeterministic value drawn inside an SV-COMP atomic section.
 *
 * t1's section draws r and writes x (r != 0) or y (r == 0); t2 writes y = 1. main asserts y != 2 after the
 * joins, which fails when the section draws 0 after t2's write. The draw is the section's first step: drawing it
 * starts the section, so it is not a thread-local choice that can be made early (dfs once resolved it first and
 * missed the order t2-then-section; fixed).
 * traces (derived): r != 0: the section writes x, independent of t2: 1; r == 0: the section and t2 both write y:
 * 2 orders; total 3.
 * qpor: each run of the section is an outcome of one action, with its own run's accesses, so the run that writes
 * x commutes with t2's write of y: 3 executions. (When every event of the section carried its footprint — x and y
 * written, whatever the run — it explored 4.)
 *
 * expect: --algo=qpor --no-race-detection => verdict=error errors=assertion@36 executions=3 ssb=0
 * expect: --algo=vhb --no-race-detection => verdict=error errors=assertion@36 executions=3 final_states=2
 */
#include <pthread.h>
#include <assert.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int __VERIFIER_nondet_int(void);
int x, y;
void *t1(void *arg) {
    __VERIFIER_atomic_begin(); int r = __VERIFIER_nondet_int(); if (r) x = 1; else y = 2; __VERIFIER_atomic_end();
    return 0;
}
void *t2(void *arg) {
    y = 1;
    return 0;
}
int main() {
    pthread_t a, b;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(y != 2);
    return 0;
}
