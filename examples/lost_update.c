/* lost_update.c — the classic lost update: N threads each do `counter++` on a plain shared int.
 *
 * `counter++` is a read followed by a write; two threads that both read before either writes both write the
 * same value, so one increment is lost and `assert(counter == N)` fails. The accesses are unsynchronised, so
 * Skein also reports the data race on `counter`. Expected verdict: error (assertion + data race).
 *
 * Counts for N=2 (dfs). Visible events: main create1 create2 join1 join2 R(counter); thread i: R_i W_i.
 *   executions: k = number of thread-1 events before create2 (0..2); after it, thread 1's remaining 2-k events
 *     followed by join1 interleave with thread 2's two events: C(5,2)+C(4,2)+C(3,2) = 10+6+3 = 19.
 *   traces: the orders of R1 W1 R2 W2 (reads do not conflict): two serial orders (R1W1R2W2, R2W2R1W1) and
 *     two overlapping ones (both reads before both writes, W1 before W2 or W2 before W1) = 4; the two
 *     overlapping ones lose an update.
 *   final_states: only executions that run to the end count, and all of them end with counter == 2: 1.
 * N=3, traces: a trace is fixed by the order of the three writes (3! = 6) and, for each read, how many writes
 *   precede it; R_i must precede W_i, so the thread whose write is k-th (k = 0,1,2) has k+1 choices:
 *   6 * (1*2*3) = 36. (For N=2 the same formula gives 2 * (1*2) = 4.) executions = 1121 (all interleavings).
 *
 * expect: => verdict=error errors=assertion@44,data_race@34 executions=19 traces=4 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=error errors=assertion,data_race executions=4 blocked=0 ssb=0
 * expect: -DN=3 => verdict=error errors=assertion@44,data_race@34 executions=1121 traces=36 blocked=0 final_states=1
 * expect: --algo=vhb => verdict=error errors=assertion@44,data_race@34 executions=3 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 2
#endif

int counter = 0;

void *inc(void *arg) {
    (void)arg;
    counter++;
    return 0;
}

int main(void) {
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], 0, inc, 0);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], 0);
    assert(counter == N);
    return 0;
}
