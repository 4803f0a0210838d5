/* bank_transfer.c — two concurrent transfers between two accounts; the total must be preserved.
 *
 * Thread 1 moves 10 from account 0 to account 1, thread 2 moves 20 from account 1 to account 0. Each
 * transfer is `bal[from] -= amt; bal[to] += amt;` — two read-modify-writes of plain ints.
 *
 * Default (no lock): an update of one account can be lost, so `assert(bal[0] + bal[1] == 200)` fails, and
 * both accounts are raced on. Expected verdict: error (assertion + data races).
 *   traces (derived): per account the four lost-update orders of lost_update.c (thread 1 first, thread 2 first,
 *   two overlapping). Thread 1 touches account 0 then 1, thread 2 account 1 then 0, so the pair must be
 *   acyclic with program order: "T1 first on acct 0" combines with all 4 orders on acct 1; every other order on
 *   acct 0 forces "T2 first on acct 1" (1 each, 3 more) = 4 + 3 = 7 traces. Three of them lose no update (the
 *   two serial ones and "T1 first on 0, T2 first on 1"), and all three end with bal = {110, 90}: final_states=1.
 *
 * -DFIX: each transfer locks both accounts' mutexes, always the lower index first (so no ABBA deadlock).
 * Expected verdict: safe. traces: whoever takes mutex 0 first also has mutex 1 free = 2 traces; final_states=1.
 *
 * expect: => verdict=error errors=assertion@50,data_race@35 executions=251 traces=7 blocked=0 final_states=1
 * expect: --algo=qpor => verdict=error errors=assertion,data_race executions=7 blocked=0 ssb=0
 * expect: -DFIX => verdict=safe errors=none executions=82 traces=2 blocked=0 final_states=1
 */
#include <assert.h>
#include <pthread.h>

int bal[2] = {100, 100};
pthread_mutex_t m[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

/* arg = the source account; the amount depends on it (kept in registers: no extra visible events). */
void *transfer(void *arg) {
    int from = (int)(long)arg, to = 1 - from, amount = from == 0 ? 10 : 20;
#ifdef FIX
    int lo = from < to ? from : to, hi = from < to ? to : from;
    pthread_mutex_lock(&m[lo]);
    pthread_mutex_lock(&m[hi]);
#endif
    bal[from] -= amount;
    bal[to] += amount;
#ifdef FIX
    pthread_mutex_unlock(&m[hi]);
    pthread_mutex_unlock(&m[lo]);
#endif
    return 0;
}

int main(void) {
    pthread_t t1, t2;
    pthread_create(&t1, 0, transfer, (void *)0L);
    pthread_create(&t2, 0, transfer, (void *)1L);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    assert(bal[0] + bal[1] == 200);
    return 0;
}
