/* section_snapshot.c — SV-COMP dialect: an atomic section reads twelve words while a writer rewrites them.
 *
 * The writer sets x[0..11] to 1, then to 2 (each store in a section of its own: no data race); main reads them all inside one atomic section. Each read may see 0, 1
 * or 2 (3^12 = 531,441 ways through the section), but the section runs alone, so what it sees is a prefix of 2s,
 * then of 1s, then of 0s: 25 snapshots, one per place of the section among the 24 writes. vhb once stopped here
 * ("an atomic section with over 100000 ways through it"); it now follows a way only while its events so far are
 * realisable on the node (core/explore/vhb/DESIGN.md "Multi-location accesses", "Many combinations").
 * The assertion fails for one snapshot (six 2s, then 1s).
 * Expected verdict: error (assertion at line 33).
 *
 * expect: => verdict=error errors=assertion@33 traces=25 final_states=1
 * expect: --algo=qpor => verdict=error errors=assertion@33 executions=25 ssb=0
 * expect: --algo=vhb => verdict=error errors=assertion@33 executions=25
 */
#include <assert.h>
#include <pthread.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);
int x[12];
void *writer(void *arg) {
  for (int i = 0; i < 12; i++) { __VERIFIER_atomic_begin(); x[i] = 1; __VERIFIER_atomic_end(); }
  for (int i = 0; i < 12; i++) { __VERIFIER_atomic_begin(); x[i] = 2; __VERIFIER_atomic_end(); }
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  int r[12];
  __VERIFIER_atomic_begin();
  for (int i = 0; i < 12; i++) r[i] = x[i];
  __VERIFIER_atomic_end();
  for (int i = 1; i < 12; i++) assert(r[i] <= r[i - 1]); /* holds: the section runs alone */
  assert(!(r[5] == 2 && r[6] == 1));                      /* fails: the section after the sixth 2 */
  pthread_join(t, 0);
  return 0;
}
