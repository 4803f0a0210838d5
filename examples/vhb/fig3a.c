/* fig3a.c — Fig. 3a of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction"
 * (OOPSLA'19): many operations on one variable. p1 writes 0 to x N times, p2 reads x N times (x starts at 0).
 * Every read observes 0 whatever the interleaving: one value class (vhb explores 1), while the happens-before
 * (Mazurkiewicz) classes are the C(2N, N) interleavings of the two threads (N=3: 20, N=4: 70) — the exponential
 * gap of Sec. 3. `x` is atomic (the paper assumes sequential consistency). Expected: safe.
 *
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=1
 * expect: --algo=vhb -DN=8 => verdict=safe errors=none executions=1
 * --vhb-equivalence=paper, by hand from Sec. 3 (the paper's own argument): the root writes only (S empty),
 * the only leaf accesses are p2's reads (leaf HB and CHB on reads are p2's thread order), all values are 0:
 * one maximal class.
 * expect: --algo=vhb --vhb-equivalence=paper -DN=3 => verdict=safe errors=none executions=1
 * expect: --algo=vhb --vhb-equivalence=paper -DN=8 => verdict=safe errors=none executions=1
 * expect: --algo=dfs -DN=3 => verdict=safe errors=none traces=20
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=20 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 4
#endif

atomic_int x = 0;

void *p1(void *arg) {
    (void)arg;
    for (int i = 0; i < N; i++) x = 0;
    return 0;
}

void *p2(void *arg) {
    (void)arg;
    for (int i = 0; i < N; i++) assert(x == 0);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, p1, 0);
    pthread_create(&b, 0, p2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
