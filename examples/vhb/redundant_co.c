/* redundant_co.c — the redundant_co(N) family of the VC-DPOR paper (OOPSLA'19, Table 4, after Aronis et al.,
 * TACAS'18): two threads each store 1, 2, ..., N to x in turn (redundant coherence: they write the same
 * values), a third reads x once. The read observes one of 0..N: N+1 value classes (vhb explores N+1), while the
 * coherence orders of the 2N writes alone give C(2N, N) happens-before classes, times the read's place (N=2:
 * dfs counts 30 Mazurkiewicz traces).
 * Expected: safe.
 *
 * expect: --algo=vhb -DN=2 => verdict=safe errors=none executions=3
 * expect: --algo=vhb -DN=8 => verdict=safe errors=none executions=9
 * --vhb-equivalence=paper: the root is writer a (writes only), the leaves writer b and the reader. By hand from
 * Sec. 3: the read's place among b's N writes (N+1 leaf HB orders) and its value (b's last write before it, or
 * any of a's, or 0 before b writes) give N^2+N+1 VHB classes; optimisation 2 (App. D) explores one per value,
 * N+1. (The paper's redundant_co(2) = 11 is another program: its threads loop differently.)
 * expect: --algo=vhb --vhb-equivalence=paper -DN=2 => verdict=safe errors=none executions=3
 * expect: --algo=vhb --vhb-equivalence=paper -DN=8 => verdict=safe errors=none executions=9
 * expect: --algo=dfs -DN=2 => verdict=safe errors=none traces=30
 * expect: --algo=qpor -DN=2 => verdict=safe errors=none executions=30 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 3
#endif

atomic_int x = 0;

void *writer(void *arg) {
    (void)arg;
    for (int i = 1; i <= N; i++) x = i;
    return 0;
}

void *reader(void *arg) {
    (void)arg;
    int v = x;
    assert(v >= 0 && v <= N);
    return 0;
}

int main(void) {
    pthread_t a, b, c;
    pthread_create(&a, 0, writer, 0);
    pthread_create(&b, 0, writer, 0);
    pthread_create(&c, 0, reader, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    pthread_join(c, 0);
    return 0;
}
