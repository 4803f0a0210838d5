/* strlen_growing.c — strlen of a string another thread is lengthening byte by byte.
 *
 * The writer appends 'a' to buf 31 times; main takes strlen(buf) once, which can return any length 0..31: one per
 * place among the writes. Which bytes strlen reads depends on where the NUL is, so its dependence is on the whole
 * of buf (model::Event::readFootprint): with only the bytes it read in the state it was reached in, dfs counted 6
 * traces and qpor explored 5 executions and missed the failing length (verdict "safe"), and the pending event kept
 * the range of the state where main arrived at the call, not of the one it ran in. The event's ranges now follow
 * memory (Executor::refreshRanges). The assertion fails for the length 17.
 * Expected verdict: error.
 *
 * expect: --no-race-detection => verdict=error errors=assertion@29 traces=32 final_states=1
 * expect: --no-race-detection --algo=qpor => verdict=error errors=assertion@29 executions=32 ssb=0
 * expect: --no-race-detection --algo=qpor --alt=sdpor => verdict=error errors=assertion@29
 * expect: --no-race-detection --algo=vhb => verdict=error errors=assertion@29 executions=32
 * expect: => verdict=error errors=data_race,assertion@29
 */
#include <assert.h>
#include <pthread.h>
#include <string.h>
char buf[32];
void *writer(void *arg) {
  for (int i = 0; i < 31; i++) buf[i] = 'a';
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  unsigned long n = strlen(buf);
  assert(n != 17);
  pthread_join(t, 0);
  return 0;
}
