/* message_passing.c — message passing through a flag: the writer stores the data, then raises the flag; the
 * reader waits for the flag, then reads the data.
 *
 * Default: `flag` is a C11 atomic (seq_cst), `data` a plain int. The atomic store/load of the flag synchronise
 * (release/acquire), so the plain write and read of `data` are ordered: no data race, and the reader always
 * sees 42. Expected verdict: safe. traces (derived): the reader's wait is a read-only spin loop (spin-assume:
 * reading flag == 0 cuts the execution as blocked), so a complete execution reads flag == 1 after the write,
 * then data after its write: 1 trace, 1 final state; the blocked ones are those where the reader checks early.
 *
 * -DPLAIN_FLAG: the flag is a plain int too. Under sequential consistency the assertion still holds, but nothing
 * orders the accesses any more: data races on `flag` and `data`. Expected verdict: error (data_race only).
 *
 * -DSWAPPED: the writer raises the flag before storing the data (a reordering a compiler or a weak CPU could
 * also perform on plain accesses): the reader can see the flag and read data == 0. Expected verdict: error
 * (assertion; `data` is still ordered by nothing, so also a data race). traces: the reader's read of data
 * before or after the writer's write of it = 2.
 *
 * expect: => verdict=safe errors=none executions=9 traces=1 blocked=3 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=1 blocked=1 ssb=0
 * expect: -DPLAIN_FLAG => verdict=error errors=data_race@48,data_race@50 executions=9 traces=1 blocked=3 final_states=1
 * expect: -DSWAPPED => verdict=error errors=assertion@50,data_race@50 executions=15 traces=2 blocked=1 final_states=1
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int data = 0;
#ifdef PLAIN_FLAG
int flag = 0;
#else
atomic_int flag = 0;
#endif

void *writer(void *arg) {
    (void)arg;
#ifdef SWAPPED
    flag = 1;
    data = 42;
#else
    data = 42;
    flag = 1;
#endif
    return 0;
}

void *reader(void *arg) {
    (void)arg;
    while (!flag)
        ; /* wait for the message */
    assert(data == 42);
    return 0;
}

int main(void) {
    pthread_t w, r;
    pthread_create(&w, 0, writer, 0);
    pthread_create(&r, 0, reader, 0);
    pthread_join(w, 0);
    pthread_join(r, 0);
    return 0;
}
