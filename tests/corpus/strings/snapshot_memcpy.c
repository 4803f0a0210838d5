/* snapshot_memcpy.c — a memcpy of an 8-word array while another thread rewrites it word by word.
 *
 * The writer sets every word to 1, then every word to 2; main copies the array once. Each word may hold 0, 1 or 2
 * (3^8 = 6,561 combinations), but the copy can only see a prefix of 2s, then of 1s, then of 0s: 17 snapshots, one
 * per place of the copy among the 16 writes. The assertion fails for one of them (four 2s, then 1s). vhb once
 * stopped here ("a multi-word access with over 4096 combinations of candidate values"); it now keeps only the
 * word-by-word prefixes Closure finds feasible (core/explore/vhb/DESIGN.md "Multi-location accesses").
 * The copy races with the writes (plain accesses): data races with the writes of lines 22 and 23 as well.
 * Expected verdict: error.
 *
 * expect: => verdict=error errors=data_race,data_race,assertion@32 traces=17
 * expect: --no-race-detection => verdict=error errors=assertion@32 traces=17 final_states=1
 * expect: --no-race-detection --algo=qpor => verdict=error errors=assertion@32 executions=17 ssb=0
 * expect: --no-race-detection --algo=vhb => verdict=error errors=assertion@32 executions=17
 * expect: --algo=vhb => verdict=error errors=data_race,data_race,assertion@32
 */
#include <assert.h>
#include <pthread.h>
#include <string.h>
int a[8];
void *writer(void *arg) {
  for (int i = 0; i < 8; i++) a[i] = 1;
  for (int i = 0; i < 8; i++) a[i] = 2;
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  int b[8];
  memcpy(b, a, sizeof a);
  for (int i = 1; i < 8; i++) assert(b[i] <= b[i - 1]); /* holds: a snapshot is monotone */
  assert(!(b[3] == 2 && b[4] == 1));                     /* fails: the copy after the fourth 2 */
  pthread_join(t, 0);
  return 0;
}
