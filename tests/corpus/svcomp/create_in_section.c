/* create_in_section.c — threads created and joined inside SV-COMP atomic sections.
 *
 * main creates a worker w inside an atomic section that also sets `started`; w increments x; a second thread v
 * adds 10 to x outside any section. main joins w inside another section that then reads x into `seen`, and joins v.
 * The join makes w's increment happen before the read; v's store races with nothing (x is _Atomic) and may come
 * before or after it. The assertion `seen >= 1` holds on every path: verdict safe.
 * traces (derived): v's read-modify-write of x against w's (2 orders) and against main's read in the joining
 * section (before or after, when v is after w: 2; when v is first it is before both): 3; final states: seen is 1
 * or 11, x ends 11: 2.
 *
 * expect: => verdict=safe errors=none traces=3 final_states=2
 * expect: --algo=qpor => verdict=safe errors=none executions=3 ssb=0
 */
#include <pthread.h>
#include <assert.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
_Atomic int x;
int started, seen;
void *w(void *arg) {
    x += 1;
    return 0;
}
void *v(void *arg) {
    x += 10;
    return 0;
}
int main() {
    pthread_t a, b;
    __VERIFIER_atomic_begin();
    pthread_create(&a, 0, w, 0);
    started = 1;
    __VERIFIER_atomic_end();
    pthread_create(&b, 0, v, 0);
    __VERIFIER_atomic_begin();
    pthread_join(a, 0);
    seen = x;
    __VERIFIER_atomic_end();
    pthread_join(b, 0);
    assert(seen >= 1);
    return 0;
}
