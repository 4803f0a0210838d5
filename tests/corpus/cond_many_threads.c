/* cond_many_threads.c — condition variables in a program with more than 64 threads (thread ids 70 to 73 wait and
 * broadcast).
 *
 * main runs 70 short threads one after the other, then two waiters and a broadcaster: each waiter waits while
 * `ready` is 0, the broadcaster sets it and wakes both. Safe: both are served whatever the order. The vhb explorer
 * keeps a condition variable's waiters as a bitmask for threads numbered below 63 and interns larger sets
 * (core/explore/vhb/WaiterSets.h); before, it refused threads numbered 64 or more. Needs --max-threads above 64.
 * Expected verdict: safe.
 *
 * expect: --max-threads=100 => verdict=safe errors=none traces=10 final_states=1
 * expect: --max-threads=100 --algo=qpor => verdict=safe errors=none executions=10 ssb=0 final_states=1
 * expect: --max-threads=100 --algo=vhb => verdict=safe errors=none executions=10 final_states=1
 * expect: => verdict=bounded
 */
#include <assert.h>
#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready, served, noise;
void *idle(void *arg) { noise = noise + 1; return 0; }
void *waiter(void *arg) {
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&c, &m);
  served++;
  pthread_mutex_unlock(&m);
  return 0;
}
void *signaller(void *arg) {
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_broadcast(&c);
  pthread_mutex_unlock(&m);
  return 0;
}
int main() {
  pthread_t t, w1, w2, s;
  for (int i = 0; i < 70; i++) { pthread_create(&t, 0, idle, 0); pthread_join(t, 0); }
  pthread_create(&w1, 0, waiter, 0);
  pthread_create(&w2, 0, waiter, 0);
  pthread_create(&s, 0, signaller, 0);
  pthread_join(w1, 0);
  pthread_join(w2, 0);
  pthread_join(s, 0);
  assert(served == 2);
  return 0;
}
