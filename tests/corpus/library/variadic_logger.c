/* variadic_logger.c — two threads log through the program's own variadic helper (va_start, then vsnprintf from
 * Skein's C library models) into one shared line buffer, adding the lengths to a shared counter, under a mutex.
 *
 * Each worker's visible events: the lock, the copy of its formatted text into `line` (the model's memcpy: one
 * event), the read and the write of `logged`, the unlock. The helper's va_list, the model's private buffer and the
 * format's arguments (string literals) are no events.
 * traces (derived): the two critical sections in either order: 2 traces; `line` ends with either text: 2 final
 * states.
 * -DNOLOCK: each worker writes `line` (W), reads `logged` (R) and writes it (W). The two writes of `line` in either
 * order (2) times the classes of the four accesses of `logged`, where the two reads commute: R1 W1 R2 W2,
 * R2 W2 R1 W1, and the two where both reads come before both writes, with W1 or W2 last (4): 8 traces; the
 * writes race (line 36), and where both reads come first one length is lost: the assertion fails (line 54).
 *
 * expect: => verdict=safe errors=none traces=2 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=2 ssb=0 final_states=2
 * expect: -DNOLOCK => verdict=error errors=data_race@35,assertion@54 traces=8
 * expect: -DNOLOCK --algo=qpor => verdict=error errors=data_race@35,assertion@54 executions=8 ssb=0
 */
#include <assert.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
char line[48];
int logged;

static void logline(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
#ifndef NOLOCK
    pthread_mutex_lock(&m);
#endif
    logged += vsnprintf(line, sizeof line, fmt, ap);
#ifndef NOLOCK
    pthread_mutex_unlock(&m);
#endif
    va_end(ap);
}

void *worker(void *arg) {
    int id = (int)(long)arg;
    logline("worker %d: %s", id, id == 1 ? "one" : "two");
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, worker, (void *)1);
    pthread_create(&b, 0, worker, (void *)2);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(logged == 2 * 13);
    assert(strcmp(line, "worker 1: one") == 0 || strcmp(line, "worker 2: two") == 0);
    return 0;
}
