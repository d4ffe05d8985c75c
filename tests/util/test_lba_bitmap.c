/*
 * lba_bitmap tests: ranges inside one word, across word edges and whole words, the
 * running count under overlapping set/clear, and a randomized run against a byte array.
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

static void test_random_against_bytes(void)
{
    enum { BITS = 1000, ROUNDS = 20000 };
    struct lba_bitmap bm;
    uint8_t ref[BITS] = { 0 };

    CHECK(lba_bitmap_init(&bm, BITS));
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t first = rng_next() % BITS;
        uint64_t count = rng_next() % (BITS - first + 1);
        uint64_t op = rng_next() % 3, expected = 0;
        bool any = false;

        for (uint64_t i = first; i < first + count; i++) {
            any |= ref[i];
        }
        if (op == 0) {
            lba_bitmap_set(&bm, first, count);
            memset(ref + first, 1, count);
        } else if (op == 1) {
            lba_bitmap_clear(&bm, first, count);
            memset(ref + first, 0, count);
        } else {
            CHECK(lba_bitmap_any(&bm, first, count) == any);
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
    test_random_against_bytes();
    return check_summary();
}
