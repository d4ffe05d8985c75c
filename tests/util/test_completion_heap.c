/*
 * completion_heap tests: empty behaviour, initial sizing, reserve, equal-time FIFO
 * order, pop_due boundaries, and a long randomized run against a sorted reference array.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "completion_heap.h"

#define ITEM(n) ((void *)(uintptr_t)(n))
#define VALUE(p) ((uintptr_t)(p))

/* xorshift64*: tiny, fixed-seed, good enough to shuffle heap operations. */
static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static void test_empty(void)
{
    struct completion_heap h;
    uint64_t t = 77;
    void *item = ITEM(88);

    CHECK(completion_heap_init(&h, 0));
    CHECK_EQ_U64(completion_heap_count(&h), 0);
    CHECK(!completion_heap_peek(&h, &t, &item));
    CHECK(!completion_heap_pop(&h, &t, &item));
    CHECK(t == 77 && item == ITEM(88));     /* outputs untouched */
    CHECK(!completion_heap_pop(&h, NULL, NULL));
    CHECK_EQ_U64(completion_heap_pop_due(&h, UINT64_MAX, &item, 1), 0);
    CHECK_EQ_U64(completion_heap_pop_due(&h, UINT64_MAX, NULL, 0), 0);

    /* Emptied after use behaves the same as never used. */
    CHECK(completion_heap_push(&h, 5, ITEM(1)));
    CHECK(completion_heap_pop(&h, NULL, NULL));
    CHECK(!completion_heap_peek(&h, NULL, NULL));
    CHECK_EQ_U64(completion_heap_count(&h), 0);
    completion_heap_destroy(&h);
    completion_heap_destroy(&h);            /* twice is harmless */
}

static void test_init_sizes(void)
{
    struct completion_heap h;

    /* An impossible size fails cleanly and leaves a usable empty heap. */
    CHECK(!completion_heap_init(&h, SIZE_MAX));
    CHECK_EQ_U64(completion_heap_count(&h), 0);
    CHECK(completion_heap_push(&h, 1, ITEM(1)));
    completion_heap_destroy(&h);

    /* Capacity 1 grows by doubling through many reallocations. */
    CHECK(completion_heap_init(&h, 1));
    unsigned long bad = 0;
    for (uintptr_t i = 0; i < 5000; i++) {
        bad += !completion_heap_push(&h, 5000 - i, ITEM(i));
    }
    CHECK_EQ_U64(completion_heap_count(&h), 5000);
    for (uintptr_t i = 0; i < 5000; i++) {
        uint64_t t;
        void *item;
        bad += !completion_heap_pop(&h, &t, &item) || t != i + 1 || VALUE(item) != 4999 - i;
    }
    CHECK_EQ_U64(bad, 0);
    completion_heap_destroy(&h);
}

static void test_reserve(void)
{
    struct completion_heap h;

    CHECK(completion_heap_init(&h, 0));
    CHECK(completion_heap_reserve(&h, 0));
    CHECK(completion_heap_reserve(&h, 100));
    CHECK(h.capacity >= 100);
    size_t cap = h.capacity;
    struct completion_heap_entry *storage = h.entries;
    for (uintptr_t i = 0; i < 100; i++) {
        CHECK(completion_heap_push(&h, 100 - i, ITEM(i)));
    }
    /* The reserved room was enough: no reallocation happened during the pushes. */
    CHECK(h.capacity == cap && h.entries == storage);
    CHECK(completion_heap_reserve(&h, 50));       /* smaller: nothing to do */
    CHECK(h.capacity == cap);
    /* An impossible count fails and leaves the heap as it was. */
    CHECK(!completion_heap_reserve(&h, SIZE_MAX));
    CHECK_EQ_U64(completion_heap_count(&h), 100);
    uint64_t t;
    CHECK(completion_heap_peek(&h, &t, NULL) && t == 1);
    completion_heap_destroy(&h);
}

