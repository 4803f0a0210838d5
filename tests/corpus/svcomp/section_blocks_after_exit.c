/* section_blocks_after_exit.c — SV-COMP dialect: an atomic section that can only block, in a thread main does not
 * join.
 *
 * `waiter` waits inside an atomic section for a flag nobody sets: its section always blocks, and a blocked section
 * keeps every other thread from running (the execution is infeasible, as a failed assume). main joins only
 * `worker` and returns; an execution where main has exited before `waiter` enters its section is complete, with
 * data == 1 (the threads left waiting after main's exit are not a deadlock). Expected verdict: safe, one final state.
 * (qpor had no event for the section, so it recorded that execution as blocked without its final state.)
 *
 * expect: => verdict=safe errors=none traces=1 final_states=1
 * expect: --algo=qpor => verdict=safe errors=none executions=1 blocked=0 final_states=1 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none final_states=1
 */
#include <pthread.h>
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready, data;

void *waiter(void *arg) {
  __VERIFIER_atomic_begin();
  pthread_mutex_lock(&m);
  while (ready == 0) pthread_cond_wait(&c, &m);
  ready = 0;
  pthread_mutex_unlock(&m);
  __VERIFIER_atomic_end();
  return 0;
}

void *worker(void *arg) {
  data = 1;
  return 0;
}

int main() {
  pthread_t w, k;
  pthread_create(&w, 0, waiter, 0);
  pthread_create(&k, 0, worker, 0);
  pthread_join(k, 0);
  return 0;
}
