/* children_numbered_alike.c — two workers each create a child that runs an SV-COMP atomic section whose accesses
 * depend on what it reads; which worker creates its child first varies from one interleaving to the next.
 *
 * Thread ids are canonical per executor: the k-th child of thread p keeps the id it got the first time. qpor makes
 * the events of such a section by replaying their histories on a second executor (Sections.cpp), which numbered
 * the children by its own first creation order. Until the twenty-first session the two executors could give one
 * child two ids, the replay found no thread to run the section on, and qpor stopped with "internal: the history of
 * an atomic section could not be replayed" (found by GeneratorFlags::threadApi at seed 7231); now the replaying
 * executor shares the explorer's ids (Executor::adoptThreadIds).
 * traces and final states are the dfs oracle's; qpor's optimal mode explores one execution per trace.
 *
 * expect: --no-race-detection => verdict=safe errors=none traces=6 final_states=2
 * expect: --algo=qpor --no-race-detection => verdict=safe errors=none executions=6 ssb=0 final_states=2
 * expect: --algo=qpor --alt=sdpor --no-race-detection => verdict=safe errors=none executions=6 final_states=2
 * expect: --algo=vhb --no-race-detection => verdict=safe errors=none final_states=2
 */
#include <pthread.h>
#include <stdatomic.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

int x0, x1;
atomic_int a;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

void *child(void *arg) {
    (void)arg;
    __VERIFIER_atomic_begin();
    if (x0 == 1)
        x0 = 2;
    else
        x1 = 3;
    __VERIFIER_atomic_end();
    return 0;
}

void *first(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    x0 = x1 + 1;
    pthread_mutex_unlock(&m);
    pthread_t c;
    pthread_create(&c, 0, child, 0);
    pthread_join(c, 0);
    return 0;
}

void *second(void *arg) {
    (void)arg;
    atomic_fetch_add(&a, 1);
    pthread_t c;
    pthread_create(&c, 0, child, 0);
    pthread_join(c, 0);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, first, 0);
    __VERIFIER_atomic_begin();
    pthread_create(&b, 0, second, 0);
    x0 = 1;
    __VERIFIER_atomic_end();
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
