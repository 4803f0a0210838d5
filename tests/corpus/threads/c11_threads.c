/* c11_threads.c — C11 <threads.h>: two workers add their ids under a mtx_t and signal a cnd_t; main waits until both
 * are done, checks that its mtx_trylock of the held mutex answers thrd_busy, and joins them for their int results.
 *
 * On glibc mtx_t and cnd_t are pthread's mutex and condition variable; Skein models thrd_create (no attribute
 * argument), thrd_join (an int result), mtx_init (mtx_plain, mtx_recursive), mtx_trylock (thrd_busy) and the rest
 * as the pthread calls they are. Expected: safe, output "3 10 20".
 *
 * -DRECURSIVE: each worker locks twice (and unlocks twice) a mutex made with mtx_recursive: the same results, and
 * main's trylock of the recursive mutex it holds succeeds (its unlock then leaves one level held: nothing waits).
 * -DRECURSIVE -DPLAIN: the same relocks of an mtx_plain mutex: each worker's second lock waits for itself — a
 * deadlock at the relock (line 36) in every execution, reported also where the other worker (line 34) or main
 * (line 61) waits for the stuck one's mutex.
 *
 * expect: => verdict=safe errors=none executions=389 traces=8 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=8 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=8 blocked=0 final_states=1
 * expect: -DRECURSIVE => verdict=safe errors=none traces=8 blocked=0 final_states=1
 * expect: -DRECURSIVE --algo=qpor => verdict=safe errors=none executions=8 blocked=0 ssb=0
 * expect: -DRECURSIVE --algo=vhb => verdict=safe errors=none executions=8 blocked=0 final_states=1
 * expect: -DRECURSIVE -DPLAIN => verdict=error errors=deadlock@34,deadlock@36,deadlock@61 traces=4
 * expect: -DRECURSIVE -DPLAIN --algo=qpor => verdict=error errors=deadlock@34,deadlock@36,deadlock@61 blocked=4
 * expect: -DRECURSIVE -DPLAIN --algo=vhb => verdict=error errors=deadlock@34,deadlock@36,deadlock@61 blocked=4
 */
#include <assert.h>
#include <stdio.h>
#include <threads.h>

mtx_t m;
cnd_t ready_cv;
int ready, counter;

int worker(void *arg) {
    int id = *(int *)arg;
    mtx_lock(&m);
#ifdef RECURSIVE
    mtx_lock(&m);
#endif
    counter = counter + id;
    ready = ready + 1;
    cnd_signal(&ready_cv);
#ifdef RECURSIVE
    mtx_unlock(&m);
#endif
    mtx_unlock(&m);
    return id * 10;
}

#if defined(RECURSIVE) && !defined(PLAIN)
#define TYPE mtx_recursive
#else
#define TYPE mtx_plain
#endif

int main(void) {
    mtx_init(&m, TYPE);
    cnd_init(&ready_cv);
    thrd_t a, b;
    int one = 1, two = 2;
    thrd_create(&a, worker, &one);
    thrd_create(&b, worker, &two);
    mtx_lock(&m);
    while (ready < 2)
        cnd_wait(&ready_cv, &m);
    assert(mtx_trylock(&m) == (TYPE == mtx_recursive ? thrd_success : thrd_busy));
    mtx_unlock(&m);
    int ra, rb;
    thrd_join(a, &ra);
    thrd_join(b, &rb);
    printf("%d %d %d\n", counter, ra, rb);
    assert(counter == 3 && ra == 10 && rb == 20);
    return 0;
}
