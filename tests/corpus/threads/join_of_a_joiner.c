/* join_of_a_joiner.c — main joins a worker that did nothing but create a child and join it, then writes what the
 * worker's child read; a second worker's child reads and writes the same variables.
 *
 * Creates and joins are not events of qpor's unfolding: a join makes the joined thread's last event a cause of the
 * joiner's next one. The worker `joiner` has no event at all, so main's write must follow what `joiner` itself joined
 * (its child's events). Before the twenty-first session qpor took only the worker's own last event (none, so its
 * creation), let main's write of x0 move before child A's write of x1 in an alternative, and then found that
 * alternative unrealisable: 2 executions and 2 sleep-set blocked ones, one Mazurkiewicz trace missed.
 * traces (derived): child A's read of x0 and write of x1 both precede main's write of x0 (joins); child B's write of
 * x1 is before or after A's, and its read of x0 before or after main's write — but B's write before A's forces B's
 * read before main's write: 3; final states: x1 = 1 (A's last) or B's x0 + 1 (1 or 6) = 2.
 *
 * expect: --no-race-detection => verdict=safe errors=none traces=3 final_states=2
 * expect: --algo=qpor --no-race-detection => verdict=safe errors=none executions=3 ssb=0 final_states=2
 * expect: --algo=qpor --alt=sdpor --no-race-detection => verdict=safe errors=none executions=3 final_states=2
 * expect: --algo=vhb --no-race-detection => verdict=safe errors=none final_states=2
 * expect: => verdict=error errors=data_race,data_race
 * expect: --algo=qpor => verdict=error errors=data_race,data_race executions=3 ssb=0
 */
#include <pthread.h>

int x0;
int x1;

void *child(void *arg) {
    (void)arg;
    x1 = x0 + 1;
    return 0;
}

void *joiner(void *arg) {
    (void)arg;
    pthread_t c;
    pthread_create(&c, 0, child, 0);
    pthread_join(c, 0);
    return 0;
}

void *leaver(void *arg) {
    (void)arg;
    pthread_t c;
    pthread_create(&c, 0, child, 0);
    return 0;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, 0, joiner, 0);
    pthread_create(&b, 0, leaver, 0);
    pthread_join(a, 0);
    x0 = 5;
    return 0;
}
