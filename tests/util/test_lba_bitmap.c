/*
 * lba_bitmap tests: ranges inside one word, across word edges and whole words, the
 * running count under overlapping set/clear, counts and runs of a range
 * (lba_bitmap_count_range, lba_bitmap_next_run), and a randomized run of all of them
 * against a byte array.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lba_bitmap.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static void test_edges(void)
{
    struct lba_bitmap bm;

    CHECK(lba_bitmap_init(&bm, 200));
    CHECK(!lba_bitmap_any(&bm, 0, 200));
    lba_bitmap_set(&bm, 60, 10);            /* 60..69 across the first word edge */
    CHECK_EQ_U64(lba_bitmap_count(&bm), 10);
    CHECK(lba_bitmap_any(&bm, 69, 1) && !lba_bitmap_any(&bm, 70, 130));
    CHECK(!lba_bitmap_any(&bm, 0, 60));
    lba_bitmap_set(&bm, 0, 200);            /* overlapping: counts each bit once */
    CHECK_EQ_U64(lba_bitmap_count(&bm), 200);
    lba_bitmap_clear(&bm, 64, 64);          /* exactly the second word */
    CHECK_EQ_U64(lba_bitmap_count(&bm), 136);
    CHECK(!lba_bitmap_any(&bm, 64, 64) && lba_bitmap_any(&bm, 63, 2));
    lba_bitmap_clear(&bm, 199, 1);          /* the last bit */
    lba_bitmap_clear(&bm, 10, 0);           /* empty range: nothing */
    CHECK_EQ_U64(lba_bitmap_count(&bm), 135);
    lba_bitmap_destroy(&bm);
}

static void test_count_range(void)
{
    struct lba_bitmap bm;

    CHECK(lba_bitmap_init(&bm, 300));
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 0, 300), 0);
    lba_bitmap_set(&bm, 5, 3);              /* 5..7 inside the first word */
    lba_bitmap_set(&bm, 62, 70);            /* 62..131: two word edges, one whole word */
    lba_bitmap_set(&bm, 299, 1);            /* the last bit */
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 0, 300), 74);
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 6, 1), 1);
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 8, 54), 0);    /* the gap between */
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 63, 2), 2);    /* across the edge */
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 64, 64), 64);  /* one whole word */
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 100, 200), 33);
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 299, 1), 1);
    CHECK_EQ_U64(lba_bitmap_count_range(&bm, 40, 0), 0);    /* empty range */
    lba_bitmap_destroy(&bm);
}

static void test_next_run(void)
{
    struct lba_bitmap bm;
    uint64_t start = 0, length = 0;

    CHECK(lba_bitmap_init(&bm, 500));
    CHECK(!lba_bitmap_next_run(&bm, 0, 500, &start, &length));
    lba_bitmap_set(&bm, 0, 1);              /* the first bit */
    lba_bitmap_set(&bm, 60, 200);           /* 60..259: several words */
    lba_bitmap_set(&bm, 320, 1);
    lba_bitmap_set(&bm, 322, 2);            /* 322..323, a gap of one before */
    lba_bitmap_set(&bm, 499, 1);            /* the last bit */
    CHECK(lba_bitmap_next_run(&bm, 0, 500, &start, &length));
    CHECK_EQ_U64(start, 0);
    CHECK_EQ_U64(length, 1);
    CHECK(lba_bitmap_next_run(&bm, 1, 500, &start, &length));
    CHECK_EQ_U64(start, 60);
    CHECK_EQ_U64(length, 200);
    /* A run that starts before `from` is seen from `from` on. */
    CHECK(lba_bitmap_next_run(&bm, 100, 500, &start, &length));
    CHECK_EQ_U64(start, 100);
    CHECK_EQ_U64(length, 160);
    /* Cut at end, also when end falls inside a word. */
    CHECK(lba_bitmap_next_run(&bm, 0, 1, &start, &length));
    CHECK_EQ_U64(length, 1);
    CHECK(lba_bitmap_next_run(&bm, 61, 70, &start, &length));
    CHECK_EQ_U64(start, 61);
    CHECK_EQ_U64(length, 9);
    CHECK(lba_bitmap_next_run(&bm, 260, 500, &start, &length));
    CHECK_EQ_U64(start, 320);
    CHECK_EQ_U64(length, 1);
    CHECK(lba_bitmap_next_run(&bm, 321, 500, &start, &length));
    CHECK_EQ_U64(start, 322);
    CHECK_EQ_U64(length, 2);
    CHECK(lba_bitmap_next_run(&bm, 324, 500, &start, &length));
    CHECK_EQ_U64(start, 499);
    CHECK_EQ_U64(length, 1);
    /* No run starts in [from, end): an empty range, or a gap. */
    CHECK(!lba_bitmap_next_run(&bm, 260, 320, &start, &length));
    CHECK(!lba_bitmap_next_run(&bm, 324, 499, &start, &length));
    CHECK(!lba_bitmap_next_run(&bm, 60, 60, &start, &length));
    lba_bitmap_destroy(&bm);
}

/* Every run lba_bitmap_next_run reports in [from, end) matches ref, and none is missed. */
static void check_runs(const struct lba_bitmap *bm, const uint8_t *ref, uint64_t from,
                       uint64_t end)
{
    uint64_t pos = from, start, length;

    while (lba_bitmap_next_run(bm, pos, end, &start, &length)) {
        uint64_t expect_start = pos, expect_end;

        while (expect_start < end && !ref[expect_start]) {
            expect_start++;
        }
        for (expect_end = expect_start; expect_end < end && ref[expect_end]; expect_end++) {
        }
        CHECK_EQ_U64(start, expect_start);
        CHECK_EQ_U64(length, expect_end - expect_start);
        if (length == 0 || start != expect_start) {
            return;
        }
        pos = start + length;
    }
    for (; pos < end; pos++) {
        CHECK(!ref[pos]);
    }
}

static void test_random_against_bytes(void)
{
    enum { BITS = 1000, ROUNDS = 20000 };
    struct lba_bitmap bm;
    uint8_t ref[BITS] = { 0 };

    CHECK(lba_bitmap_init(&bm, BITS));
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t first = rng_next() % BITS;
        uint64_t count = rng_next() % (BITS - first + 1);
        uint64_t op = rng_next() % 5, expected = 0, in_range = 0;
        bool any = false;

        for (uint64_t i = first; i < first + count; i++) {
            any |= ref[i];
            in_range += ref[i];
        }
        if (op == 0) {
            lba_bitmap_set(&bm, first, count);
            memset(ref + first, 1, count);
        } else if (op == 1) {
            lba_bitmap_clear(&bm, first, count);
            memset(ref + first, 0, count);
        } else if (op == 2) {
            CHECK(lba_bitmap_any(&bm, first, count) == any);
        } else if (op == 3) {
            CHECK_EQ_U64(lba_bitmap_count_range(&bm, first, count), in_range);
        } else {
            check_runs(&bm, ref, first, first + count);
        }
        for (int i = 0; i < BITS; i++) {
            expected += ref[i];
        }
        CHECK_EQ_U64(lba_bitmap_count(&bm), expected);
    }
    lba_bitmap_destroy(&bm);
}

int main(void)
{
    test_edges();
    test_count_range();
    test_next_run();
    test_random_against_bytes();
    return check_summary();
}
