/* eratosthenes.c — two threads sieving the same table, the "eratosthenes(n)" row of Table 4 (individual
 * benchmarks) of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19),
 * where VC-DPOR's partitioning is 2–3 orders of magnitude coarser than the others.
 *
 * The shared table composite[2..N] starts all 0. Each of the two threads runs the whole sieve: for i = 2, 3, ...
 * while i*i <= N, if composite[i] is still 0 it crosses off i*i, i*i + i, ..., N by writing 1. A thread that
 * reads composite[i] before the other has crossed i off treats i as a prime and crosses off its multiples too:
 * extra work, same result. Main joins both and checks that exactly pi(N) entries are left (the primes <= N).
 *
 * What it models: the same value 1 written by both threads, and several times to one entry (12 is crossed off
 * by 2 and by 3): the Mazurkiewicz traces order all these equal writes, the value-centric classes only care
 * whether a read of composite[i] sees 0 or 1. composite[] is a C11 seq_cst atomic (race-free). Expected: safe.
 * N is the scaling parameter (default 10; the paper's parameter is a loop-unroll bound).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): N=8: 8, N=10: 32,
 * N=12: 160 (dfs: 184,755 executions), N=16: 1,090 (qpor).
 *
 * expect: => verdict=safe errors=none executions=12869 traces=32 blocked=0
 * expect: --algo=qpor => verdict=safe errors=none executions=32 blocked=0 ssb=0
 * expect: --algo=qpor -DN=12 => verdict=safe errors=none executions=160 blocked=0 ssb=0
 * expect: --algo=qpor -DN=16 => verdict=safe errors=none executions=1090 blocked=0 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 10
#endif

atomic_int composite[N + 1];

void *sieve(void *arg) {
    (void)arg;
    for (int i = 2; i * i <= N; i++) {
        if (composite[i]) continue;
        for (int j = i * i; j <= N; j += i) composite[j] = 1;
    }
    return 0;
}

static int is_prime(int n) { /* trial division, locally */
    for (int d = 2; d * d <= n; d++)
        if (n % d == 0) return 0;
    return 1;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, 0, sieve, 0);
    pthread_create(&t1, 0, sieve, 0);
    pthread_join(t0, 0);
    pthread_join(t1, 0);
    for (int n = 2; n <= N; n++) assert(composite[n] == !is_prime(n));
    return 0;
}
