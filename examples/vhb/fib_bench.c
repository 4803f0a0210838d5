/* fib_bench.c — the fib_bench variants of the VC-DPOR paper (OOPSLA'19, Sec. 7, Fig. 8), after SV-COMP's
 * fib_bench: two workers repeat K times x = (x + y) % M and y = (y + x) % M (x = y = 1 at the start; M = 0
 * means no modulus). The smaller M, the more writes store equal values and the fewer value classes vhb
 * explores, while the Mazurkiewicz traces do not depend on M: K=2 gives 19 traces for every M, and vhb explores
 * 19 classes without modulus, 15 with M=3, 8 with M=2 and 7 with M=1 (measured; with M=1 every write stores 0,
 * and the 7 classes are the ways the four reads of each worker see the initial 1 or a 0). Expected: safe.
 *
 * expect: --algo=vhb -DK=2 -DM=1 => verdict=safe errors=none executions=7 final_states=1
 * expect: --algo=vhb -DK=2 -DM=2 => verdict=safe errors=none executions=8 final_states=4
 * expect: --algo=vhb -DK=2 -DM=3 => verdict=safe errors=none executions=15 final_states=9
 * expect: --algo=vhb -DK=2 -DM=0 => verdict=safe errors=none executions=19 final_states=16
 * expect: --algo=dfs -DK=2 -DM=2 => verdict=safe errors=none traces=19 final_states=4
 * expect: --algo=qpor -DK=2 -DM=1 => verdict=safe errors=none executions=19 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef K
#define K 3
#endif
#ifndef M
#define M 2
#endif

atomic_int x = 1, y = 1;

static int mod(int v) { return M ? v % M : v; }

void *fx(void *arg) {
    (void)arg;
    for (int i = 0; i < K; i++) x = mod(x + y);
    return 0;
}

void *fy(void *arg) {
    (void)arg;
    for (int i = 0; i < K; i++) y = mod(y + x);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, fx, 0);
    pthread_create(&b, 0, fy, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(M == 0 || (x < M && y < M));
    return 0;
}
