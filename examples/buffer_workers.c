/* buffer_workers.c — three workers fill slots of one calloc'd buffer under a mutex; main frees it after joining.
 *
 * What it shows: an operation on a whole buffer — free releasing it — is one event that touches every word of it
 * (WORDS words, 16 KB by default; the calloc is no event: no other thread can see the new object yet). Nothing
 * races: the workers' writes are under the mutex, and the calloc and free are ordered with every write by create
 * and join. Expected verdict: safe.
 * traces (derived): the only dependent events are the three critical sections (one mutex): 3! = 6 orders; the slots
 * are distinct words, so nothing else commutes differently; final_states=1 (every order writes the same slots).
 * dfs explores every interleaving of the visible events (creates, locks, writes, unlocks, joins): 1,256.
 * qpor: one execution per trace, 6. The buffer is one object of 4,096 words: qpor cuts it into segments where the
 * workers' words begin and end (7 resources; core/explore/unfolding/DESIGN.md, "Segments"), where with a resource
 * per word (--qpor-resources=words) the free is an event of 4,096 accesses.
 *
 * expect: => verdict=safe errors=none executions=1256 traces=6 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --algo=qpor --qpor-resources=words => verdict=safe errors=none executions=6 blocked=0 ssb=0
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
