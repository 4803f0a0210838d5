/* nondet_section_loop.c — SV-COMP atomic sections in loops, one with a nondet choice inside: thread a, K times,
 * either increments x or sets w; thread b, K times, increments y when x has passed its round. Expected verdict: safe.
 *
 * What it checks: a's section has two runs at every history (the nondet value), which touch different words, and
 * b's section reads x always and writes y only sometimes. qpor gives every event of both sites its own run's
 * accesses (core/explore/unfolding/DESIGN.md, "Sections whose runs differ"): a's run that sets w commutes with b's
 * sections, and b's run that only reads x commutes with the other reads. Until 2026-11-27 (eighteenth session) a
 * section with several runs at one history carried the union of its runs' accesses on every event: K=3 took 160
 * executions for dfs's 63 traces, K=5 8,064 for 1,683 (now 1,683, in 0.24 s where dfs takes 0.31 s).
 * traces: counted by dfs (K=3: 63 in 552 runs); the final states are the (x, y, w) reachable: 10.
 *
 * expect: -DK=3 --no-race-detection => verdict=safe errors=none executions=552 traces=63 blocked=0 final_states=10
 * expect: --algo=qpor -DK=3 --no-race-detection => verdict=safe errors=none executions=63 ssb=0 final_states=10
 * expect: -DK=4 --no-race-detection => verdict=safe errors=none executions=4016 traces=321 blocked=0 final_states=15
 * expect: --algo=qpor -DK=4 --no-race-detection => verdict=safe errors=none executions=321 ssb=0 final_states=15
 */
#include <pthread.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
_Bool __VERIFIER_nondet_bool(void);

#ifndef K
#define K 3
#endif

int x, y, w;

void *a(void *arg) {
    (void)arg;
    for (int i = 0; i < K; i++) {
        __VERIFIER_atomic_begin();
        if (__VERIFIER_nondet_bool()) x = x + 1;
        else w = 1;
        __VERIFIER_atomic_end();
    }
    return 0;
}

void *b(void *arg) {
    (void)arg;
    for (int i = 0; i < K; i++) {
        __VERIFIER_atomic_begin();
        if (x > i) y = y + 1;
        __VERIFIER_atomic_end();
    }
    return 0;
}

int main(void) {
    pthread_t h1, h2;
    pthread_create(&h1, 0, a, 0);
    pthread_create(&h2, 0, b, 0);
    pthread_join(h1, 0);
    pthread_join(h2, 0);
    return 0;
}
