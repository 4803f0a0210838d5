/* use_after_free.c — main hands a heap buffer to a worker thread and frees it without waiting for the worker.
 *
 * If main's free() runs before the worker's write, the worker writes to freed memory: a memory error. Even when
 * the write comes first nothing orders it with the free (free counts as a write to the whole object): a data
 * race. Expected verdict: error (memory + data race).
 * traces (derived): the worker's write and main's free are the only dependent pair (the pointer `buf` is written
 * before the create): write-then-free (complete, the race is reported) and free-then-write (stops at the memory
 * error) = 2; final_states=1.
 *
 * -DFIX: main joins the worker before freeing. Expected verdict: safe, 1 trace.
 *
 * expect: => verdict=error errors=data_race@25,memory@25 executions=6 traces=2 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=error errors=data_race,memory executions=2 blocked=0 ssb=0
 * expect: -DFIX => verdict=safe errors=none executions=1 traces=1 blocked=0 final_states=1
 * expect: --algo=vhb => verdict=error errors=data_race,memory@25 executions=2 blocked=0 final_states=1
 * expect: --algo=vhb -DFIX => verdict=safe errors=none executions=1 blocked=0 final_states=1
 */
#include <pthread.h>
#include <stdlib.h>

int *buf;

void *worker(void *arg) {
    (void)arg;
    buf[0] = 42;
    return 0;
}

int main(void) {
    pthread_t t;
    buf = malloc(4 * sizeof(int));
    pthread_create(&t, 0, worker, 0);
#ifdef FIX
    pthread_join(t, 0);
    free(buf);
#else
    free(buf);
    pthread_join(t, 0);
#endif
    return 0;
}
