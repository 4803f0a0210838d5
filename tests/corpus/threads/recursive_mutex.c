/* recursive_mutex.c — a worker relocks a mutex made recursive with pthread_mutexattr_settype.
 *
 * Skein's mutexes are PTHREAD_MUTEX_NORMAL. Until the twenty-first session pthread_mutexattr_settype was a no-op, so
 * the relock by its owner was reported as a deadlock — a wrong verdict on a correct program. A recursive or
 * error-checking type is now refused with an `unsupported` error at the call (verdict bounded: nothing is claimed).
 *
 * expect: => verdict=bounded errors=unsupported@29
 * expect: --algo=qpor => verdict=bounded errors=unsupported@29
 * expect: --algo=vhb => verdict=bounded errors=unsupported@29
 */
#include <pthread.h>

pthread_mutex_t m;
int x;

void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m);
    x = x + 1;
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m);
    return 0;
}

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&m, &attr);
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    pthread_join(a, 0);
    return 0;
}
