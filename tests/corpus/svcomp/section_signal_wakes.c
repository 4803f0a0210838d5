/* section_signal_wakes.c — SV-COMP dialect: the only signal of a condition variable is inside an atomic section
 * (a program of the random differential family GeneratorFlags::syncInSections, seed 90336 as first generated).
 *
 * t0 sets `ready` and signals inside one atomic section; t1 waits (outside any section) while `ready` is 0. t1's
 * mutex re-acquire can only follow the section that woke it: qpor once placed it before that section (an event
 * whose history lacked its waker), which showed as sleep-set blocked executions under --alt=optimal. The races
 * on x0 and the assertion are the generator's (the race lines differ by explorer: each reports one side).
 * Expected verdict: error.
 *
 * expect: => verdict=error traces=26 final_states=4
 * expect: --algo=qpor => verdict=error executions=26 final_states=4 ssb=0
 * expect: --algo=vhb => verdict=error executions=26 final_states=4
 */
#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>
void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);
int x0;
atomic_int a0, a1;
pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;
int *hp;
pthread_mutex_t m0 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
void *t0(void *arg) {
  __VERIFIER_atomic_begin(); pthread_mutex_lock(&cm); ready = 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&cm); __VERIFIER_atomic_end();
  return 0;
}
void *t1(void *arg) {
  __VERIFIER_atomic_begin(); x0 = x0 + 1; __VERIFIER_atomic_end();
  pthread_mutex_lock(&cm); if (ready == 0) pthread_cond_wait(&cv, &cm); pthread_mutex_unlock(&cm);
  x0 = x0 + 1;
  return 0;
}
void *t2(void *arg) {
  x0 = 0;
  int r0 = x0;
  return 0;
}
int main() {
  pthread_t h[3];
  hp = calloc(2, sizeof(int));
  pthread_create(&h[0], 0, t0, 0);
  __VERIFIER_atomic_begin(); pthread_create(&h[1], 0, t1, 0); x0 = 1; __VERIFIER_atomic_end();
  pthread_create(&h[2], 0, t2, 0);
  pthread_join(h[0], 0);
  __VERIFIER_atomic_begin(); pthread_join(h[1], 0); x0 = x0 + 1; __VERIFIER_atomic_end();
  __VERIFIER_atomic_begin(); pthread_join(h[2], 0); x0 = x0 + 1; __VERIFIER_atomic_end();
  assert(x0 != 3);
  return 0;
}
