/* Performance target (c): dfs throughput on a small program with about 10 visible events per execution.
 * Main creates T threads and joins them; thread i does OPS seq_cst writes to the shared atomic x[i % 2]
 * (no data race, no error). The default (T=2, OPS=1) has about 10 visible events per execution, counted by
 * stats.events / (executions + blocked + bounded); dfs enumerates every interleaving of them.
 * Throughput = (executions + blocked + bounded) / stats.elapsed_ms. */
#include <pthread.h>
#include <assert.h>

#ifndef T
#define T 2
#endif
#ifndef OPS
#define OPS 1
#endif

_Atomic int x[2];

void *worker(void *arg)
{
	long i = (long)arg;
	for (int k = 0; k < OPS; k++)
		x[i % 2] = (int)i + k;
	return 0;
}

extern int __VERIFIER_nondet_int(void);

int main(void)
{
	/* Two nondeterministic values from --nondet=LO..HI: they multiply the executions by the square of the
	 * domain's size (adding one event each), so that a run lasts long enough to be timed. The verdict is
	 * then "bounded" (the nondet domain is a bound), which does not matter for a throughput figure. */
	int seed = __VERIFIER_nondet_int() + __VERIFIER_nondet_int();
	pthread_t t[T];
	for (long i = 0; i < T; i++)
		pthread_create(&t[i], 0, worker, (void *)i);
	for (int i = 0; i < T; i++)
		pthread_join(t[i], 0);
	assert(x[0] < T + OPS && x[1] < T + OPS && seed == seed);
	return 0;
}
