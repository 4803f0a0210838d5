/* stack_lock.c — SV-COMP pthread stack_safe/stack_unsafe style: an array stack guarded by one mutex
 * (initialised with pthread_mutex_init), a pusher thread pushing 1..N and a popper thread popping N times.
 * push/pop return OVERFLOW/UNDERFLOW codes; reach_error() (defined in the file, abort()) through __VERIFIER_assert.
 *
 * Default: the popper pops only when the stack is not empty (checked under the lock) and asserts the value is in
 * 1..N; the pusher asserts no overflow (the stack holds N): expected verdict: safe.
 * traces (derived): each push and each pop attempt is one critical section of the same mutex: C(2N, N) orders =
 * 6 for N=2, 20 for N=3. final_states (N=2, sections written P = push, Q = pop attempt): PPQQ and QPPQ leave
 * arr = {1,2} with top 0 and 1, QQPP leaves {1,2} top 2, PQPQ leaves {2,0} top 0, and PQQP and QPQP both leave
 * {2,0} top 1: 5 distinct; N=3 (enumerated by a brute-force model of the sections): 14.
 * -DBUG (stack_unsafe): the popper pops unconditionally and asserts pop() != UNDERFLOW in its critical section:
 * the first pop of an empty stack fails, and the popper stops holding the mutex, so the execution ends there.
 * Executions are then the ballot sequences of sections: those that never pop more than was pushed (Catalan
 * C_N: 2 for N=2, 5 for N=3, all complete) plus the shortest failing prefixes (a balanced prefix of length 2k
 * and then a pop, k < N: 1 + 1 = 2 for N=2, 1 + 1 + 2 = 4 for N=3): traces = 4 (N=2) and 9 (N=3), the
 * complete ones giving 2 and 5 final states (each balanced sequence leaves a different arr).
 *
 * expect: => verdict=safe errors=none executions=346 traces=6 blocked=0 final_states=5
 * expect: --algo=qpor => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=6 blocked=0 final_states=5
 * expect: -DBUG => verdict=error errors=assertion@36 executions=298 traces=4 blocked=0 final_states=2
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@36 executions=4 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@36 executions=4 blocked=0 final_states=2
 * expect: -DN=3 => verdict=safe errors=none executions=1309 traces=20 blocked=0 final_states=14
 * expect: --algo=qpor -DN=3 => verdict=safe errors=none executions=20 blocked=0 ssb=0
 * expect: --algo=vhb -DN=3 => verdict=safe errors=none executions=20 blocked=0 final_states=14
 * expect: -DN=3 -DBUG => verdict=error errors=assertion@36 executions=1045 traces=9 blocked=0 final_states=5
 * expect: --algo=qpor -DN=3 -DBUG => verdict=error errors=assertion@36 executions=9 blocked=0 ssb=0
 * expect: --algo=vhb -DN=3 -DBUG => verdict=error errors=assertion@36 executions=9 blocked=0 final_states=5
 */
#include <pthread.h>
#include <stdio.h>

extern void abort(void);
void reach_error() { abort(); }
void __VERIFIER_assert(int cond) { if (!cond) reach_error(); }

#ifndef N
#define N 2
#endif
#define SIZE N
#define OVERFLOW (-1)
#define UNDERFLOW (-2)

int arr[SIZE];
int top = 0;
pthread_mutex_t m;

int push(int x) {
    if (top == SIZE) return OVERFLOW;
    arr[top] = x;
    top++;
    return 0;
}

int pop(void) {
    if (top == 0) return UNDERFLOW;
    top--;
    return arr[top];
}

void *pusher(void *arg) {
    for (int k = 0; k < N; k++) {
        pthread_mutex_lock(&m);
        __VERIFIER_assert(push(k + 1) != OVERFLOW);
        pthread_mutex_unlock(&m);
    }
    return 0;
}

void *popper(void *arg) {
    for (int k = 0; k < N; k++) {
        pthread_mutex_lock(&m);
#ifdef BUG
        __VERIFIER_assert(pop() != UNDERFLOW);
#else
        if (top > 0) {
            int v = pop();
            __VERIFIER_assert(v >= 1 && v <= N);
        }
#endif
        pthread_mutex_unlock(&m);
    }
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_mutex_init(&m, 0);
    pthread_create(&a, 0, pusher, 0);
    pthread_create(&b, 0, popper, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    __VERIFIER_assert(top >= 0 && top <= SIZE);
    pthread_mutex_destroy(&m);
    return 0;
}
