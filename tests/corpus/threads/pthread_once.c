/* pthread_once.c — two workers share a configuration that the first of them to get there initialises, once.
 *
 * Each worker calls pthread_once(&once, init) and then reads `config`. Skein models pthread_once (and C11's
 * call_once) as a lock on the once object around the first caller's init: the other caller waits until init has
 * returned and then finds the object done (core/exec/SyncBuiltins.cpp, Builtin::Once).
 * traces (derived): the two calls are two critical sections on `once`; either worker's comes first: 2 traces. The
 * first runs init; the second reads config after init's write (ordered by the once object): no race, config is 42
 * in both; inits is 1: final_states=1.
 *
 * -DRACY: each worker initialises through its own unsynchronised check of `inited` instead: both may run init —
 * races on inited (line 59), config (line 51) and inits, and main's assertion fails (line 95).
 * -DNESTED: init calls pthread_once on a second object, whose init runs once too: still 2 traces, safe.
 * -DRECURSE: init calls pthread_once on the object it is initialising — it waits for itself, as in glibc: the first
 * worker deadlocks inside init (line 46) while the second waits in its call (line 62), or the other way round.
 * -DC11: the same with <threads.h>: call_once, once_flag, thrd_create — 2 traces, safe.
 *
 * expect: => verdict=safe errors=none traces=2 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0 final_states=1
 * expect: -DRACY => verdict=error errors=assertion@95,data_race@59,data_race@51
 * expect: -DRACY --algo=qpor => verdict=error errors=assertion@95,data_race@59,data_race@51
 * expect: -DNESTED => verdict=safe errors=none traces=2 final_states=1
 * expect: -DNESTED --algo=qpor => verdict=safe errors=none executions=2 ssb=0
 * expect: -DRECURSE => verdict=error errors=deadlock@46,deadlock@62 traces=2
 * expect: -DRECURSE --algo=qpor => verdict=error errors=deadlock@46,deadlock@62 executions=0 blocked=2
 * expect: -DC11 => verdict=safe errors=none traces=2 final_states=1
 * expect: -DC11 --algo=qpor => verdict=safe errors=none executions=2 ssb=0 final_states=1
 * expect: --algo=vhb => verdict=bounded errors=none
 */
#include <assert.h>
#include <pthread.h>
#ifdef C11
#include <threads.h>
once_flag once = ONCE_FLAG_INIT, once2 = ONCE_FLAG_INIT;
#define ONCE(o, f) call_once(o, f)
#else
pthread_once_t once = PTHREAD_ONCE_INIT, once2 = PTHREAD_ONCE_INIT;
#define ONCE(o, f) pthread_once(o, f)
#endif

int config, inits, inits2, inited;

void init2(void) { inits2++; }

void init(void) {
#ifdef RECURSE
    ONCE(&once, init);
#endif
#ifdef NESTED
    ONCE(&once2, init2);
#endif
    config = 42;
    inits++;
}

void work(void) {
#ifdef RACY
    if (!inited) {
        init();
        inited = 1;
    }
#else
    ONCE(&once, init);
#endif
    assert(config == 42);
}

#ifdef C11
int worker(void *arg) {
    (void)arg;
    work();
    return 0;
}
#else
void *worker(void *arg) {
    (void)arg;
    work();
    return 0;
}
#endif

int main(void) {
#ifdef C11
    thrd_t a, b;
    thrd_create(&a, worker, 0);
    thrd_create(&b, worker, 0);
    thrd_join(a, 0);
    thrd_join(b, 0);
#else
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
#endif
    assert(inits == 1);
#ifdef NESTED
    assert(inits2 == 1);
#endif
    return 0;
}
