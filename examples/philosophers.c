/* philosophers.c — N dining philosophers, N forks (mutexes); philosopher i takes fork i, then fork (i+1)%N.
 *
 * Default: every philosopher takes its left fork first, so when all of them hold their left fork nobody can
 * take the right one: a deadlock. Expected verdict: error (deadlock).
 * -DORDERED: each philosopher takes the lower-numbered of its two forks first (a global lock order), which
 * breaks the cycle. Expected verdict: safe.
 *
 * traces (derived for N=2: philosophers 0 and 1 take forks {0,1} in opposite orders — abba_deadlock.c): 2
 * complete + 1 deadlock = 3; ORDERED: 2 (who takes fork 0 first).
 * N=3, ORDERED: forks 0,1 / 1,2 / 0,2; the dependent events are the lock/unlock pairs of each fork. A trace is
 * fixed by the order of the critical sections on each fork that is consistent: philosopher order on fork 0
 * (P0 vs P2), fork 1 (P0 vs P1), fork 2 (P1 vs P2): 2^3 = 8 orientations of a triangle, minus the 2 cyclic ones
 * = 6 traces (a cyclic orientation is infeasible: each philosopher locks both forks before releasing either).
 * Default N=3: the same 6 complete traces + 1 deadlock (all three hold their left fork) = 7. blocked=15 is the
 * number of interleavings of the three first locks with the creates that reach that deadlock.
 *
 * eaten[i] is written only by philosopher i and read by main after the joins: no data race.
 *
 * expect: => verdict=error errors=deadlock@42 executions=63 traces=3 blocked=3 final_states=1
 * expect: --algo=qpor => verdict=error errors=deadlock executions=2 blocked=1 ssb=0
 * expect: -DORDERED => verdict=safe errors=none executions=37 traces=2 blocked=0 final_states=1
 * expect: -DN=3 => verdict=error errors=deadlock@42 executions=44790 traces=7 blocked=15 final_states=1
 * expect: -DN=3 -DORDERED => verdict=safe errors=none executions=80455 traces=6 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 2
#endif

pthread_mutex_t fork_m[N];
int eaten[N];

void *philosopher(void *arg) {
    int i = (int)(long)arg;
    int first = i, second = (i + 1) % N;
#ifdef ORDERED
    if (first > second) { int t = first; first = second; second = t; }
#endif
    pthread_mutex_lock(&fork_m[first]);
    pthread_mutex_lock(&fork_m[second]);
    eaten[i] = 1;
    pthread_mutex_unlock(&fork_m[second]);
    pthread_mutex_unlock(&fork_m[first]);
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&fork_m[i], 0);
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], 0, philosopher, (void *)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], 0);
    int sum = 0;
    for (int i = 0; i < N; i++)
        sum += eaten[i];
    assert(sum == N);
    return 0;
}
