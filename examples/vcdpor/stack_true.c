/* stack_true.c — SV-COMP's pthread/stack (stack_true-unreach-call), the "stack_true(n)" row of Table 1 of
 * Chatterjee, Pavlogiannis, Toman, "Value-Centric Dynamic Partial Order Reduction" (OOPSLA'19): a family where
 * the value-centric partitioning gives no reduction at all (the paper reports C(2n, n) classes for every
 * algorithm: 48,620 at n = 9).
 *
 * A bounded array stack `arr[SIZE]` with index `top`, one mutex m. Thread t1 pushes SIZE values (i, instead of
 * SV-COMP's nondeterministic value < SIZE) and sets `flag`, each push in its own critical section; thread t2
 * makes SIZE attempts to pop, each in its own critical section, popping only when the stack is not empty
 * (`top > 0`). Overflow or underflow reach the error. Every critical section reads and writes top, so the
 * Mazurkiewicz traces are the C(2·SIZE, SIZE) orders of the two threads' critical sections, and the values seen
 * differ in each — nothing for a value-centric method to merge. Expected: safe. SIZE is the scaling parameter
 * (default 3).
 *
 * -DBUG is SV-COMP's stack_false variant: t2 pops whenever `flag` is set, so it underflows when it pops twice
 * after a single push. Expected verdict: error (assertion in error()).
 *
 * Mazurkiewicz traces (dfs traces = qpor --alt=optimal executions where both were run): C(2·SIZE, SIZE):
 * SIZE=2: 6, SIZE=3: 20, SIZE=5: 252 (dfs: 19,676 executions); -DBUG, SIZE=3: 18 (an error stops t2, so some
 * orders coincide).
 *
 * expect: => verdict=safe errors=none executions=1476 traces=20 blocked=0
 * expect: --algo=qpor => verdict=safe errors=none executions=20 blocked=0 ssb=0
 * expect: --algo=qpor -DSIZE=5 => verdict=safe errors=none executions=252 blocked=0 ssb=0
 * expect: -DBUG => verdict=error errors=assertion@41 executions=1386 traces=18 blocked=0
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@41 executions=18 blocked=0 ssb=0
 */
#include <assert.h>
#include <pthread.h>

#ifndef SIZE
#define SIZE 3
#endif
#define OVERFLOW (-1)
#define UNDERFLOW (-2)

static int top = 0;
static unsigned int arr[SIZE];
pthread_mutex_t m;
_Bool flag = 0;

void error(void) { assert(0); }

int push(unsigned int *stack, int x) {
    if (top == SIZE) return OVERFLOW;
    stack[top] = x;
    top++;
    return 0;
}

int pop(unsigned int *stack) {
    if (top == 0) return UNDERFLOW;
    top--;
    return stack[top];
}

void *t1(void *arg) {
    (void)arg;
    for (int i = 0; i < SIZE; i++) {
        pthread_mutex_lock(&m);
        if (push(arr, i) == OVERFLOW) error();
        flag = 1;
        pthread_mutex_unlock(&m);
    }
    return 0;
}

void *t2(void *arg) {
    (void)arg;
    for (int i = 0; i < SIZE; i++) {
        pthread_mutex_lock(&m);
#ifdef BUG
        if (flag) {
#else
        if (top > 0) {
#endif
            if (pop(arr) == UNDERFLOW) error();
        }
        pthread_mutex_unlock(&m);
    }
    return 0;
}

int main(void) {
    pthread_t id1, id2;
    pthread_mutex_init(&m, 0);
    pthread_create(&id1, 0, t1, 0);
    pthread_create(&id2, 0, t2, 0);
    pthread_join(id1, 0);
    pthread_join(id2, 0);
    return 0;
}
