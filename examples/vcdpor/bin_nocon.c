/* bin_nocon.c — memoised count of the binary strings of length N without two consecutive 1s, computed by W
 * threads sharing one table, the "bin_nocon_bu3" (default) and "bin_nocon_td3" (-DTD) rows of Table 2
 * (dynamic-programming benchmarks) of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order
 * Reduction" (OOPSLA'19).
 *
 * z(n) / o(n): the strings of length n ending in 0 / in 1; z(1) = o(1) = 1, z(n) = z(n-1) + o(n-1),
 * o(n) = z(n-1); the answer is z(N) + o(N) (the Fibonacci number F(N+2)). Two shared tables z[2..N], o[2..N]
 * (0 = not computed yet; every entry is >= 1; the base case n = 1 is a constant, not stored), as in the paper's
 * two-table version (Table 5: 101 variables).
 * W worker threads (-DW; the paper's "3" variants have 2 workers plus one reader):
 *   - bottom-up (default): for n = 2..N, fill z[n] and o[n] from z[n-1], o[n-1] unless another worker already
 *     has (then the value read is used);
 *   - top-down (-DTD): the recursive z(n)/o(n) return a stored entry, else compute and store it.
 * A worker then stores the answer in `result` and sets `done`. Main is the reader: after starting the workers it
 * reads `done` and, if it is set, checks `result`; after the joins it checks `result` again.
 *
 * What it models: equal values written by several threads to the same entries. The tables, result and done are
 * C11 seq_cst atomics (race-free). Expected: safe. N is the paper's scaling parameter (default 2).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): W=2, N=2: 224 both
 * ways (dfs: 24,626 executions); N=3: bottom-up 5,348, top-down 1,988 (dfs had found all 1,988 when stopped
 * after 17.9 M executions / 240 s); N=4 top-down: 17,444 (qpor).
 *
 * expect: => verdict=safe errors=none executions=24626 traces=224 blocked=0
 * expect: -DTD => verdict=safe errors=none executions=24626 traces=224 blocked=0
 * expect: --algo=qpor => verdict=safe errors=none executions=224 blocked=0 ssb=0
 * expect: --algo=qpor -DTD -DN=3 => verdict=safe errors=none executions=1988 blocked=0 ssb=0
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

atomic_int z[N + 1], o[N + 1];
atomic_int result;
atomic_int done;

static int zt(int n) { return n == 1 ? 1 : z[n]; } /* table reads, base case included */
static int ot(int n) { return n == 1 ? 1 : o[n]; }

#ifdef TD
static int zf(int n);
static int of(int n) {
    if (n == 1) return 1;
    int m = o[n];
    if (m != 0) return m;
    int v = zf(n - 1);
    o[n] = v;
    return v;
}
static int zf(int n) {
    if (n == 1) return 1;
    int m = z[n];
    if (m != 0) return m;
    int v = zf(n - 1) + of(n - 1);
    z[n] = v;
    return v;
}
#endif

void *worker(void *arg) {
    (void)arg;
#ifdef TD
    int r = zf(N) + of(N);
#else
    int vz = 1, vo = 1; /* z(n), o(n) as this worker computed or read them */
    for (int n = 2; n <= N; n++) {
        vz = z[n];
        if (vz == 0) {
            vz = zt(n - 1) + ot(n - 1);
            z[n] = vz;
        }
        vo = o[n];
        if (vo == 0) {
            vo = zt(n - 1);
            o[n] = vo;
        }
    }
    int r = vz + vo;
#endif
    result = r;
    done = 1;
    return 0;
}

int main(void) {
    int fz = 1, fo = 1; /* the sequential answer, locally */
    for (int n = 2; n <= N; n++) {
        int nz = fz + fo;
        fo = fz;
        fz = nz;
    }
    int expect = fz + fo;
    pthread_t t[W];
    for (long i = 0; i < W; i++) pthread_create(&t[i], 0, worker, (void *)i);
    if (done) assert(result == expect); /* the reader */
    for (int i = 0; i < W; i++) pthread_join(t[i], 0);
    assert(result == expect);
    return 0;
}
