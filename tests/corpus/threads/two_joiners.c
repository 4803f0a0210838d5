/* two_joiners.c — main and a worker both join the same thread: the second pthread_join to be called fails (a thread
 * is joined at most once), and which one is second depends on the interleaving.
 *
 * qpor and vhb do not make joins events (a join only follows the joined thread's end), so they never order two
 * joins of one thread: each found only one of the two misuses (until the twenty-first session, qpor the worker's,
 * vhb main's). Both now hand such a program over at the first execution where two threads called pthread_join on
 * one thread (Executor::twoJoiners) — check() then runs dfs, which orders them (the default `skein check` says so in
 * a note); chosen explicitly, each reports what its one execution found and the limit among its bounds.
 * traces (derived): the worker's join call before main's (main's fails at line 36) or after main's join returned
 * (the worker's fails at line 29), or both calls made before the target ends (both wait; both return): 3.
 *
 * expect: => verdict=error errors=pthread_misuse@29,pthread_misuse@36 traces=3
 * expect: --algo=qpor => verdict=error errors=pthread_misuse@29 executions=1
 * expect: --algo=vhb => verdict=error errors=pthread_misuse@36 executions=1
 */
#include <pthread.h>

pthread_t h[2];
int x;

void *target(void *arg) {
    (void)arg;
    x = 1;
    return 0;
}

void *joiner(void *arg) {
    (void)arg;
    pthread_join(h[0], 0);
    return 0;
}

int main(void) {
    pthread_create(&h[0], 0, target, 0);
    pthread_create(&h[1], 0, joiner, 0);
    pthread_join(h[0], 0);
    pthread_join(h[1], 0);
    return 0;
}
