/* condpor_rsw.c — program RS+W of Sec. 2.2 of "Optimal Concolic Dynamic Partial Order Reduction" (CONDPOR,
 * CONCUR'25):
 *
 *   Thread I:                          Thread II:
 *   a = x;                             x = 1;
 *   b = nondet();
 *   assert(a == 0 || b != 42);
 *
 * The assertion fails only if thread I reads x == 1 (after thread II's write) AND nondet() returns 42.
 * CONDPOR treats b symbolically; Skein enumerates a domain of values for __VERIFIER_nondet_int (default {0, 1}).
 *
 * Default domain {0,1}: 42 is never drawn, so no error is found — but the domain was sampled, so the verdict is
 * `bounded`, not `safe`. traces (derived): the read of x before or after the write (2) x the 2 nondet values = 4;
 * final_states=1 (x == 1; a and b are locals).
 * --nondet=0,42: the error is found (read after write, b == 42). Expected verdict: error; the same 4 traces
 * (the failing one ends at the assertion, after all events).
 * x is a C11 atomic (the paper assumes sequential consistency), so no data race is reported.
 *
 * expect: => verdict=bounded errors=none executions=10 traces=4 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=bounded errors=none executions=4 blocked=0 ssb=0
 * expect: --nondet=0,42 => verdict=error errors=assertion@35 executions=10 traces=4 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

extern int __VERIFIER_nondet_int(void);

atomic_int x = 0;

void *thread1(void *arg) {
    (void)arg;
    int a = x;
    int b = __VERIFIER_nondet_int();
    assert(a == 0 || b != 42);
    return 0;
}

void *thread2(void *arg) {
    (void)arg;
    x = 1;
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, thread1, 0);
    pthread_create(&t2, 0, thread2, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
