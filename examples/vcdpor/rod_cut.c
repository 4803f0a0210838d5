/* rod_cut.c — memoised rod cutting computed by W threads sharing one table, the "rod_cut_bu3/bu4" (default) and
 * "rod_cut_td3/td4" (-DTD) rows of Table 2 (dynamic-programming benchmarks) of Chatterjee, Pavlogiannis, Toman,
 * "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19).
 *
 * Given a rod of length N and the price p(l) of a piece of length l (CLRS's table 1,5,8,9,10,17,17,20,24,30),
 * best(n) = max(p(n), max_{1<=j<n} p(j) + best(n - j)). W worker threads (-DW; the paper's "3"/"4" variants have
 * 2/3 workers plus one reader) each compute best(N) into the shared memo table memo[1..N] (0 = not computed yet;
 * every length earns > 0), skipping entries another worker has already filled in:
 *   - bottom-up (default): for n = 1..N, if memo[n] is still 0, compute it from memo[1..n-1] and store it;
 *   - top-down (-DTD): the recursive best(n) returns memo[n] if it is set, else computes and stores it.
 * A worker then sets `done`. Main is the reader: after starting the workers it reads `done` and, if it is set,
 * checks memo[N]; after the joins it checks memo[N] again.
 *
 * What it models: the workers write the same value to every table entry they both compute, so most of the
 * Mazurkiewicz traces differ only in which of two equal writes a read sees — VC-DPOR's value-centric classes
 * merge them. memo[] and done are C11 seq_cst atomics (race-free). Expected: safe. N is the paper's scaling
 * parameter (default 2).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run):
 *   bottom-up, W=2: N=1: 26, N=2: 144 (dfs: 26,961 executions), N=3: 852, N=4: 5,100 (qpor);
 *   top-down,  W=2: N=2: 68, N=3: 180, N=4: 544 (qpor);
 *   W=3, N=2: bottom-up 33,912 — the very count the paper reports for Source- and Optimal-DPOR on
 *   rod_cut_bu4(2) — and top-down 5,448 (qpor).
 *
 * expect: -DN=1 => verdict=safe errors=none executions=352 traces=26 blocked=0
 * expect: -DTD => verdict=safe errors=none executions=6926 traces=68 blocked=0
 * expect: --algo=qpor => verdict=safe errors=none executions=144 blocked=0 ssb=0
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=852 blocked=0 ssb=0
 * expect: --algo=qpor -DTD -DN=3 => verdict=safe errors=none executions=180 blocked=0 ssb=0
 * expect: --algo=qpor -DTD -DN=4 => verdict=safe errors=none executions=544 blocked=0 ssb=0
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

static int price(int len) {
    switch (len) {
    case 1: return 1;
    case 2: return 5;
    case 3: return 8;
    case 4: return 9;
    case 5: return 10;
    case 6: return 17;
    case 7: return 17;
    case 8: return 20;
    case 9: return 24;
    default: return 30;
    }
}

atomic_int memo[N + 1];
atomic_int done;

#ifdef TD
static int best(int n) {
    int m = memo[n];
    if (m != 0) return m;
    int b = price(n);
    for (int j = 1; j < n; j++) {
        int v = price(j) + best(n - j);
        if (v > b) b = v;
    }
    memo[n] = b;
    return b;
}
#endif

void *worker(void *arg) {
    (void)arg;
#ifdef TD
    best(N);
#else
    for (int n = 1; n <= N; n++) {
        if (memo[n] != 0) continue; /* another worker filled it in */
        int b = price(n);
        for (int j = 1; j < n; j++) {
            int v = price(j) + memo[n - j];
            if (v > b) b = v;
        }
        memo[n] = b;
    }
#endif
    done = 1;
    return 0;
}

int main(void) {
    int ref[N + 1]; /* the sequential answer, computed locally before any thread starts */
    ref[0] = 0;
    for (int n = 1; n <= N; n++) {
        ref[n] = price(n);
        for (int j = 1; j < n; j++)
            if (price(j) + ref[n - j] > ref[n]) ref[n] = price(j) + ref[n - j];
    }
    pthread_t t[W];
    for (long i = 0; i < W; i++) pthread_create(&t[i], 0, worker, (void *)i);
    if (done) assert(memo[N] == ref[N]); /* the reader */
    for (int i = 0; i < W; i++) pthread_join(t[i], 0);
    assert(memo[N] == ref[N]);
    return 0;
}
