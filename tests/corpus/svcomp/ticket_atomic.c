/* ticket_atomic.c — SV-COMP pthread-atomic style: a ticket lock made of __VERIFIER_atomic_ functions, which run
 * atomically as a whole (one with a parameter, one with a result): take_ticket returns next_ticket and increments it,
 * wait_turn(t) is __VERIFIER_assume(now_serving == t) — an atomic function with an assume is a blocking operation
 * (a run that reaches it out of turn is cut) — and release increments now_serving. T threads (default 2) each take
 * a ticket, wait for their turn, and in the critical section increment in_cs, assert in_cs == 1 and decrement it
 * (reach_error(), defined empty in the file, through __VERIFIER_assert); main checks that every ticket was served.
 *
 * Default: tickets are distinct and served in order: mutual exclusion, expected verdict: safe, no data race (the
 * critical sections are ordered through the atomic sections on now_serving).
 * traces (derived): the order of the take_ticket sections decides everything else (each thread's wait must come
 * after the previous holder's release, any other placement is cut): T! = 2 (T=3: 6; dfs agrees, with 479,887
 * executions in 12 s, so only qpor and vhb are recorded); final_states=1.
 * -DBUG: the ticket is taken with a plain read and write of next_ticket: both threads can draw ticket 0, pass
 * wait_turn(0) together (unless one has already released: then the other's wait is cut) and meet in the critical
 * section: in_cs == 2 (reach_error), and the lost ticket makes main's check fail; the plain accesses race (on
 * next_ticket and on in_cs). Expected verdict: error, assertion and data_race. traces: 150 (dfs; a sleep-set
 * enumeration of a model of the events, independent of Skein, gives 150 too); final_states=1 (only the runs that
 * drew distinct tickets complete without an error).
 *
 * expect: => verdict=safe errors=none executions=369 traces=2 blocked=140 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=2 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=2 blocked=2 final_states=1
 * expect: -DBUG => verdict=error errors=assertion@33,data_race@59,data_race@60,data_race@65,data_race@66,data_race@67 executions=35354 traces=150 blocked=546 final_states=1
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@33,data_race@59,data_race@60,data_race@65,data_race@66,data_race@67 executions=150 blocked=6 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@33,data_race@59,data_race@60,data_race@65,data_race@66,data_race@67 executions=22 blocked=4 final_states=1
 * expect: --algo=qpor -DT=3 => verdict=safe errors=none executions=6 blocked=24 ssb=0
 * expect: --algo=vhb -DT=3 => verdict=safe errors=none executions=6 blocked=24 final_states=1
 */
#include <pthread.h>

extern void __VERIFIER_assume(int);
void reach_error(void) {}
void __VERIFIER_assert(int c) { if (!c) reach_error(); }

#ifndef T
#define T 2
#endif

int next_ticket = 0;
int now_serving = 0;
int in_cs = 0;

int __VERIFIER_atomic_take_ticket(void) {
    int t = next_ticket;
    next_ticket = t + 1;
    return t;
}

void __VERIFIER_atomic_wait_turn(int t) {
    __VERIFIER_assume(now_serving == t); /* blocks until it is t's turn */
}

void __VERIFIER_atomic_release(void) {
    now_serving = now_serving + 1;
}

void *worker(void *arg) {
#ifdef BUG
    int t = next_ticket; /* the ticket taken in two steps: two threads can draw the same */
    next_ticket = t + 1;
#else
    int t = __VERIFIER_atomic_take_ticket();
#endif
    __VERIFIER_atomic_wait_turn(t);
    in_cs = in_cs + 1;
    __VERIFIER_assert(in_cs == 1);
    in_cs = in_cs - 1;
    __VERIFIER_atomic_release();
    return 0;
}

int main(void) {
    pthread_t th[T];
    for (int k = 0; k < T; k++)
        pthread_create(&th[k], 0, worker, 0);
    for (int k = 0; k < T; k++)
        pthread_join(th[k], 0);
    __VERIFIER_assert(now_serving == T && next_ticket == T);
    return 0;
}
