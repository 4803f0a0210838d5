/* POL(T, W): a thread pool in the style of the QPOR paper's Table 1 "Pol" family. T tasks wait in a queue
 * protected by `pool`; W worker threads repeatedly take the next task (under `pool`), run it, and publish its
 * result under the task's own mutex; a worker that finds the queue empty records that it went idle, still under
 * `pool`, and reads how many results are in (under `done_lock`, nested inside `pool`). Main submits the tasks one
 * at a time after starting the workers, so taking, running and submitting interleave. Expected: safe — every task
 * runs exactly once.
 *
 * Measured: POL(2,2) 184, POL(3,2) 5416 maximal configurations, no SSB in any mode (no data-dependent lock choice).
 *
 * expect: --algo=qpor -DT=2 -DW=2 => verdict=safe errors=none executions=184 blocked=0 ssb=0
 * expect: --algo=qpor -DT=2 -DW=2 --alt=k1 => verdict=safe errors=none executions=184 ssb=0
 */
#include <assert.h>
#include <pthread.h>

#ifndef T
#define T 3
#endif
#ifndef W
#define W 2
#endif

pthread_mutex_t pool = PTHREAD_MUTEX_INITIALIZER, done_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t task_lock[T];
int submitted, next_task, ran[T], done, idle_seen;

void *worker(void *arg) {
    for (int round = 0; round < T; round++) {
        int task = -1;
        pthread_mutex_lock(&pool);
        if (next_task < submitted) task = next_task++;
        else {
            pthread_mutex_lock(&done_lock);
            idle_seen = done;
            pthread_mutex_unlock(&done_lock);
        }
        pthread_mutex_unlock(&pool);
        if (task < 0) continue;
        pthread_mutex_lock(&task_lock[task]);
        ran[task]++;
        pthread_mutex_unlock(&task_lock[task]);
        pthread_mutex_lock(&done_lock);
        done++;
        pthread_mutex_unlock(&done_lock);
    }
    return 0;
}

int main(void) {
    pthread_t w[W];
    for (int i = 0; i < T; i++) pthread_mutex_init(&task_lock[i], 0);
    for (int i = 0; i < W; i++) pthread_create(&w[i], 0, worker, 0);
    for (int i = 0; i < T; i++) {
        pthread_mutex_lock(&pool);
        submitted++;
        pthread_mutex_unlock(&pool);
    }
    for (int i = 0; i < W; i++) pthread_join(w[i], 0);
    for (int i = 0; i < T; i++) assert(ran[i] <= 1);
    assert(done <= T);
    return 0;
}
