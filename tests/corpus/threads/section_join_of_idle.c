/* section_join_of_idle.c — main joins, inside an SV-COMP atomic section, a worker that has no event at all, then
 * writes a variable another worker writes; the section draws a nondet value, so qpor makes its events by replaying
 * their histories (Sections.cpp).
 *
 * Before the twenty-first session qpor found "no history of the joined thread" for the idle worker (it has neither
 * an event nor a creator's event to follow) and stopped with an internal error, handing the program to dfs: a join
 * of such a thread has no cause.
 * traces (derived): the section's write of x0 (1 or 3) before or after the other worker's write of 2: 2 x 2 = 4;
 * final states: x0 = 2 (the worker last), 1 or 3 (the section last) = 3.
 *
 * expect: --no-race-detection => verdict=safe errors=none traces=4 final_states=3
 * expect: --algo=qpor --no-race-detection => verdict=safe errors=none executions=4 ssb=0 final_states=3
 * expect: --algo=qpor --alt=sdpor --no-race-detection => verdict=safe errors=none executions=4 final_states=3
 * expect: --algo=vhb --no-race-detection => verdict=safe errors=none final_states=3
 */
#include <pthread.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
_Bool __VERIFIER_nondet_bool(void);

int x0;

void *idle(void *arg) {
    (void)arg;
    return 0;
}

void *writer(void *arg) {
    (void)arg;
    x0 = 2;
    return 0;
}

int main(void) {
    pthread_t h0, h1;
    pthread_create(&h0, 0, idle, 0);
    pthread_create(&h1, 0, writer, 0);
    __VERIFIER_atomic_begin();
    pthread_join(h0, 0);
    if (__VERIFIER_nondet_bool())
        x0 = 1;
    else
        x0 = 3;
    __VERIFIER_atomic_end();
    return 0;
}
