/* assume_lock_nojoin.c — SV-COMP dialect: a lock built from a __VERIFIER_atomic_ function containing
 * __VERIFIER_assume (it blocks until the lock is free), threads that are never joined, pthread_exit() in a
 * thread, main returning while threads still run, reach_error() defined in the file with abort().
 *
 * Two workers each take the assume-lock, increment `x`, check `x == 1` while holding it, decrement and release;
 * one ends with pthread_exit, the other by returning. main never joins them and returns: that ends the program
 * (and every thread still running). The lock gives mutual exclusion, so reach_error() is unreachable: expected
 * verdict: safe — m is only touched inside atomic functions and x only under the assume-lock, so there is no
 * data race either (atomic sections exclude each other and order what follows them). Skein today reports races on
 * m and x (fixme on the first line; the second line checks reachability alone).
 * traces: recorded as Skein counts them; plausible because main's return (program exit, dependent with
 * everything) can come before, between or after each worker's steps, which multiplies the 2 lock orders;
 * final_states=10 likewise (x, m and each thread's progress at the exit).
 * A blocked count > 0 is expected: an acquire attempted while the lock is held makes the assume fail inside the
 * atomic function — the execution is cut (blocked), not an error.
 *
 * expect: => verdict=error errors=data_race@30,data_race@31,data_race@40 executions=106 traces=29 blocked=33 final_states=10 fixme="accesses inside __VERIFIER_atomic functions race-checked as plain, and atomic sections create no happens-before: expected errors=none (verdict safe)"
 * expect: --no-race-detection => verdict=safe errors=none executions=106 traces=29 blocked=33 final_states=10
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
