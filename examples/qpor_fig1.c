/* qpor_fig1.c — the program of Fig. 1 of Nguyen, Rodríguez, Sousa, Coti, Petrucci, "Quasi-Optimal Partial
 * Order Reduction" (CAV'18): N writer threads, a `count` thread and a `master` thread.
 *
 *   writer w_i: x[i] = 7 + i          count: c = 1; c = 2; ... c = N-1 (c starts at 0)
 *   master:     i = c; x[i] = 0;
 *
 * It has only 2N Mazurkiewicz traces — master reads c in one of N positions relative to count's N-1 writes,
 * then its write x[i] = 0 is before or after writer i's write — yet source-DPOR explores O(2^N) executions here
 * (it tries to reverse master's write against every writer). The paper's Fig. 1(b) shows the 6 partial orders
 * for N = 3. Nothing fails: `assert(c == N - 1)` in main always holds.
 *
 * Default: plain shared ints, as in the figure: every x[i] and c is raced on, so Skein reports data races
 * (expected verdict: error, data_race only — no assertion failure).
 * -DLOCKS: the paper's lock-based model (Sec. 2: shared memory is only touched inside lock/unlock blocks): each
 * x[i] has its own mutex and c has one. Expected verdict: safe. The lock/unlock events are now the dependent
 * ones, but the orders are the same: 2N traces.
 *
 * final_states (derived): master's write first leaves every x[i] = 7+i, whatever i it picked (1 state); master's
 * write last leaves x[i] = 0 for the i it read (N states): N + 1.
 *
 * dfs explores every interleaving, so the corpus sizes are tiny: N=2 (plain) and N=1 (LOCKS: 3 visible
 * events per writer... -DN=2 -DLOCKS already has millions of interleavings). -DN=3 (the figure) gives 6 traces,
 * final_states=4 and 177,560 dfs executions (about 2 s): a benchmark size, as are larger N.
 *
 * expect: => verdict=error errors=data_race@77,data_race@80 executions=1830 traces=4 blocked=0 final_states=3
 * expect: --algo=qpor => verdict=error errors=data_race executions=4 blocked=0 ssb=0
 * The paper's claim (QPOR Sec. 1, Fig. 1): optimal and k2 explore 2N executions with no SSB; sdpor's SSBs grow
 * exponentially with N (14, 45, 123, 308 for N = 3..6; bench/README.md has the table up to N = 12):
 * expect: --algo=qpor -DN=4 -DLOCKS => verdict=safe errors=none executions=8 blocked=0 ssb=0
 * expect: --algo=qpor -DN=4 -DLOCKS --alt=k2 => verdict=safe errors=none executions=8 ssb=0
 * expect: --algo=qpor -DN=4 -DLOCKS --alt=k1 => verdict=safe errors=none executions=8 ssb=33
 * expect: --algo=qpor -DN=4 -DLOCKS --alt=sdpor => verdict=safe errors=none executions=8 ssb=45
 * expect: --algo=qpor -DN=6 -DLOCKS --alt=sdpor => verdict=safe errors=none executions=12 ssb=308
 * expect: -DN=1 -DLOCKS => verdict=safe errors=none executions=926 traces=2 blocked=0 final_states=2
 */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 2
#endif

int x[N];
int c = 0;

#ifdef LOCKS
pthread_mutex_t mx[N];
pthread_mutex_t mc = PTHREAD_MUTEX_INITIALIZER;
#define LOCK(m) pthread_mutex_lock(&(m))
#define UNLOCK(m) pthread_mutex_unlock(&(m))
#else
#define LOCK(m) ((void)0)
#define UNLOCK(m) ((void)0)
#endif

void *writer(void *arg) {
    int i = (int)(long)arg;
    LOCK(mx[i]);
    x[i] = 7 + i;
    UNLOCK(mx[i]);
    return 0;
}

void *count(void *arg) {
    (void)arg;
    for (int k = 0; k < N - 1; k++) {
        LOCK(mc);
        c = k + 1;
        UNLOCK(mc);
    }
    return 0;
}

void *master(void *arg) {
    (void)arg;
    LOCK(mc);
    int i = c;
    UNLOCK(mc);
    LOCK(mx[i]);
    x[i] = 0;
    UNLOCK(mx[i]);
    return 0;
}

int main(void) {
    pthread_t w[N], tc, tm;
#ifdef LOCKS
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&mx[i], 0);
#endif
    for (long i = 0; i < N; i++)
        pthread_create(&w[i], 0, writer, (void *)i);
    pthread_create(&tc, 0, count, 0);
    pthread_create(&tm, 0, master, 0);
    for (int i = 0; i < N; i++)
        pthread_join(w[i], 0);
    pthread_join(tc, 0);
    pthread_join(tm, 0);
    assert(c == N - 1);
    return 0;
}
