/* Performance target (a): in-process compile (Clang front end + lowering) of a 200-line C file in < 100 ms.
 * Measured by stats.compile_ms in --json. A bounded ring buffer with a mutex and two condition variables,
 * one producer and one consumer, a checksum, and a few helpers; exactly 200 lines, all of them used.
 * The exploration itself is not part of this target: bench/targets.rows runs it with --max-executions=1
 * (the verdict is then "bounded"); the full dfs exploration of this program takes much longer. */
#include <pthread.h>
#include <assert.h>
#include <stddef.h>

#ifndef CAP
#define CAP 2
#endif
#ifndef ITEMS
#define ITEMS 2
#endif

struct ring {
	int buf[CAP];
	int head;
	int tail;
	int count;
	pthread_mutex_t lock;
	pthread_cond_t not_full;
	pthread_cond_t not_empty;
};

struct stats {
	int produced;
	int consumed;
	long checksum_in;
	long checksum_out;
};

static struct ring q;
static struct stats st;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static int next_index(int i)
{
	i = i + 1;
	if (i == CAP)
		i = 0;
	return i;
}

static void ring_init(struct ring *r)
{
	r->head = 0;
	r->tail = 0;
	r->count = 0;
	for (int i = 0; i < CAP; i++)
		r->buf[i] = 0;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->not_full, NULL);
	pthread_cond_init(&r->not_empty, NULL);
}

static int ring_full(const struct ring *r)
{
	return r->count == CAP;
}

static int ring_empty(const struct ring *r)
{
	return r->count == 0;
}

static void ring_put(struct ring *r, int v)
{
	pthread_mutex_lock(&r->lock);
	while (ring_full(r))
		pthread_cond_wait(&r->not_full, &r->lock);
	r->buf[r->tail] = v;
	r->tail = next_index(r->tail);
	r->count++;
	pthread_cond_signal(&r->not_empty);
	pthread_mutex_unlock(&r->lock);
}

static int ring_get(struct ring *r)
{
	int v;
	pthread_mutex_lock(&r->lock);
	while (ring_empty(r))
		pthread_cond_wait(&r->not_empty, &r->lock);
	v = r->buf[r->head];
	r->head = next_index(r->head);
	r->count--;
	pthread_cond_signal(&r->not_full);
	pthread_mutex_unlock(&r->lock);
	return v;
}

static int mix(int a, int b)
{
	unsigned x = (unsigned)a * 2654435761u;
	x ^= (unsigned)b + 0x9e3779b9u + (x << 6) + (x >> 2);
	return (int)(x & 0x7fffffff);
}

static int item_value(int k)
{
	int v = 17;
	for (int i = 0; i <= k; i++)
		v = mix(v, i);
	return v % 1000;
}

static void record_in(int v)
{
	pthread_mutex_lock(&stats_lock);
	st.produced++;
	st.checksum_in += v;
	pthread_mutex_unlock(&stats_lock);
}

static void record_out(int v)
{
	pthread_mutex_lock(&stats_lock);
	st.consumed++;
	st.checksum_out += v;
	pthread_mutex_unlock(&stats_lock);
}

struct worker_arg {
	int id;
	int items;
};

static void *producer(void *p)
{
	struct worker_arg *a = (struct worker_arg *)p;
	for (int k = 0; k < a->items; k++) {
		int v = item_value(k + a->id);
		ring_put(&q, v);
		record_in(v);
	}
	return NULL;
}

static void *consumer(void *p)
{
	struct worker_arg *a = (struct worker_arg *)p;
	for (int k = 0; k < a->items; k++) {
		int v = ring_get(&q);
		assert(v >= 0 && v < 1000);
		record_out(v);
	}
	return NULL;
}

static int sum_expected(int id, int items)
{
	int s = 0;
	for (int k = 0; k < items; k++)
		s += item_value(k + id);
	return s;
}

static int check_ring_invariant(const struct ring *r)
{
	int used = r->tail - r->head;
	if (used < 0)
		used += CAP;
	if (r->count == CAP)
		return used == 0;
	return used == r->count;
}

static void check_final(void)
{
	assert(st.produced == ITEMS);
	assert(st.consumed == ITEMS);
	assert(st.checksum_in == st.checksum_out);
	assert(st.checksum_in == sum_expected(0, ITEMS));
	assert(ring_empty(&q));
	assert(check_ring_invariant(&q));
}

int main(void)
{
	pthread_t prod, cons;
	struct worker_arg pa = { 0, ITEMS };
	struct worker_arg ca = { 1, ITEMS };

	ring_init(&q);
	assert(check_ring_invariant(&q));

	pthread_create(&prod, NULL, producer, &pa);
	pthread_create(&cons, NULL, consumer, &ca);

	pthread_join(prod, NULL);
	pthread_join(cons, NULL);

	check_final();
	pthread_mutex_destroy(&q.lock);
	pthread_cond_destroy(&q.not_full);
	pthread_cond_destroy(&q.not_empty);
	return 0;
}
