/* fig3b.c — Fig. 3b of the VC-DPOR paper (OOPSLA'19): few operations on many variables. p1 writes 0 twice to
 * each of x[0..N-1] in turn, p2 reads each x[i] once (all start at 0). Every read observes 0: one value class
 * (vhb explores 1), while each read goes before, between or after the two writes of its variable, independently
 * for each variable: 3^N happens-before classes (N=3: 27), at least the paper's 2^N. `x` is atomic.
 * Expected: safe.
 *
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=1
 * expect: --algo=vhb -DN=10 => verdict=safe errors=none executions=1
 * --vhb-equivalence=paper, by hand from Sec. 3 (the paper's own argument): the root writes only (S empty),
 * the only leaf accesses are p2's reads (leaf HB and CHB on reads are p2's thread order), all values are 0:
 * one maximal class.
 * expect: --algo=vhb --vhb-equivalence=paper -DN=3 => verdict=safe errors=none executions=1
 * expect: --algo=vhb --vhb-equivalence=paper -DN=10 => verdict=safe errors=none executions=1
 * expect: --algo=dfs -DN=3 => verdict=safe errors=none traces=27
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=27 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 4
#endif

atomic_int x[N];

void *p1(void *arg) {
    (void)arg;
    for (int i = 0; i < N; i++) {
        x[i] = 0;
        x[i] = 0;
    }
    return 0;
}

void *p2(void *arg) {
    (void)arg;
    for (int i = 0; i < N; i++) assert(x[i] == 0);
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
