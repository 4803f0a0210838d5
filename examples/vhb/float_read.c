/* float_read.c — the float_read(N) family of the VC-DPOR paper (OOPSLA'19, Table 4, adapted from Aronis et al.,
 * TACAS'18): N threads each write once to x — thread i stores i, so thread 0 stores x's initial value — and one
 * thread reads it. The read observes one of the N distinct values 0..N-1: N value classes (vhb explores N),
 * against (N+1)! Mazurkiewicz traces (the N writes in any order, the read at any of N+1 places: N=3: 24).
 * Expected: safe.
 *
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=3
 * expect: --algo=vhb -DN=9 => verdict=safe errors=none executions=9
 * --vhb-equivalence=paper: the root is writer 0 (writes 0, the initial value); writers 1..N-1 and the reader
 * are leaves. With App. D optimisation 3 the leaf writes, never-good when WExtend adds them, stay unordered; the
 * read observing v makes writer v good, and the others stay never-good (unordered with it). With optimisation 2
 * (a read observing v that ends in a maximal trace stops its siblings reading v): N classes, as the paper
 * reports (Table 4, float_read(9) = 9). Without optimisation 3 it was N! (core/explore/vhb/DESIGN.md).
 * expect: --algo=vhb --vhb-equivalence=paper -DN=2 => verdict=safe errors=none executions=2
 * expect: --algo=vhb --vhb-equivalence=paper -DN=3 => verdict=safe errors=none executions=3
 * expect: --algo=vhb --vhb-equivalence=paper -DN=4 => verdict=safe errors=none executions=4
 * expect: --algo=dfs -DN=3 => verdict=safe errors=none traces=24
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=24 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 4
#endif

atomic_int x = 0;

void *writer(void *arg) {
    x = (int)(long)arg;
    return 0;
}

void *reader(void *arg) {
    (void)arg;
    int v = x;
    assert(v >= 0 && v < N);
    return 0;
}

int main(void) {
    pthread_t w[N], r;
    for (long i = 0; i < N; i++) pthread_create(&w[i], 0, writer, (void *)i);
    pthread_create(&r, 0, reader, 0);
    for (int i = 0; i < N; i++) pthread_join(w[i], 0);
    pthread_join(r, 0);
    return 0;
}
