/* buffer_workers.c — three workers fill slots of one calloc'd buffer under a mutex; main frees it after joining.
 *
 * What it shows: an operation on a whole buffer — calloc zeroing it, free releasing it — is one event that touches
 * every word of it (WORDS words, 16 KB by default). Nothing races: the workers' writes are under the mutex, and the
 * calloc and free are ordered with every write by create and join. Expected verdict: safe.
 * traces (derived): the only dependent events are the three critical sections (one mutex): 3! = 6 orders; the slots
 * are distinct words, so nothing else commutes differently; final_states=1 (every order writes the same slots).
 * dfs explores every interleaving of the visible events (creates, locks, writes, unlocks, joins): 1,256.
 * qpor: one execution per trace, 6. Its cost here is per word: each word of the buffer is a resource of its own
 * (core/explore/unfolding/DESIGN.md, "Limits"), so it spends about 1 ms per execution on 16 KB where dfs spends
 * 0.3 ms — the row of bench/qpor-vs-dfs.rows where saved executions buy the least.
 *
 * expect: => verdict=safe errors=none executions=1256 traces=6 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=1 blocked=0 final_states=1
 */
#include <pthread.h>
#include <stdlib.h>

#ifndef WORDS
#define WORDS 4096
#endif

int *buf;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
    long i = (long)arg;
    pthread_mutex_lock(&m);
    buf[i * (WORDS / 4)] = (int)i + 1;
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_t t[3];
    buf = calloc(WORDS, sizeof(int));
    for (long i = 0; i < 3; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    free(buf);
    return 0;
}
