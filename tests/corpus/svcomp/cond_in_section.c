/* cond_in_section.c — SV-COMP dialect: a condition variable signalled inside an atomic section, and a wait inside one.
 *
 * Two consumers wait (outside any section) until `ready` is set; the producer, inside __VERIFIER_atomic_begin/end,
 * publishes `data`, sets `ready` and signals once — so one consumer may wait for ever: a lost wake-up, reported as
 * a deadlock (main waits to join it). A third thread waits inside an atomic section when `ready` is still 0: the
 * section blocks, and with it every thread — in the SV-COMP semantics such an execution is infeasible (as a failed
 * assume), not a deadlock. The consumers' assertion holds: `data` is written in the same section as `ready`.
 * Expected verdict: error (deadlock, in two ways: either consumer is the one left waiting).
 *
 * expect: => verdict=error errors=deadlock@57,deadlock@58 executions=15860 traces=26 final_states=1
 * expect: --algo=qpor => verdict=error errors=deadlock@57,deadlock@58 executions=18 ssb=0
 * expect: --algo=vhb => verdict=error errors=deadlock@57,deadlock@58 executions=3
 */
#include <assert.h>
#include <pthread.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready = 0, data = 0;

void *producer(void *arg) {
  pthread_mutex_lock(&m);
  __VERIFIER_atomic_begin();
  data = 42;
  ready = 1;
  pthread_cond_signal(&c);
  __VERIFIER_atomic_end();
  pthread_mutex_unlock(&m);
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&c, &m);
  assert(data == 42);
  pthread_mutex_unlock(&m);
  return 0;
}

void *impatient(void *arg) {
  pthread_mutex_lock(&m);
  __VERIFIER_atomic_begin();
  if (!ready) pthread_cond_wait(&c, &m);
  __VERIFIER_atomic_end();
  pthread_mutex_unlock(&m);
  return 0;
}

int main() {
  pthread_t a, b, p, i;
  pthread_create(&a, 0, consumer, 0);
  pthread_create(&b, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_create(&i, 0, impatient, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(p, 0);
  pthread_join(i, 0);
  return 0;
}
