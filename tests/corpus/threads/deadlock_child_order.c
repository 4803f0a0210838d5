/* deadlock_child_order.c — a worker locks a mutex twice (a self-deadlock) while another worker's child waits for
 * that mutex: which blocked thread does the deadlock report name?
 *
 * The report names a thread waiting for a mutex; of several, the first in the thread tree's order (a parent before
 * its children, siblings in creation order). Thread ids would not do: they are given by the first execution that
 * creates a thread, and qpor takes a create as soon as its thread reaches it, dfs when it schedules it, so the two
 * explorers numbered `early`'s child and `selflock` apart and reported the same deadlock at different lines (until
 * the twenty-first session).
 * traces (derived): the child's lock of m before selflock's first lock (the child finishes; selflock blocks at its
 * second lock: deadlock at line 41), or after it (both block: the first in tree order is early's child, line 25):
 * 2, both deadlocked (dfs counts them as traces, qpor as blocked executions).
 *
 * expect: --no-race-detection => verdict=error errors=deadlock@25,deadlock@41 executions=0 traces=2
 * expect: --algo=qpor --no-race-detection => verdict=error errors=deadlock@25,deadlock@41 executions=0 blocked=2 ssb=0
 * expect: --algo=qpor --alt=sdpor --no-race-detection => verdict=error errors=deadlock@25,deadlock@41 blocked=2
 * expect: --algo=vhb --no-race-detection => verdict=error errors=deadlock@25,deadlock@41
 */
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x;

void *child(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    x = x + 1;
    pthread_mutex_unlock(&m);
    return 0;
}

void *early(void *arg) {
    (void)arg;
    pthread_t c;
    pthread_create(&c, 0, child, 0);
    return 0;
}

void *selflock(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, early, 0);
    pthread_create(&b, 0, selflock, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
