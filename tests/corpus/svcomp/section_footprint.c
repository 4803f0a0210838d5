/* section_footprint.c — an SV-COMP atomic section whose accesses depend on the value it reads.
 *
 * t1's section reads x and then writes y (when x == 1) or z (otherwise); t2 writes x = 1 and t3 writes y = 1. In
 * the unfolding a section is one action, which must touch the same resources wherever it is placed: qpor gives
 * the section the union of its runs' accesses (its footprint: x read, y and z written) and starts over when a run
 * touches more than the footprint seen so far (algorithm_counters.section_restarts = 1 here). Its runs differ, so each
 * event has its own run's accesses, the footprint only says where to place it: 3 executions for dfs's 3 traces (t3's
 * write of y commutes with the section taking the `else` branch; with the footprint on every event: 4).
 * traces (derived): the section before t2's write reads 0 and writes z, and t3's write commutes with it: 1; the
 * section after t2's write writes y, t3's write of y before or after it: 2; total 3. The assertion fails when t2
 * and t3 both precede the section (y ends as 2); the two other complete executions end in distinct states.
 *
 * expect: --no-race-detection => verdict=error errors=assertion@40 traces=3 final_states=2
 * expect: --algo=qpor --no-race-detection => verdict=error errors=assertion@40 executions=3 ssb=0
 * expect: --algo=vhb --no-race-detection => verdict=error errors=assertion@40 executions=3 final_states=2
 */
#include <pthread.h>
#include <assert.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int x, y, z;
void *t1(void *arg) {
    __VERIFIER_atomic_begin(); if (x == 1) y = 2; else z = 1; __VERIFIER_atomic_end();
    return 0;
}
void *t2(void *arg) {
    x = 1;
    return 0;
}
void *t3(void *arg) {
    y = 1;
    return 0;
}
int main() {
    pthread_t a, b, c;
    pthread_create(&a, 0, t1, 0);
    pthread_create(&b, 0, t2, 0);
    pthread_create(&c, 0, t3, 0);
    pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0);
    assert(y != 2);
    return 0;
}
