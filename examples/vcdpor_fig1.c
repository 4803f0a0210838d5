/* vcdpor_fig1.c — the toy program of Fig. 1 of Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial
 * Order Reduction" (OOPSLA'19):
 *
 *   Thread p1:        Thread p2:
 *   w(x, 1)           w(x, 2)
 *                     w(x, 1)
 *                     r(x)
 *
 * It has 4 Mazurkiewicz traces (derived: p1's write goes before, between or after p2's two writes, or after
 * p2's read — t1..t4 in the paper), but the read sees the value 1 in all of them, so a value-centric
 * exploration (VC-DPOR's VHB) needs only 1. `x` is a C11 atomic (the paper assumes sequential consistency;
 * atomics keep the program race-free). `assert(r == 1)` always holds: expected verdict: safe.
 * final_states=1 (x == 1 at the end of every trace: both threads' last write stores 1).
 *
 * expect: => verdict=safe errors=none executions=14 traces=4 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=1 blocked=0 final_states=1
 * --vhb-equivalence=paper (the paper's VHB, root p1 = the first thread main spawns): by hand from Sec. 3, the
 * maximal traces form one class — r reads 1 whichever x=1 it observes, the root has no read (S empty), r is the
 * only read (CHB on reads is trivial) and main has no access (leaf HB is p2's thread order). The paper: "VC-DPOR
 * explores only one trace"; HB has 4.
 * expect: --algo=vhb --vhb-equivalence=paper => verdict=safe errors=none executions=1 blocked=0 final_states=1
 * With main as the root (--vhb-root=0) p1 and p2 are leaves: by hand 4 VHB classes (p1's x=1 before, between or
 * after p2's writes, or after r). App. D item 3: the writes, never-good when added, stay unordered; r's read of
 * 1 makes p1's and p2's x=1 good, oriented then (3 siblings), and item 2 explores one of them: 1 explored.
 * expect: --algo=vhb --vhb-equivalence=paper --vhb-root=0 => verdict=safe errors=none executions=1
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int x = 0;

void *p1(void *arg) {
    (void)arg;
    x = 1;
    return 0;
}

void *p2(void *arg) {
    (void)arg;
    x = 2;
    x = 1;
    int r = x;
    assert(r == 1);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, p1, 0);
    pthread_create(&b, 0, p2, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
