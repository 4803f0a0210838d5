/* section_nondet.c — an SV-COMP atomic section with many runs at one history.
 *
 * The writer draws BITS nondet bits inside one atomic section and stores their value in x: 2^BITS runs, each one
 * event of qpor's unfolding, siblings in conflict. The reader copies x into y in a section of its own.
 * traces (derived): the reader after the writer, 2^BITS (y = x = v); before it, 2^BITS (y = 0) — 2^(BITS+1) traces,
 * 2^(BITS+1) - 1 final states ((0, 0) is both). dfs explores more executions than traces (the nondet steps of the
 * writer's section are each a step of its interleaving); qpor --alt=optimal explores one per trace.
 * Used for issue 3's qpor-vs-dfs rows: each run of the section used to be executed again for every sibling explored
 * (quadratic in the runs: BITS=8 took 0.5 s against dfs's 24 ms).
 */
#include <pthread.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
_Bool __VERIFIER_nondet_bool(void);

#ifndef BITS
#define BITS 8
#endif

int x, y;

void *writer(void *arg) {
    (void)arg;
    __VERIFIER_atomic_begin();
    int v = 0;
    for (int i = 0; i < BITS; i++) v = 2 * v + __VERIFIER_nondet_bool();
    x = v;
    __VERIFIER_atomic_end();
    return 0;
}

void *reader(void *arg) {
    (void)arg;
    __VERIFIER_atomic_begin();
    y = x;
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t w, r;
    pthread_create(&w, 0, writer, 0);
    pthread_create(&r, 0, reader, 0);
    pthread_join(w, 0);
    pthread_join(r, 0);
    return 0;
}
