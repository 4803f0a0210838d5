/* semaphore_getvalue.c — main reads a semaphore's count (sem_getvalue) while a worker posts to it, then again after
 * joining the worker.
 *
 * sem_getvalue is an event: it reads what every other operation on the semaphore changes (qpor: a write of the count's
 * word, as a wait is). traces (derived): the first read before or after the post: 2; the second read follows the join.
 * Read after the post, the first count is 1 and the assertion fails (line 34); -DSAFE asserts only what holds in both.
 *
 * expect: => verdict=error errors=assertion@34 traces=2
 * expect: --algo=qpor => verdict=error errors=assertion@34 executions=2 ssb=0
 * expect: -DSAFE => verdict=safe errors=none traces=2 final_states=1
 * expect: -DSAFE --algo=qpor => verdict=safe errors=none executions=2 ssb=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

sem_t s;

void *poster(void *arg) {
    (void)arg;
    sem_post(&s);
    return 0;
}

int main(void) {
    sem_init(&s, 0, 0);
    pthread_t t;
    pthread_create(&t, 0, poster, 0);
    int v;
    sem_getvalue(&s, &v);
#ifdef SAFE
    assert(v <= 1);
#else
    assert(v == 0);
#endif
    pthread_join(t, 0);
    sem_getvalue(&s, &v);
    assert(v == 1);
    return 0;
}
