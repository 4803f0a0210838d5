/* condpor_wsrr.c — program W+SW+R+R of Sec. 2.2 of "Optimal Concolic Dynamic Partial Order Reduction"
 * (CONDPOR, CONCUR'25):
 *
 *   x = 1  ||  y = nondet()  ||  assert(y != 42)  ||  b = x
 *
 * Naively 36 behaviours; CONDPOR's symbolic equivalence has 6 classes (Fig. 1 of the paper): the read of x
 * before/after the write (2) x {the read of y sees 0, sees the symbolic value and it is 42, sees it and it is not
 * 42} (3). Skein enumerates concrete nondet values instead.
 *
 * Default domain {0,1}: no error; verdict `bounded` (sampled domain). traces (derived): 2 orders on x x 2 orders
 * on y x 2 nondet values = 8 (the value is part of the trace even when the read of y comes first).
 * final_states=4: x == 1 always; y == 0 or 1; b (a global here, so it is part of the state) == 0 or 1.
 *
 * --nondet=0,42: the assertion fails when thread 3 reads y after thread 2 wrote 42. Expected verdict: error.
 * traces: the same 8 as above (the failing assertion stops only thread 3; the others run to the end), 2 of
 * which fail: value 42 with y read after the write.
 * x and y are C11 atomics (sequential consistency, race-free) as in the paper; b is written only by thread 4.
 *
 * expect: => verdict=bounded errors=none executions=3660 traces=8 blocked=0 final_states=4
 * expect: --algo=qpor => verdict=bounded errors=none executions=8 blocked=0 ssb=0
 * expect: --nondet=0,42 => verdict=error errors=assertion@34 executions=3289 traces=8 blocked=0 final_states=4
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

extern int __VERIFIER_nondet_int(void);

atomic_int x = 0, y = 0;
int b = 0;

void *w(void *arg) { (void)arg; x = 1; return 0; }
void *sw(void *arg) { (void)arg; y = __VERIFIER_nondet_int(); return 0; }
void *r1(void *arg) { (void)arg; assert(y != 42); return 0; }
void *r2(void *arg) { (void)arg; b = x; return 0; }

int main(void) {
    pthread_t t[4];
    pthread_create(&t[0], 0, w, 0);
    pthread_create(&t[1], 0, sw, 0);
    pthread_create(&t[2], 0, r1, 0);
    pthread_create(&t[3], 0, r2, 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], 0);
    return 0;
}
