/* qpor_fig2.c — the program of Fig. 2(a) of the QPOR paper (Nguyen et al., CAV'18), whose unfolding Fig. 2(b)
 * draws:
 *
 *   Thread 0:              Thread 1:      Thread 2:
 *   x = 0;                 lock(m);       lock(m');
 *   lock(m);               y = 1;         z = 3;
 *   if (y == 0)            unlock(m);     unlock(m');
 *     unlock(m);
 *   else {
 *     lock(m');
 *     z = 2;
 *   }
 *
 * All shared memory is accessed under a mutex, so only lock operations are dependent. The unfolding has three
 * maximal configurations (traces, derived): thread 0 takes m before thread 1 (reads y == 0, releases m;
 * thread 2 is independent of everything): 1; thread 1 first, then thread 0 reads y == 1 and takes m' either
 * before thread 2 (2) or after it (3).
 *
 * As in the figure, the else branch ends without releasing m and m'. In configuration 2 thread 0 finishes
 * holding m' while thread 2 waits for it forever: Skein reports a deadlock (thread 2 waits for m', held by the
 * finished thread 0; main waits to join thread 2). Expected verdict: error (deadlock); traces=3 with
 * blocked > 0 for the interleavings ending in configuration 2.
 *
 * -DRELEASE: the else branch also releases m' and m. Expected verdict: safe, the same 3 traces.
 * final_states=2 in both: z == 3 (configurations 1 and 2) or z == 2 (configuration 3, thread 0 writes last).
 *
 * expect: => verdict=error errors=deadlock@64 executions=7845 traces=3 blocked=44 final_states=2
 * expect: --algo=qpor => verdict=error errors=deadlock executions=2 blocked=1 ssb=0
 * expect: -DRELEASE => verdict=safe errors=none executions=8875 traces=3 blocked=0 final_states=2
 */
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER; /* m' */
int x, y, z;

void *thread0(void *arg) {
    (void)arg;
    x = 0;
    pthread_mutex_lock(&m);
    if (y == 0) {
        pthread_mutex_unlock(&m);
    } else {
        pthread_mutex_lock(&m2);
        z = 2;
#ifdef RELEASE
        pthread_mutex_unlock(&m2);
        pthread_mutex_unlock(&m);
#endif
    }
    return 0;
}

void *thread1(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m);
    y = 1;
    pthread_mutex_unlock(&m);
    return 0;
}

void *thread2(void *arg) {
    (void)arg;
    pthread_mutex_lock(&m2);
    z = 3;
    pthread_mutex_unlock(&m2);
    return 0;
}

int main(void) {
    pthread_t t0, t1, t2;
    pthread_create(&t0, 0, thread0, 0);
    pthread_create(&t1, 0, thread1, 0);
    pthread_create(&t2, 0, thread2, 0);
    pthread_join(t0, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
