/* assume_lock_nojoin.c — SV-COMP dialect: a lock built from a __VERIFIER_atomic_ function containing
 * __VERIFIER_assume (it blocks until the lock is free), threads that are never joined, pthread_exit() in a
 * thread, main returning while threads still run, reach_error() defined in the file with abort().
 *
 * Two workers each take the assume-lock, increment `x`, check `x == 1` while holding it, decrement and release;
 * one ends with pthread_exit, the other by returning. main never joins them and returns: that would end the
 * program; Skein lets the workers run on (a schedule that delays main's return has the same prefix), so every
 * execution sees both workers finish. The lock gives mutual exclusion, so reach_error() is unreachable: expected
 * verdict: safe — m is only touched inside atomic functions and x only under the assume-lock, so there is no
 * data race either (accesses inside atomic sections count as atomic).
 * traces (derived): which worker takes the lock first = 2; final_states=1 (x == 0, m == 0 at the end).
 * A blocked count > 0 is expected: an acquire attempted while the lock is held makes the assume fail inside the
 * atomic function — the execution is cut (blocked), not an error.
 *
 * expect: => verdict=safe errors=none executions=107 traces=2 blocked=241 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=2 ssb=0
 * expect: --no-race-detection => verdict=safe errors=none executions=107 traces=2 blocked=241 final_states=1
 */
#include <pthread.h>

extern void abort(void);
void reach_error() { abort(); }
extern void __VERIFIER_assume(int);

int m = 0;
int x = 0;

void __VERIFIER_atomic_acquire(void) {
    __VERIFIER_assume(m == 0);
    m = 1;
}

void __VERIFIER_atomic_release(void) {
    m = 0;
}

void body(void) {
    __VERIFIER_atomic_acquire();
    x = x + 1;
    if (x != 1) reach_error();
    x = x - 1;
    __VERIFIER_atomic_release();
}

void *worker_exit(void *arg) {
    body();
    pthread_exit(0);
}

void *worker_return(void *arg) {
    body();
    return 0;
}

int main() {
    pthread_t a, b;
    pthread_create(&a, 0, worker_exit, 0);
    pthread_create(&b, 0, worker_return, 0);
    return 0;
}
