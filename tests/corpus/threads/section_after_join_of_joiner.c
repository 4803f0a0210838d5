/* section_after_join_of_joiner.c — main joins a worker whose last act is to join its own child, then an SV-COMP
 * atomic section joins a writer and reads what the child wrote; another thread's section draws a nondet value, so
 * qpor makes that section's events by replaying their histories (Sections.cpp, replayHistory).
 *
 * The joins are not events: a replay takes them as the explorer does, as soon as they are enabled. Until the
 * twenty-first session a replay took only the joins of the thread whose event came next, so `joiner`, which has no
 * event after its join, never ended there, main's join of it never returned, and qpor stopped with "internal: the
 * history of an atomic section could not be replayed" (found by GeneratorFlags::threadApi at seed 6944).
 * traces (dfs, 26) and final states (6) are the oracle's; qpor's optimal mode explores one execution per trace.
 *
 * expect: --no-race-detection => verdict=safe errors=none traces=26 final_states=6
 * expect: --algo=qpor --no-race-detection => verdict=safe errors=none executions=26 ssb=0 final_states=6
 * expect: --algo=qpor --alt=sdpor --no-race-detection => verdict=safe errors=none executions=26 final_states=6
 * expect: --algo=vhb --no-race-detection => verdict=safe errors=none final_states=6
 */
#include <pthread.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
_Bool __VERIFIER_nondet_bool(void);

int x0, x1, x2;

void *child(void *arg) {
    (void)arg;
    x1 = 2;
    return 0;
}

void *joiner(void *arg) {
    (void)arg;
    pthread_t c1, c2;
    pthread_create(&c1, 0, child, 0);
    pthread_create(&c2, 0, child, 0);
    pthread_join(c2, 0);
    return 0;
}

void *writer(void *arg) {
    (void)arg;
    x0 = 3;
    return 0;
}

void *drawer(void *arg) {
    (void)arg;
    __VERIFIER_atomic_begin();
    if (__VERIFIER_nondet_bool())
        x1 = x0 + 1;
    else
        x2 = 2;
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t h0, h1, h2;
    __VERIFIER_atomic_begin();
    pthread_create(&h0, 0, joiner, 0);
    x1 = 1;
    __VERIFIER_atomic_end();
    pthread_create(&h1, 0, writer, 0);
    pthread_create(&h2, 0, drawer, 0);
    pthread_join(h0, 0);
    __VERIFIER_atomic_begin();
    pthread_join(h1, 0);
    x2 = x1 + 1;
    __VERIFIER_atomic_end();
    return 0;
}
