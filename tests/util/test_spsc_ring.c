/*
 * spsc_ring tests: creation limits, FIFO order, full/empty edges, wrap-around, batches,
 * and a two-thread stress run that checks every item arrives once, in order, with the
 * data it points to fully visible (the release/acquire contract; run under TSan too).
 *
 * Usage: test-util-spsc-ring [stress_items]   (default 10^7)
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "spsc_ring.h"

#define ITEM(n) ((void *)(uintptr_t)(n))
#define VALUE(p) ((uintptr_t)(p))

static void test_create_limits(void)
{
    char err[128];
    const size_t bad[] = { 0, 3, 6, 100, SPSC_RING_MAX_CAPACITY + 1,
                           SPSC_RING_MAX_CAPACITY * 2, SIZE_MAX };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECK(spsc_ring_create(bad[i], err, sizeof(err)) == NULL);
        CHECK_CONTAINS(err, "spsc_ring: capacity");
    }
    /* A tiny error buffer is truncated, never overrun; a NULL one is allowed. */
    char tiny[4] = { 'x', 'x', 'x', 'x' };
    CHECK(spsc_ring_create(5, tiny, 3) == NULL);
    CHECK(tiny[2] == '\0' && tiny[3] == 'x');
    CHECK(spsc_ring_create(5, NULL, 0) == NULL);

    const size_t good[] = { 1, 2, 64, 4096 };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct spsc_ring *r = spsc_ring_create(good[i], err, sizeof(err));
        CHECK(r != NULL);
        if (r) {
            CHECK_EQ_U64(spsc_ring_capacity(r), good[i]);
            CHECK_EQ_U64(spsc_ring_count(r), 0);
            spsc_ring_destroy(r);
        }
    }
    spsc_ring_destroy(NULL);
}

static void test_fifo_full_empty(void)
{
    struct spsc_ring *r = spsc_ring_create(8, NULL, 0);
    void *item = ITEM(0xdead);

    CHECK(!spsc_ring_pop(r, &item));
    CHECK(item == ITEM(0xdead));            /* untouched when empty */
    CHECK_EQ_U64(spsc_ring_pop_batch(r, &item, 1), 0);

    for (uintptr_t i = 0; i < 8; i++) {
        CHECK(spsc_ring_push(r, ITEM(i)));  /* ITEM(0) is NULL: a valid item */
        CHECK_EQ_U64(spsc_ring_count(r), i + 1);
    }
    CHECK(!spsc_ring_push(r, ITEM(99)));
    CHECK_EQ_U64(spsc_ring_count(r), 8);

    for (uintptr_t i = 0; i < 8; i++) {
        CHECK(spsc_ring_pop(r, &item));
        CHECK_EQ_U64(VALUE(item), i);
    }
    CHECK(!spsc_ring_pop(r, &item));
    CHECK_EQ_U64(spsc_ring_count(r), 0);

    /* A freed slot is reusable at once, and the rejected 99 never entered. */
    CHECK(spsc_ring_push(r, ITEM(7)));
    CHECK(spsc_ring_pop(r, &item));
    CHECK_EQ_U64(VALUE(item), 7);
    spsc_ring_destroy(r);

    /* Capacity 1: full after one push, empty after one pop. */
    r = spsc_ring_create(1, NULL, 0);
    for (uintptr_t i = 1; i <= 5; i++) {
        CHECK(spsc_ring_push(r, ITEM(i)));
        CHECK(!spsc_ring_push(r, ITEM(100 + i)));
        CHECK(spsc_ring_pop(r, &item));
        CHECK_EQ_U64(VALUE(item), i);
        CHECK(!spsc_ring_pop(r, &item));
    }
    spsc_ring_destroy(r);
}

