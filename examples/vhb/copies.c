/* copies.c — library accesses of shared memory under vhb: a writer publishes a 3-word record with memcpy and a
 * name with strcpy, a reader takes a snapshot of the record with memcpy and compares the name with strcmp. Each
 * copy is one event that reads/writes several words (core/explore/vhb/DESIGN.md "Multi-location accesses").
 * The reader can see the record before or after the publish, never torn (a memcpy is one event here), so the
 * sum check holds; but the name can be the new one while the record is still the old one — the assert fails.
 * Expected: an assertion failure (`r.a == 10`) and the two unsynchronised copies' data races. vhb: 3 classes.
 * expect: --algo=vhb => verdict=error errors=assertion@29,data_race@20,data_race@21 executions=3 final_states=1
 * expect: => verdict=error errors=assertion@29,data_race@20,data_race@21 traces=3 final_states=1
 */
#include <assert.h>
#include <pthread.h>
#include <string.h>

struct rec { int a, b, sum; };
struct rec shared_rec = {1, 2, 3};
char name[8] = "old";

void *writer(void *arg) {
    struct rec r = {10, 20, 30};
    strcpy(name, "new");
    memcpy(&shared_rec, &r, sizeof r);
    return 0;
}

void *reader(void *arg) {
    struct rec r;
    memcpy(&r, &shared_rec, sizeof r);
    assert(r.a + r.b == r.sum);
    if (strcmp(name, "new") == 0) assert(r.a == 10);
    return 0;
}

int main(void) {
    pthread_t w, r;
    pthread_create(&w, 0, writer, 0);
    pthread_create(&r, 0, reader, 0);
    pthread_join(w, 0);
    pthread_join(r, 0);
    memset(name, 0, sizeof name);
    return 0;
}
