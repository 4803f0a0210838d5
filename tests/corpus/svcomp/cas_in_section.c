/* cas_in_section.c — three threads each run a C11 compare-exchange of one atomic inside an SV-COMP atomic section
 * (`__VERIFIER_atomic_begin/end`); main asserts what they did after the joins. Expected verdict: safe.
 *
 * What it checks: qpor makes a section one action whose accesses are the union of its runs' (its footprint,
 * core/explore/unfolding/DESIGN.md "Atomic sections"), and a compare-exchange that failed in a run only read its
 * word there (C11: a load), as model::dependent and dfs take it. Until 2026-11-26 (seventeenth session) every
 * compare-exchange in a section was a write of the footprint.
 * Default: the expected value (5) is never there, so every compare-exchange fails: three reads of one word commute,
 * 1 trace; qpor took 6 executions (3! orders of three "writes"), now 1.
 * -DWINS: the expected value is the initial 0, so the first section to run wins (writes x and won[id]) and the other
 * two fail: traces (derived) = which thread wins, 3 (the losers' reads commute). qpor gives each event its own run's
 * accesses here (one run per history: SectionSite::runAccesses) — a loser reads x and the word won[id] it left alone,
 * which nobody else writes — and explores 3; with the footprint's writes for every run it explored 6.
 *
 * expect: => verdict=safe errors=none executions=44 traces=1 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=1 blocked=0 ssb=0 final_states=1
 * expect: --algo=vhb => verdict=safe errors=none executions=1 blocked=0 final_states=1
 * expect: -DWINS => verdict=safe errors=none executions=44 traces=3 blocked=0 final_states=3
 * expect: --algo=qpor -DWINS => verdict=safe errors=none executions=3 blocked=0 ssb=0 final_states=3
 * expect: --algo=vhb -DWINS => verdict=safe errors=none executions=3 blocked=0 final_states=3
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

#ifdef WINS
#define EXPECTED 0
#else
#define EXPECTED 5
#endif

atomic_int x;
int won[3];

void *worker(void *arg) {
    int id = (int)(long)arg;
    int e = EXPECTED;
    __VERIFIER_atomic_begin();
    if (atomic_compare_exchange_strong(&x, &e, 1)) won[id] = 1;
    __VERIFIER_atomic_end();
    return 0;
}

int main(void) {
    pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, (void *)i);
    for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
    assert(won[0] + won[1] + won[2] == (EXPECTED == 0 ? 1 : 0));
    return 0;
}
