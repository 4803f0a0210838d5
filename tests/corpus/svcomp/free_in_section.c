/* free_in_section.c — SV-COMP dialect: a heap node unlinked and freed inside a __VERIFIER_atomic_ function
 * (sv-benchmarks' list and stack programs do this), with a char flag (a sub-word access) in the same section.
 *
 * The producer publishes a calloc'd node through `head` and sets `ready`; the consumer, inside one atomic
 * function, takes the node when `ready` is set, reads its value, clears `ready` (a _Bool: a sub-word write) and
 * frees the node. Only the consumer frees it, so no use after free and no double free; the producer reads `head`
 * only before it publishes. reach_error() fires when the value read is not the one written: unreachable.
 * Expected verdict: safe.
 *
 * expect: => verdict=safe errors=none executions=22 traces=2 blocked=0 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=2 blocked=0 ssb=0
 * (qpor: the section's accesses depend on what it reads, so each of its events has its own run's accesses:
 * core/explore/unfolding/DESIGN.md, "Sections whose runs differ". With the union of its runs' accesses it explored
 * 3.)
 * expect: --algo=vhb => verdict=safe errors=none executions=2 blocked=0 final_states=2
 */
#include <pthread.h>
#include <stdlib.h>

extern void abort(void);
void reach_error(void) { abort(); }
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

int *head;
_Bool ready;
int got = -1;

void __VERIFIER_atomic_take(void) {
    if (ready) {
        int *n = head;
        got = *n;
        head = 0;
        ready = 0;
        free(n);
    }
}

void *producer(void *arg) {
    (void)arg;
    int *n = calloc(1, sizeof(int));
    *n = 7;
    __VERIFIER_atomic_begin();
    head = n;
    ready = 1;
    __VERIFIER_atomic_end();
    return 0;
}

void *consumer(void *arg) {
    (void)arg;
    __VERIFIER_atomic_take();
    if (got != -1 && got != 7) reach_error();
    return 0;
}

int main(void) {
    pthread_t p, c;
    pthread_create(&p, 0, producer, 0);
    pthread_create(&c, 0, consumer, 0);
    pthread_join(p, 0);
    pthread_join(c, 0);
    return 0;
}
