/* join_in_section.c — a join inside an SV-COMP atomic section with nondeterministic runs.
 *
 * main creates c (writes x = 1) and o (writes y = 2, then reads x). Inside one atomic section main draws n, joins c,
 * and writes y = 5 when n != 0, x = 7 otherwise; then it joins o and asserts !(x == 7 && y == 2), which fails on
 * every path with n == 0 (main never writes y then, o always does).
 * traces (derived): n != 0 — o's read of x before c's write (then o's write of y precedes the section's: 1), or
 * after it (o's write of y before or after the section's: 2): 3; n == 0 — o's read of x before c's write, between
 * it and the section's write of x, or after: 3 (o's write of y commutes with the section); 6 in all. Final states
 * (error-free executions): x = 1 and y = 5 or 2: 2.
 * qpor makes the section one action with an outcome per run, each with its own run's accesses: 6 executions, one per
 * trace (core/explore/unfolding/DESIGN.md, "Sections whose runs differ"). With the union of its runs' accesses (x
 * and y written) on every event it explored 8 until 2026-11-27 (eighteenth session). Before 2026-11-25 (sixth
 * session) qpor stopped on it with "a join inside an SV-COMP atomic section with nondeterministic runs ... is not
 * supported".
 *
 * expect: --no-race-detection => verdict=error errors=assertion@39 traces=6 final_states=2
 * expect: --algo=qpor --no-race-detection => verdict=error errors=assertion@39 executions=6 ssb=0
 * expect: --algo=qpor --alt=sdpor --no-race-detection => verdict=error errors=assertion@39
 * expect: --algo=qpor => verdict=error
 */
#include <assert.h>
#include <pthread.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
int x, y;
void *child(void *a) { (void)a; x = 1; return 0; }
void *other(void *a) { (void)a; y = 2; int r = x; (void)r; return 0; }
int main(void) {
    pthread_t c, o;
    pthread_create(&c, 0, child, 0);
    pthread_create(&o, 0, other, 0);
    __VERIFIER_atomic_begin();
    int n = __VERIFIER_nondet_int();
    pthread_join(c, 0);
    if (n) y = 5; else x = 7;
    __VERIFIER_atomic_end();
    pthread_join(o, 0);
    assert(!(x == 7 && y == 2));
    return 0;
}
