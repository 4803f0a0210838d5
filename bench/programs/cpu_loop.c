/* Performance target (b): a single-threaded, CPU-bound loop with no visible events inside it.
 * ITERS iterations of integer arithmetic (an xorshift generator, a running checksum and an array update);
 * one assertion at the end. Everything is local to main, so nothing in the loop is a visible event. Throughput = stats.instructions / stats.elapsed_ms.
 * Run with a large --max-steps (the default bound is 5,000,000 instructions per thread). */
#include <assert.h>

#ifndef ITERS
#define ITERS 2000000
#endif

int main(void)
{
	unsigned hist[64] = {0};
	unsigned s = 2463534242u, sum = 0;
	for (int i = 0; i < ITERS; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		sum += (s & 0xff) * 3 + (unsigned)i;
		hist[s & 63]++;
	}
	unsigned total = 0;
	for (int k = 0; k < 64; k++)
		total += hist[k];
	assert(total == ITERS);
	return (int)(sum & 1) * 0;
}
