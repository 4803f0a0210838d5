/* free_race_in_section.c — SV-COMP dialect: a heap object read in one atomic section and freed in others.
 *
 * A reader reads p[0] inside an atomic section; two threads each free p inside their own atomic section. Whatever
 * the order, the second free is a double free; a read after a free is a use after free. Each section runs alone,
 * but which sections ran before it decides whether it finds the object alive or freed.
 * Expected verdict: error (a double free at line 26 and a use after free at line 19).
 *
 * expect: => verdict=error errors=memory@19,memory@26 traces=6
 * expect: --algo=qpor => verdict=error errors=memory@19,memory@26 executions=6 ssb=0
 * expect: --algo=vhb => verdict=error errors=memory@19,memory@26 executions=4
 */
#include <pthread.h>
#include <stdlib.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int *p;
void *reader(void *arg) {
  __VERIFIER_atomic_begin();
  int v = p[0];
  __VERIFIER_atomic_end();
  return 0;
}
void *freer(void *arg) {
  __VERIFIER_atomic_begin();
  int *q = p;
  free(q);
  __VERIFIER_atomic_end();
  return 0;
}
int main() {
  pthread_t a, b, c;
  p = malloc(sizeof(int));
  p[0] = 1;
  pthread_create(&a, 0, reader, 0);
  pthread_create(&b, 0, freer, 0);
  pthread_create(&c, 0, freer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  return 0;
}
