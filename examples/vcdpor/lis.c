/* lis.c — memoised longest increasing subsequence computed bottom-up by W threads sharing one table, the
 * "lis_bu3/bu4" rows of Table 2 (dynamic-programming benchmarks) of Chatterjee, Pavlogiannis, Toman,
 * "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19).
 *
 * Input: the first N elements of the array a = 3, 1, 4, 6, 2, 7, 5, 8, 9, 0 (distinct). L(i), the length of the
 * longest increasing subsequence ending at a[i], is 1 + max{ L(j) : j < i, a[j] < a[i] }; the answer is
 * max_i L(i). W worker threads (-DW; the paper's bu3/bu4 have 2/3 workers plus one reader) each run the
 * bottom-up loop over the shared table len[0..N-1] (0 = not computed yet), taking the value of an entry another
 * worker has already filled in instead of computing it, then store the answer in `result` and set `done`. Main
 * is the reader: after starting the workers it reads `done` and, if it is set, checks `result`; after the joins
 * it checks `result` again.
 *
 * What it models: the workers write equal values to the same entries (and to `result`), so reads that differ
 * only in which equal write they see are one value-centric class. len[], result and done are C11 seq_cst
 * atomics (race-free). Expected: safe. N is the paper's scaling parameter (default 2).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): W=2: N=2: 224
 * (dfs: 24,626 executions), N=3: 1,316 (dfs: 6,894,164 executions, 97 s), N=4: 7,868 (qpor).
 *
 * expect: => verdict=safe errors=none executions=24626 traces=224 blocked=0
 * expect: --algo=qpor => verdict=safe errors=none executions=224 blocked=0 ssb=0
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=1316 blocked=0 ssb=0
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

static int a(int i) {
    switch (i) {
    case 0: return 3;
    case 1: return 1;
    case 2: return 4;
    case 3: return 6;
    case 4: return 2;
    case 5: return 7;
    case 6: return 5;
    case 7: return 8;
    case 8: return 9;
    default: return 0;
    }
}

atomic_int len[N];
atomic_int result;
atomic_int done;

void *worker(void *arg) {
    (void)arg;
    int best = 0;
    for (int i = 0; i < N; i++) {
        int b = len[i];
        if (b == 0) { /* not filled in by another worker yet */
            b = 1;
            for (int j = 0; j < i; j++)
                if (a(j) < a(i)) {
                    int v = len[j] + 1;
                    if (v > b) b = v;
                }
            len[i] = b;
        }
        if (b > best) best = b;
    }
    result = best;
    done = 1;
    return 0;
}

int main(void) {
    int ref[N], expect = 0; /* the sequential answer, computed locally before any thread starts */
    for (int i = 0; i < N; i++) {
        ref[i] = 1;
        for (int j = 0; j < i; j++)
            if (a(j) < a(i) && ref[j] + 1 > ref[i]) ref[i] = ref[j] + 1;
        if (ref[i] > expect) expect = ref[i];
    }
    pthread_t t[W];
    for (long i = 0; i < W; i++) pthread_create(&t[i], 0, worker, (void *)i);
    if (done) assert(result == expect); /* the reader */
    for (int i = 0; i < W; i++) pthread_join(t[i], 0);
    assert(result == expect);
    return 0;
}
