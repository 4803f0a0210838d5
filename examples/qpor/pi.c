/* PI(N): parallel computation of pi in the style of the QPOR paper's Table 1 "Pi" family (Nguyen et al.,
 * CAV'18, Sec. 6.1). N worker threads each integrate 4/(1+x^2) over their slice of [0,1] with local
 * arithmetic only, then add their partial sum to a shared accumulator under one mutex; main joins and checks
 * the result. The only interference is the order in which the workers take the mutex: N! maximal
 * configurations (the paper's Confs: PI(5) = 120, PI(6) = 720, PI(7) = 5040, PI(8) = 40320).
 * Expected: safe.
 *
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=6 ssb=0
 * expect: --algo=qpor -DN=4 --alt=k1 => verdict=safe errors=none executions=24
 * expect: --algo=qpor -DN=5 => verdict=safe errors=none executions=120 ssb=0
 * expect: --algo=dfs -DN=3 => verdict=safe errors=none traces=6
 */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 4
#endif
#define STEPS 8 /* integration steps per worker */

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
double pi;

void *worker(void *arg) {
    long id = (long)arg;
    double h = 1.0 / (N * STEPS), local = 0;
    for (int i = 0; i < STEPS; i++) {
        double x = h * (id * STEPS + i + 0.5);
        local += 4.0 / (1.0 + x * x);
    }
    pthread_mutex_lock(&lock);
    pi += local * h;
    pthread_mutex_unlock(&lock);
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (long i = 0; i < N; i++) pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < N; i++) pthread_join(t[i], 0);
    assert(pi > 3.14 && pi < 3.15);
    return 0;
}
