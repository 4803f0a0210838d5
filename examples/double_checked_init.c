/* double_checked_init.c — lazy initialisation with double-checked locking.
 *
 * Two threads call get_config(), which creates the shared object on first use: check the pointer without the
 * lock, and only if it is NULL take the lock, check again and create the object.
 *
 * Default (broken): the pointer is a plain variable and the creating thread publishes it before filling the
 * object in (`cfg = calloc(...); cfg->value = 42;` — the order a compiler may well produce from the "right"
 * source too). The other thread's unlocked check can see the non-NULL pointer and read value == 0:
 * `assert(c->value == 42)` fails; the unlocked read of `cfg` races with the locked write.
 * Expected verdict: error (assertion + data races).
 *
 * -DFIXED: the object is filled in first and the pointer is a C11 atomic (seq_cst store/load = release/acquire),
 * so a thread that sees the pointer also sees the initialised object. Expected verdict: safe.
 * traces (FIXED, derived): the first unlocked load of each thread is before or after the other's publishing
 * store; at most one thread creates the object (whoever takes the mutex first while the pointer is NULL):
 *   - T1 creates; T2's first load sees NULL (before the store), T2 locks after T1 and sees the pointer: 1
 *   - T1 creates; T2's first load sees the pointer: 1;   - the same two with T2 creating: 2.
 * -> 4 traces. final_states=2: the final memory is the same up to which thread allocated the object, and the
 * heap addresses (hence the value of `cfg`) differ between the two.
 *
 * expect: => verdict=error errors=assertion@60,data_race@40,data_race@54,data_race@60 executions=1354 traces=6 blocked=0 final_states=2
 * expect: --algo=qpor => verdict=error errors=assertion,data_race executions=6 blocked=0 ssb=0
 * expect: -DFIXED => verdict=safe errors=none executions=1287 traces=4 blocked=0 final_states=2
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct config { int value; };

pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
#ifdef FIXED
struct config *_Atomic cfg = NULL;
#else
struct config *cfg = NULL;
#endif

struct config *get_config(void) {
    if (cfg == NULL) {
        pthread_mutex_lock(&init_lock);
        if (cfg == NULL) {
#ifdef FIXED
            struct config *c = calloc(1, sizeof *c);
            c->value = 42;
            cfg = c;            /* publish after initialising */
#else
            cfg = calloc(1, sizeof *cfg);
            cfg->value = 42;    /* BUG: published before initialised */
#endif
        }
        pthread_mutex_unlock(&init_lock);
    }
    return cfg;
}

void *user(void *arg) {
    (void)arg;
    struct config *c = get_config();
    assert(c->value == 42);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, user, 0);
    pthread_create(&b, 0, user, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
}
