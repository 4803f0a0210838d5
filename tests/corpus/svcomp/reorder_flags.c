/* reorder_flags.c — SV-COMP pthread reorder style: SETTERS threads (default 1) set two flags, a = 1 then
 * b = -1; a checker thread reads both and checks them (reach_error() defined empty in the file; the call is the
 * error). The flags are C11 atomics (seq_cst), so there is no data race.
 *
 * Default (message passing): the checker reads b, then a, and checks b == -1 implies a == 1. Under sequential
 * consistency Wa < Wb <= Rb < Ra, so it holds: expected verdict: safe.
 * traces (derived, SETTERS=1): a trace is fixed by the values the two reads see; (rb, ra) = (0,0), (0,1) and
 * (-1,1) are feasible, (-1,0) is not: 3. Every run ends with a == 1, b == -1: final_states=1.
 * -DBUG (reorder_2): the checker reads a, then b, and asserts (a,b) is (0,0) or (1,-1): both mixed pairs are
 * feasible, (0,-1) with Ra < Wa < Wb < Rb and (1,0) with Wa < Ra < Rb < Wb: 4 traces, 2 failing (the check is
 * the checker's last step; the setters run on). Expected verdict: error.
 * SETTERS=2: the setters' writes of each flag are ordered too: 22 traces (BUG: 36, 16 of them failing);
 * SETTERS=3: 300 (BUG: 576, 216 failing): counted by brute force over the interleavings of a model of the
 * threads (dependent: same flag, one a write); dfs agrees (134,545 executions, 1.8 s: not recorded here), and
 * qpor's executions are the same numbers. vhb explores one class per pair of values the checker can see: 3
 * (BUG: 4) whatever SETTERS is.
 *
 * expect: => verdict=safe errors=none executions=19 traces=3 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=3 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=3 blocked=0 final_states=1
 * expect: -DBUG => verdict=error errors=assertion@57 executions=19 traces=4 blocked=0 final_states=1
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@57 executions=4 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@57 executions=4 blocked=0 final_states=1
 * expect: -DSETTERS=2 => verdict=safe errors=none executions=1121 traces=22 blocked=0 final_states=1
 * expect: --algo=qpor -DSETTERS=2 => verdict=safe errors=none executions=22 blocked=0 ssb=0
 * expect: --algo=vhb -DSETTERS=2 => verdict=safe errors=none executions=3 blocked=0 final_states=1
 * expect: -DSETTERS=2 -DBUG => verdict=error errors=assertion@57 executions=1121 traces=36 blocked=0 final_states=1
 * expect: --algo=qpor -DSETTERS=2 -DBUG => verdict=error errors=assertion@57 executions=36 blocked=0 ssb=0
 * expect: --algo=vhb -DSETTERS=2 -DBUG => verdict=error errors=assertion@57 executions=4 blocked=0 final_states=1
 * expect: --algo=qpor -DSETTERS=3 => verdict=safe errors=none executions=300 blocked=0 ssb=0
 * expect: --algo=vhb -DSETTERS=3 => verdict=safe errors=none executions=3 blocked=0 final_states=1
 * expect: --algo=qpor -DSETTERS=3 -DBUG => verdict=error errors=assertion@57 executions=576 blocked=0 ssb=0
 * expect: --algo=vhb -DSETTERS=3 -DBUG => verdict=error errors=assertion@57 executions=4 blocked=0 final_states=1
 */
#include <pthread.h>
#include <stdatomic.h>

void reach_error(void) {}
#define check(c) do { if (!(c)) reach_error(); } while (0)

#ifndef SETTERS
#define SETTERS 1
#endif

atomic_int a, b;

void *setter(void *arg) {
    a = 1;
    b = -1;
    return 0;
}

void *checker(void *arg) {
#ifdef BUG
    int ra = a;
    int rb = b;
    check((ra == 0 && rb == 0) || (ra == 1 && rb == -1));
#else
    int rb = b;
    int ra = a;
    check(rb != -1 || ra == 1);
#endif
    return 0;
}

int main(void) {
    pthread_t s[SETTERS], c;
    for (int k = 0; k < SETTERS; k++)
        pthread_create(&s[k], 0, setter, 0);
    pthread_create(&c, 0, checker, 0);
    for (int k = 0; k < SETTERS; k++)
        pthread_join(s[k], 0);
    pthread_join(c, 0);
    return 0;
}