static void test_wrap_around(void)
{
    struct spsc_ring *r = spsc_ring_create(4, NULL, 0);
    uintptr_t next_in = 1, next_out = 1;
    unsigned long bad = 0;

    /* Fill levels 1..4 in turn, so the indices cross the mask boundary at every offset. */
    for (unsigned round = 0; round < 100000; round++) {
        unsigned k = 1 + round % 4;
        for (unsigned i = 0; i < k; i++) {
            bad += !spsc_ring_push(r, ITEM(next_in++));
        }
        bad += spsc_ring_count(r) != k;
        for (unsigned i = 0; i < k; i++) {
            void *item = NULL;
            bad += !spsc_ring_pop(r, &item) || VALUE(item) != next_out++;
        }
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(next_in, next_out);
    CHECK_EQ_U64(spsc_ring_count(r), 0);
    spsc_ring_destroy(r);
}

static void test_pop_batch(void)
{
    struct spsc_ring *r = spsc_ring_create(8, NULL, 0);
    void *out[16];

    /* Start at offset 6 so the batches below straddle the end of the slot array. */
    for (uintptr_t i = 0; i < 6; i++) {
        spsc_ring_push(r, ITEM(i));
    }
    CHECK_EQ_U64(spsc_ring_pop_batch(r, out, 6), 6);

    for (uintptr_t i = 10; i < 15; i++) {
        CHECK(spsc_ring_push(r, ITEM(i)));
    }
    CHECK_EQ_U64(spsc_ring_pop_batch(r, out, 0), 0);
    CHECK_EQ_U64(spsc_ring_pop_batch(r, out, 3), 3);
    CHECK(VALUE(out[0]) == 10 && VALUE(out[1]) == 11 && VALUE(out[2]) == 12);
    CHECK_EQ_U64(spsc_ring_pop_batch(r, out, 16), 2);
    CHECK(VALUE(out[0]) == 13 && VALUE(out[1]) == 14);
    CHECK_EQ_U64(spsc_ring_pop_batch(r, out, 16), 0);

    /* A full ring drains in one batch. */
    for (uintptr_t i = 0; i < 8; i++) {
        spsc_ring_push(r, ITEM(20 + i));
    }
    CHECK_EQ_U64(spsc_ring_pop_batch(r, out, 16), 8);
    CHECK(VALUE(out[0]) == 20 && VALUE(out[7]) == 27);
    CHECK_EQ_U64(spsc_ring_count(r), 0);
    spsc_ring_destroy(r);
}

/*
 * Stress: the producer writes a payload then pushes a pointer to it; the consumer checks
 * the sequence and the payload. Payload slots are reused only after the consumer is
 * provably done with them (pool > 3 x capacity and batches <= capacity), so any missing
 * ordering shows up as a wrong payload or a TSan report.
 */
#define STRESS_RING 64
#define STRESS_POOL (4 * STRESS_RING)

struct payload {
    uint64_t seq;
    uint64_t check;     /* derived from seq, to catch torn or stale payloads */
};

struct stress {
    struct spsc_ring *ring;
    struct payload pool[STRESS_POOL];
    uint64_t items;
    uint64_t received, out_of_order, bad_payload;
};

static uint64_t payload_check(uint64_t seq)
{
    return seq * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995u;
}

static void *stress_producer(void *arg)
{
    struct stress *s = arg;

    for (uint64_t seq = 0; seq < s->items; seq++) {
        struct payload *p = &s->pool[seq % STRESS_POOL];
        p->seq = seq;
        p->check = payload_check(seq);
        while (!spsc_ring_push(s->ring, p)) {
            sched_yield();  /* full: let the consumer run instead of spinning */
        }
    }
    return NULL;
}

static void *stress_consumer(void *arg)
{
    struct stress *s = arg;
    void *batch[STRESS_RING];
    uint64_t expect = 0;
    unsigned turn = 0;

    while (expect < s->items) {
        /* Alternate single pops and batches of varying size to cover both paths. */
        size_t n, want = turn++ % (STRESS_RING + 1);
        if (want == 0) {
            n = spsc_ring_pop(s->ring, &batch[0]) ? 1 : 0;
        } else {
            n = spsc_ring_pop_batch(s->ring, batch, want);
        }
        if (n == 0) {
            sched_yield();
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            const struct payload *p = batch[i];
            s->out_of_order += p->seq != expect;
            s->bad_payload += p->check != payload_check(p->seq);
            expect = p->seq + 1;
            s->received++;
        }
    }
    return NULL;
}

static void test_two_thread_stress(uint64_t items)
{
    static struct stress s;     /* static: the payload pool is too big for some stacks */
    pthread_t prod, cons;

    s.ring = spsc_ring_create(STRESS_RING, NULL, 0);
    s.items = items;
    CHECK(s.ring != NULL);
    if (!s.ring) {
        return;
    }
    CHECK(pthread_create(&cons, NULL, stress_consumer, &s) == 0);
    CHECK(pthread_create(&prod, NULL, stress_producer, &s) == 0);
    pthread_join(prod, NULL);
    pthread_join(cons, NULL);

    CHECK_EQ_U64(s.received, items);
    CHECK_EQ_U64(s.out_of_order, 0);
    CHECK_EQ_U64(s.bad_payload, 0);
    void *item;
    CHECK(!spsc_ring_pop(s.ring, &item));   /* nothing duplicated or left behind */
    CHECK_EQ_U64(spsc_ring_count(s.ring), 0);
    spsc_ring_destroy(s.ring);
}

int main(int argc, char **argv)
{
    uint64_t items = 10000000;

    if (argc > 1) {
        items = strtoull(argv[1], NULL, 0);
    }
    test_create_limits();
    test_fifo_full_empty();
    test_wrap_around();
    test_pop_batch();
    test_two_thread_stress(items);
    return check_summary();
}
