/* coin.c — memoised coin change computed top-down by W threads sharing one table, the "coin_min_td3/td4"
 * (default) and "coin_all_td3/td4" (-DALL) rows of Table 2 (dynamic-programming benchmarks) of Chatterjee,
 * Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19).
 *
 * Coins 1, 3, 4 (unlimited supply; greedy is not optimal: 6 = 3 + 3), change N.
 *   - coin_min (default): the fewest coins that make n, f(0) = 0, f(n) = 1 + min_{c <= n} f(n - c), memo[1..N]
 *     (0 = not computed yet; f(n) >= 1 for n >= 1);
 *   - coin_all (-DALL): the number of ways to make n from the first k coin kinds, w(0, k) = 1, w(n, 0) = 0,
 *     w(n, k) = w(n, k-1) + (n >= c_k ? w(n - c_k, k) : 0), memo2[n][k] holding w + 1 (0 = not computed yet).
 * W worker threads (-DW; the paper's td3/td4 have 2/3 workers plus one reader) each run the recursion for N,
 * returning an entry another worker has already stored instead of recomputing it, then set `done`. Main is the
 * reader: after starting the workers it reads `done` and, if it is set, checks the answer entry; after the joins
 * it checks it again.
 *
 * What it models: equal values written by several threads to the same memo entries; which thread fills an entry
 * first changes which sub-problems the others recompute (the read sees 0 or the value), but not the values.
 * The tables and done are C11 seq_cst atomics (race-free). Expected: safe. N is the paper's scaling parameter
 * (default 2).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): coin_min, W=2:
 * N=2: 68, N=3: 152 (dfs: 125,241 executions), N=4: 348, N=5: 880, N=6: 2,420 (qpor); W=3, N=2: 5,448;
 * coin_all, W=2: N=1: 152 (dfs), N=2: 320 (qpor).
 *
 * expect: => verdict=safe errors=none executions=6926 traces=68 blocked=0
 * expect: --algo=qpor => verdict=safe errors=none executions=68 blocked=0 ssb=0
 * expect: --algo=qpor -DN=4 => verdict=safe errors=none executions=348 blocked=0 ssb=0
 * expect: --algo=qpor -DALL -DN=1 => verdict=safe errors=none executions=152 blocked=0 ssb=0
 * expect: --algo=qpor -DALL => verdict=safe errors=none executions=320 blocked=0 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 2
#endif
#ifndef W
#define W 2
#endif
#define K 3 /* coin kinds */

static int coin(int k) { return k == 0 ? 1 : k == 1 ? 3 : 4; }

atomic_int done;

#ifndef ALL
atomic_int memo[N + 1];

static int solve(int n) {
    if (n == 0) return 0;
    int m = memo[n];
    if (m != 0) return m;
    int b = n; /* n coins of 1 */
    for (int k = 0; k < K; k++)
        if (coin(k) <= n) {
            int v = 1 + solve(n - coin(k));
            if (v < b) b = v;
        }
    memo[n] = b;
    return b;
}

static int reference(void) { /* the sequential answer, locally */
    int f[N + 1];
    f[0] = 0;
    for (int n = 1; n <= N; n++) {
        f[n] = n;
        for (int k = 0; k < K; k++)
            if (coin(k) <= n && 1 + f[n - coin(k)] < f[n]) f[n] = 1 + f[n - coin(k)];
    }
    return f[N];
}
#define ANSWER (memo[N])
#define RUN() solve(N)
#else
atomic_int memo2[N + 1][K + 1];

static int solve(int n, int k) {
    if (n == 0) return 1;
    if (k == 0) return 0;
    int m = memo2[n][k];
    if (m != 0) return m - 1;
    int v = solve(n, k - 1);
    if (n >= coin(k - 1)) v += solve(n - coin(k - 1), k);
    memo2[n][k] = v + 1;
    return v;
}

static int reference(void) { /* the sequential answer, locally */
    int w[N + 1];
    w[0] = 1;
    for (int n = 1; n <= N; n++) w[n] = 0;
    for (int k = 0; k < K; k++)
        for (int n = coin(k); n <= N; n++) w[n] += w[n - coin(k)];
    return w[N];
}
#define ANSWER (memo2[N][K] - 1)
#define RUN() solve(N, K)
#endif

void *worker(void *arg) {
    (void)arg;
    RUN();
    done = 1;
    return 0;
}

int main(void) {
    int expect = reference();
    pthread_t t[W];
    for (long i = 0; i < W; i++) pthread_create(&t[i], 0, worker, (void *)i);
    if (done) assert(ANSWER == expect); /* the reader */
    for (int i = 0; i < W; i++) pthread_join(t[i], 0);
    assert(ANSWER == expect);
    return 0;
}
