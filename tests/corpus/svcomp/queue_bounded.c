/* queue_bounded.c — SV-COMP pthread queue_ok/queue style: a circular queue of SIZE=2 slots in a global struct
 * that also holds its mutex (PTHREAD_MUTEX_INITIALIZER), passed to the threads as their argument; a producer
 * enqueues 1..ENQ (ENQ=3; a full queue drops the value), a consumer makes DEQ (default 2) dequeue attempts and
 * checks the FIFO invariant (each value dequeued is larger than the one before); main checks 0 <= count <= SIZE.
 * The error call is __VERIFIER_error() through a macro (as older SV-COMP files do).
 *
 * Default: expected verdict: safe (values enter in increasing order and a full queue refuses them).
 * traces (derived): every enqueue and dequeue attempt is one critical section of the same mutex: C(5, 2) = 10
 * orders (DEQ=3: C(6, 3) = 20), each its own trace; final_states 5 (DEQ=3: 6), the distinct (buf, head, tail,
 * count) left, enumerated by a brute-force model of the sections.
 * -DBUG: the full test is off by one (count > SIZE), so a full queue takes a third value, overwriting the oldest
 * (the queue_ok bug class: the checked invariant breaks). Sections E (enqueue) and Q (dequeue attempt), DEQ=2:
 * EEEQQ overwrites 1 with 3, dequeues 3 then 2: the FIFO assertion fails; QQEEE leaves count == 3 > SIZE: main's
 * check fails; the other 8 orders complete without an error, in 2 distinct final states.
 * Expected verdict: error, both assertions; traces 10 (both failures are the last step of their order).
 * DEQ=3 -DBUG: EEEQQ(Q) and QEEEQQ fail the FIFO check (the consumer stops there), QQQEEE fails in main; 20
 * traces, 3 final states.
 *
 * expect: => verdict=safe errors=none executions=760 traces=10 blocked=0 final_states=5
 * expect: --algo=qpor => verdict=safe errors=none executions=10 blocked=0 ssb=0
 * expect: --algo=vhb => verdict=safe errors=none executions=10 blocked=0 final_states=5
 * expect: -DBUG => verdict=error errors=assertion@91,assertion@105 executions=846 traces=10 blocked=0 final_states=2
 * expect: --algo=qpor -DBUG => verdict=error errors=assertion@91,assertion@105 executions=10 blocked=0 ssb=0
 * expect: --algo=vhb -DBUG => verdict=error errors=assertion@91,assertion@105 executions=10 blocked=0 final_states=2
 * expect: -DDEQ=3 => verdict=safe errors=none executions=1529 traces=20 blocked=0 final_states=6
 * expect: --algo=qpor -DDEQ=3 => verdict=safe errors=none executions=20 blocked=0 ssb=0
 * expect: --algo=vhb -DDEQ=3 => verdict=safe errors=none executions=20 blocked=0 final_states=6
 * expect: -DDEQ=3 -DBUG => verdict=error errors=assertion@91,assertion@105 executions=1548 traces=20 blocked=0 final_states=3
 * expect: --algo=qpor -DDEQ=3 -DBUG => verdict=error errors=assertion@91,assertion@105 executions=20 blocked=0 ssb=0
 * expect: --algo=vhb -DDEQ=3 -DBUG => verdict=error errors=assertion@91,assertion@105 executions=20 blocked=0 final_states=3
 */
#include <pthread.h>

extern void __VERIFIER_error(void);
#define assert_or_error(c) do { if (!(c)) __VERIFIER_error(); } while (0)

#ifndef SIZE
#define SIZE 2
#endif
#ifndef ENQ
#define ENQ 3
#endif
#ifndef DEQ
#define DEQ 2
#endif

struct queue {
    pthread_mutex_t lock;
    int buf[SIZE];
    int head, tail, count;
};

struct queue q = {PTHREAD_MUTEX_INITIALIZER};

int enqueue(struct queue *qp, int x) {
#ifdef BUG
    if (qp->count > SIZE) return 0; /* off by one: a full queue accepts one more */
#else
    if (qp->count == SIZE) return 0;
#endif
    qp->buf[qp->tail] = x;
    qp->tail = (qp->tail + 1) % SIZE;
    qp->count++;
    return 1;
}

int dequeue(struct queue *qp, int *x) {
    if (qp->count == 0) return 0;
    *x = qp->buf[qp->head];
    qp->head = (qp->head + 1) % SIZE;
    qp->count--;
    return 1;
}

void *producer(void *arg) {
    struct queue *qp = arg;
    for (int k = 1; k <= ENQ; k++) {
        pthread_mutex_lock(&qp->lock);
        enqueue(qp, k); /* a full queue drops k */
        pthread_mutex_unlock(&qp->lock);
    }
    return 0;
}

void *consumer(void *arg) {
    struct queue *qp = arg;
    int last = 0, v;
    for (int k = 0; k < DEQ; k++) {
        pthread_mutex_lock(&qp->lock);
        if (dequeue(qp, &v)) {
            assert_or_error(v > last); /* FIFO: values leave in the order they entered */
            last = v;
        }
        pthread_mutex_unlock(&qp->lock);
    }
    return 0;
}

int main(void) {
    pthread_t p, c;
    pthread_create(&p, 0, producer, &q);
    pthread_create(&c, 0, consumer, &q);
    pthread_join(p, 0);
    pthread_join(c, 0);
    assert_or_error(q.count >= 0 && q.count <= SIZE);
    return 0;
}
