/* mutex_array_tls.c — SV-COMP dialect: an array of mutexes that is never initialised (zeroed globals are valid
 * unlocked mutexes), a `__thread` variable, printf from threads, reach_error() defined in the file as an empty
 * function (the call itself is the error, whatever its body), __VERIFIER_assert defined in the file.
 *
 * Two threads add their id (1, 2) to cells[1] under locks[1] (an array element) and count their own work in a
 * `__thread` variable: each thread has its own copy, so both see tls == 1 and there is no race on it.
 * Expected verdict: safe. traces (derived): which thread takes locks[1] first = 2; final_states=1.
 * -DSHARED_TLS: the counter is an ordinary global instead: both threads increment it without a lock, so one of
 * them may see 2 (reach_error through __VERIFIER_assert) and the accesses race. traces: 16, as Skein counts them
 * (qpor --alt=optimal explores the same 16); the failing thread stops, the other runs on.
 *
 * expect: => verdict=safe errors=none executions=26 traces=2 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * expect: -DSHARED_TLS => verdict=error errors=assertion@20,data_race@35,data_race@36 executions=1877 traces=16 blocked=0 final_states=1
 */
#include <pthread.h>
#include <stdio.h>

void reach_error() {}
void __VERIFIER_assert(int cond) { if (!cond) { reach_error(); } }

pthread_mutex_t locks[2];
int cells[2];
#ifdef SHARED_TLS
int tls;
#else
__thread int tls;
#endif

void *worker(void *arg) {
    int id = (int)(long)arg;
    pthread_mutex_lock(&locks[1]);
    cells[1] += id;
    pthread_mutex_unlock(&locks[1]);
    tls++;
    __VERIFIER_assert(tls == 1);
    printf("worker %d done\n", id);
    return 0;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    __VERIFIER_assert(cells[1] == 3);
    return 0;
}