static void test_equal_time_fifo(void)
{
    struct completion_heap h;
    unsigned long bad = 0;

    completion_heap_init(&h, 0);
    /* Many entries at one time: they must leave in push order, whatever the heap shape. */
    for (uintptr_t i = 0; i < 1000; i++) {
        completion_heap_push(&h, 42, ITEM(i));
    }
    for (uintptr_t i = 0; i < 1000; i++) {
        void *item;
        bad += !completion_heap_pop(&h, NULL, &item) || VALUE(item) != i;
    }
    CHECK_EQ_U64(bad, 0);

    /* Interleaved times: 3 2 1 3 2 1 ...; each time's items keep push order. */
    for (uintptr_t i = 0; i < 300; i++) {
        completion_heap_push(&h, 3 - i % 3, ITEM(i));
    }
    for (uint64_t t = 1; t <= 3; t++) {
        for (uintptr_t i = 3 - t; i < 300; i += 3) {
            uint64_t got_t;
            void *item;
            bad += !completion_heap_pop(&h, &got_t, &item) || got_t != t || VALUE(item) != i;
        }
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(completion_heap_count(&h), 0);
    completion_heap_destroy(&h);
}

static void test_pop_due(void)
{
    struct completion_heap h;
    void *out[8];
    uint64_t t;

    completion_heap_init(&h, 2);
    completion_heap_push(&h, 30, ITEM(4));
    completion_heap_push(&h, 20, ITEM(2));
    completion_heap_push(&h, 0, ITEM(0));
    completion_heap_push(&h, 10, ITEM(1));
    completion_heap_push(&h, 20, ITEM(3));
    completion_heap_push(&h, UINT64_MAX, ITEM(5));

    CHECK_EQ_U64(completion_heap_pop_due(&h, 0, out, 8), 1);       /* time 0 is due at 0 */
    CHECK_EQ_U64(VALUE(out[0]), 0);
    CHECK_EQ_U64(completion_heap_pop_due(&h, 9, out, 8), 0);       /* just before */
    CHECK_EQ_U64(completion_heap_pop_due(&h, 10, out, 8), 1);      /* exactly due */
    CHECK_EQ_U64(VALUE(out[0]), 1);
    CHECK_EQ_U64(completion_heap_pop_due(&h, 25, out, 0), 0);      /* max 0 */
    CHECK_EQ_U64(completion_heap_pop_due(&h, 25, out, 1), 1);      /* max cuts a tie */
    CHECK_EQ_U64(VALUE(out[0]), 2);
    CHECK(completion_heap_peek(&h, &t, NULL) && t == 20);
    CHECK_EQ_U64(completion_heap_pop_due(&h, 29, out, 8), 1);
    CHECK_EQ_U64(VALUE(out[0]), 3);
    CHECK_EQ_U64(completion_heap_count(&h), 2);
    CHECK_EQ_U64(completion_heap_pop_due(&h, UINT64_MAX - 1, out, 8), 1);
    CHECK_EQ_U64(VALUE(out[0]), 4);
    CHECK_EQ_U64(completion_heap_pop_due(&h, UINT64_MAX, out, 8), 1);
    CHECK_EQ_U64(VALUE(out[0]), 5);
    CHECK_EQ_U64(completion_heap_count(&h), 0);
    completion_heap_destroy(&h);
}

/*
 * The reference keeps entries sorted so that the next to leave is last: time descending,
 * and among equal times the newest first. Pops are then O(1) from the end.
 */
struct ref_entry {
    uint64_t time_ns;
    uintptr_t id;
};

static struct ref_entry *ref;
static size_t ref_count;

static void ref_push(uint64_t time_ns, uintptr_t id)
{
    size_t lo = 0, hi = ref_count;

    /* First index whose time is <= time_ns: the new entry goes before older equal ones. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ref[mid].time_ns > time_ns) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    memmove(&ref[lo + 1], &ref[lo], (ref_count - lo) * sizeof(*ref));
    ref[lo] = (struct ref_entry){ time_ns, id };
    ref_count++;
}

static uint64_t random_time(void)
{
    uint64_t r = rng_next();

    switch (r % 4) {
    case 0:
        return r >> 58;                     /* 0..63: many ties */
    case 1:
        return 1000000 + (r >> 40);         /* device-like: now + latency */
    case 2:
        return (r >> 8) & 1 ? UINT64_MAX : 0;   /* the extremes */
    default:
        return rng_next();                  /* anywhere */
    }
}

static void test_randomized(void)
{
    enum { OPS = 400000 };
    struct completion_heap h;
    unsigned long bad = 0, pops = 0, max_count = 0;
    uintptr_t next_id = 1;

    ref = malloc(OPS * sizeof(*ref));
    ref_count = 0;
    CHECK(ref != NULL);
    if (!ref) {
        return;
    }
    completion_heap_init(&h, 0);
    for (unsigned op = 0; op < OPS; op++) {
        /* Alternate growing and shrinking phases so the heap size sweeps up and down. */
        unsigned push_pct = (op / 20000) % 2 ? 35 : 65;
        unsigned roll = rng_next() % 100;

        if (roll < push_pct) {
            uint64_t t = random_time();
            bad += !completion_heap_push(&h, t, ITEM(next_id));
            ref_push(t, next_id++);
        } else if (roll < 90) {
            uint64_t t = 0;
            void *item = NULL;
            bool got = completion_heap_pop(&h, &t, &item);
            if (ref_count == 0) {
                bad += got;
            } else {
                const struct ref_entry *e = &ref[--ref_count];
                bad += !got || t != e->time_ns || VALUE(item) != e->id;
                pops++;
            }
        } else if (roll < 97) {
            uint64_t now = random_time();
            void *out[16];
            size_t max = rng_next() % 17;
            size_t n = completion_heap_pop_due(&h, now, out, max);
            size_t expect = 0;
            while (expect < max && ref_count > 0 && ref[ref_count - 1].time_ns <= now) {
                bad += expect >= n || VALUE(out[expect]) != ref[ref_count - 1].id;
                ref_count--;
                expect++;
            }
            bad += n != expect;
            pops += n;
        } else {
            uint64_t t = 0;
            void *item = NULL;
            bool got = completion_heap_peek(&h, &t, &item);
            bad += got != (ref_count > 0);
            if (got && ref_count > 0) {
                bad += t != ref[ref_count - 1].time_ns || VALUE(item) != ref[ref_count - 1].id;
            }
        }
        bad += completion_heap_count(&h) != ref_count;
        if (ref_count > max_count) {
            max_count = ref_count;
        }
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(pops > OPS / 4);          /* the run really exercised removal ... */
    CHECK(max_count > 1000);        /* ... at a size with a deep heap */

    /* Drain the rest in full order. */
    while (ref_count > 0) {
        uint64_t t;
        void *item;
        const struct ref_entry *e = &ref[--ref_count];
        bad += !completion_heap_pop(&h, &t, &item) || t != e->time_ns || VALUE(item) != e->id;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(!completion_heap_pop(&h, NULL, NULL));
    completion_heap_destroy(&h);
    free(ref);
}

int main(void)
{
    test_empty();
    test_init_sizes();
    test_reserve();
    test_equal_time_fifo();
    test_pop_due();
    test_randomized();
    return check_summary();
}
