/* mutex_struct_heap.c — SV-COMP dialect: a mutex inside a global struct and one inside a malloc'd struct
 * (both initialised with pthread_mutex_init), __VERIFIER_error() as the error call, printf.
 *
 * Two threads each increment the global struct's counter under its mutex, then the heap struct's counter under
 * its mutex. main checks both totals after the joins: expected verdict: safe.
 * traces (derived): per mutex, which thread's critical section comes first; both threads take them in the same
 * order, so all 2 x 2 = 4 combinations are feasible: 4 traces; final_states=1 (both counters end at 2).
 * -DBUGGY: the heap counter is incremented outside its lock: lost update (__VERIFIER_error) and a data race;
 * traces = 2 (struct mutex order) x 4 (lost_update.c's orders of the heap counter) = 8.
 *
 * expect: => verdict=safe errors=none executions=8466 traces=4 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=4 blocked=0 ssb=0
 * expect: -DBUGGY => verdict=error errors=assertion@57,data_race@39 executions=1513 traces=8 blocked=0 final_states=1
 * expect: --algo=vhb => verdict=safe errors=none executions=4 blocked=0 final_states=1
 * expect: --algo=vhb -DBUGGY => verdict=error errors=assertion@57,data_race executions=6 blocked=0 final_states=1
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern void __VERIFIER_error(void);

struct account {
    pthread_mutex_t lock;
    int count;
};

struct account acct;
struct account *heap_acct;

void *worker(void *arg) {
    struct account *h = arg; /* the heap struct, passed as the thread argument */
    pthread_mutex_lock(&acct.lock);
    acct.count++;
    pthread_mutex_unlock(&acct.lock);
#ifndef BUGGY
    pthread_mutex_lock(&h->lock);
#endif
    h->count++;
#ifndef BUGGY
    pthread_mutex_unlock(&h->lock);
#endif
    return 0;
}

int main(void) {
    pthread_t t[2];
    pthread_mutex_init(&acct.lock, NULL);
    heap_acct = malloc(sizeof *heap_acct);
    heap_acct->count = 0;
    pthread_mutex_init(&heap_acct->lock, NULL);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, heap_acct);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (acct.count != 2 || heap_acct->count != 2)
        __VERIFIER_error();
    printf("totals: %d %d\n", acct.count, heap_acct->count);
    pthread_mutex_destroy(&heap_acct->lock);
    free(heap_acct);
    return 0;
}
