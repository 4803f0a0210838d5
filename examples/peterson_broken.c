/* peterson_broken.c — Peterson's algorithm with the two entry writes swapped: `turn = other` before
 * `flag[me] = 1` (C11 seq_cst atomics, as in peterson.c).
 *
 * T0 writes turn = 1, T1 writes turn = 0, sets flag[1] and enters (flag[0] is still 0); T0 then sets flag[0],
 * sees turn == 0 != other and enters too. Both threads are in the critical section: `assert(in_cs == 1)` can
 * fail, and the plain accesses to `in_cs` are now unordered: a data race. Expected verdict: error (assertion
 * and data race).
 *
 * Counts: recorded as Skein computes them; plausibility: the four orders of peterson.c remain (they are still
 * reachable), plus orders in which both threads enter; in those the assertion stops the thread that fails it
 * while the other runs to its end. qpor --alt=optimal explores exactly these 98 traces. vhb counts as blocked
 * its cut nodes (core/explore/vhb/DESIGN.md "Cut threads end a node"): 22, not blocked classes.
 * expect: => verdict=error errors=assertion@32,data_race@31,data_race@32,data_race@33 executions=13216 traces=98 blocked=2540 final_states=4
 * expect: --algo=qpor => verdict=error errors=assertion,data_race executions=98 blocked=4 ssb=0
 * expect: --algo=vhb => verdict=error errors=assertion,data_race executions=31 blocked=22 final_states=4
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

atomic_int flag[2];
atomic_int turn;
int in_cs = 0;

void *proc(void *arg) {
    int me = (int)(long)arg, other = 1 - me;
    turn = other;   /* BUG: must come after flag[me] = 1 */
    flag[me] = 1;
    while (flag[other] == 1 && turn == other)
        ; /* spin */
    in_cs++;
    assert(in_cs == 1);
    in_cs--;
    flag[me] = 0;
    return 0;
}

int main(void) {
    pthread_t t0, t1;
    pthread_create(&t0, 0, proc, (void *)0L);
    pthread_create(&t1, 0, proc, (void *)1L);
    pthread_join(t0, 0);
    pthread_join(t1, 0);
    return 0;
}
