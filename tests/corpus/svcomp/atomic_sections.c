/* atomic_sections.c — SV-COMP dialect: reach_error() defined in the file, __VERIFIER_atomic_begin/end pairs
 * (one section with two exits), a __VERIFIER_atomic_ function, __VERIFIER_assume, all called undeclared-style
 * (declared extern only, as sv-benchmarks do).
 *
 * Two threads increment x, one through an atomic function, one through a begin/end section; a third thread
 * reads x inside an atomic section and leaves through one of two exits. main asserts (reach_error) that x == 2
 * after the joins. Each increment is atomic, so no update is lost and reach_error() is unreachable. The
 * accesses to x all happen inside atomic sections, which exclude each other (SV-COMP's no-data-race property
 * counts accesses in atomic sections as atomic): expected verdict: safe.
 * traces (derived): the three atomic blocks on x are pairwise dependent (reads/writes of x): 3! = 6 orders;
 * final_states=3: seen == -1 (reader first), 1 or 2.
 *
 * expect: => verdict=safe errors=none executions=101 traces=6 blocked=0 final_states=3
 * expect: --algo=qpor => verdict=safe errors=none executions=6 blocked=0 ssb=0
 * expect: --no-race-detection => verdict=safe errors=none executions=101 traces=6 blocked=0 final_states=3
 * expect: --algo=vhb => verdict=safe errors=none executions=6 blocked=0 final_states=3
 */
#include <pthread.h>

extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "atomic_sections.c", 3, "reach_error"); }
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);

int x = 0;
int seen = -1;

void __VERIFIER_atomic_inc(void) {
    x = x + 1;
}

void *inc_fn(void *arg) {
    __VERIFIER_atomic_inc();
    return 0;
}

void *inc_section(void *arg) {
    __VERIFIER_atomic_begin();
    int v = x;
    x = v + 1;
    __VERIFIER_atomic_end();
    return 0;
}

void *reader(void *arg) {
    __VERIFIER_atomic_begin();
    if (x == 0) {
        __VERIFIER_atomic_end();
        return 0;
    }
    seen = x;
    __VERIFIER_atomic_end();
    __VERIFIER_assume(seen > 0);
    return 0;
}

int main() {
    pthread_t a, b, c;
    pthread_create(&a, 0, inc_fn, 0);
    pthread_create(&b, 0, inc_section, 0);
    pthread_create(&c, 0, reader, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    pthread_join(c, 0);
    if (x != 2) reach_error();
    return 0;
}
