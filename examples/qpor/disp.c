/* DISP(N, M): a job dispatcher in the style of the QPOR paper's Table 1 "Disp" family: critical sections whose
 * interaction depends on data read in other critical sections. N workers register (under `reg`) and then look
 * for a job in their own slot (under the slot's mutex); the dispatcher, M times, reads how many workers have
 * registered and hands a job to the slot that number designates. Which slot mutex the dispatcher takes depends
 * on a value read under another mutex — the pattern of the paper's Fig. 1, where singleton (source-DPOR) clues
 * run into sleep-set blocked executions that k-partial and optimal alternatives avoid.
 * Expected: safe (a job is run at most once, and only by the worker it was given to).
 *
 * Measured (maximal configurations, SSB for sdpor / k1 / k2 / k3 / optimal):
 *   DISP(3,2): 182;   18 / 18 / 1 / 0 / 0
 *   DISP(4,2): 1116;  235 / 235 / 100 / 16 / 0
 *   DISP(5,2): 7920;  2961 / 2941 / 1494 / 822 / 0
 *
 * expect: --algo=qpor -DN=2 -DM=1 => verdict=safe errors=none executions=12 ssb=0
 * expect: --algo=qpor -DN=3 -DM=2 => verdict=safe errors=none executions=182 ssb=0
 * expect: --algo=qpor -DN=3 -DM=2 --alt=k2 => verdict=safe errors=none executions=182 ssb=1
 * expect: --algo=qpor -DN=3 -DM=2 --alt=sdpor => verdict=safe errors=none executions=182 ssb=18
 * expect: --algo=qpor -DN=4 -DM=2 --alt=k3 => verdict=safe errors=none executions=1116 ssb=16
 */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 3
#endif
#ifndef M
#define M 2
#endif

pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t slot_lock[N];
int ready, job[N], ran[N];

void *dispatcher(void *arg) {
    for (int j = 0; j < M; j++) {
        pthread_mutex_lock(&reg);
        int k = ready % N;
        pthread_mutex_unlock(&reg);
        pthread_mutex_lock(&slot_lock[k]);
        job[k]++;
        pthread_mutex_unlock(&slot_lock[k]);
    }
    return 0;
}

void *worker(void *arg) {
    long id = (long)arg;
    pthread_mutex_lock(&reg);
    ready++;
    pthread_mutex_unlock(&reg);
    pthread_mutex_lock(&slot_lock[id]);
    if (job[id] > 0) {
        job[id]--;
        ran[id]++;
    }
    pthread_mutex_unlock(&slot_lock[id]);
    return 0;
}

int main(void) {
    pthread_t d, w[N];
    for (int i = 0; i < N; i++) pthread_mutex_init(&slot_lock[i], 0);
    pthread_create(&d, 0, dispatcher, 0);
    for (long i = 0; i < N; i++) pthread_create(&w[i], 0, worker, (void *)i);
    pthread_join(d, 0);
    for (int i = 0; i < N; i++) pthread_join(w[i], 0);
    int total = 0;
    for (int i = 0; i < N; i++) total += ran[i] + job[i];
    assert(total == M);
    return 0;
}
