/* errorcheck_mutex.c — an error-checking mutex answers its misuse with error codes (POSIX), not with a hang.
 *
 * Made with pthread_mutexattr_settype(PTHREAD_MUTEX_ERRORCHECK): a relock by the owner returns EDEADLK, a trylock
 * by the owner EBUSY, and an unlock by a thread that does not hold the mutex EPERM — defined behaviour, so no error
 * is reported; the mutex is unchanged by each. Whether a thread holds a mutex is up to that thread alone: these
 * answers are its own steps, not events. The worker takes the mutex once around `x++`; main unlocks it without
 * holding it (EPERM whether or not the worker holds it at that moment), then joins and checks x.
 * traces (derived): the worker's critical section is the only thread's mutex history: 1 trace; final_states=1.
 *
 * -DBUG: the worker expects its relock to succeed (as on a recursive mutex): the assertion fails (line 36).
 * -DTRYLOCK: the worker's trylock while it holds the mutex: EBUSY, as for a normal mutex: the same as the default.
 *
 * expect: => verdict=safe errors=none traces=1 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=1 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=1 blocked=0 final_states=1
 * expect: -DTRYLOCK => verdict=safe errors=none traces=1 blocked=0 final_states=1
 * expect: -DTRYLOCK --algo=qpor => verdict=safe errors=none executions=1 blocked=0 ssb=0
 * expect: -DBUG => verdict=error errors=assertion@36 traces=1
 * expect: -DBUG --algo=qpor => verdict=error errors=assertion@36
 * expect: -DBUG --algo=vhb => verdict=error errors=assertion@36
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>

pthread_mutex_t m;
int x;

void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
#if defined(TRYLOCK)
    assert(pthread_mutex_trylock(&m) == EBUSY);
#elif defined(BUG)
    int r = pthread_mutex_lock(&m);
    assert(r == 0);
#else
    assert(pthread_mutex_lock(&m) == EDEADLK);
#endif
    x = x + 1;
    assert(pthread_mutex_unlock(&m) == 0);
    return 0;
}

int main(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &attr);
    pthread_t a;
    pthread_create(&a, 0, worker, 0);
    assert(pthread_mutex_unlock(&m) == EPERM);
    pthread_join(a, 0);
    assert(x == 1);
    return 0;
}
