/*
 * The LPN hash table of the CMT and the write buffer against a plain array: random puts,
 * gets and deletes (deletes move probe runs back, the delicate part), in a table small
 * enough that runs wrap around its end.
 */
#include "check.h"
#include "base/lpn_table.h"
#include "rng.h"

#include <stdio.h>
#include <string.h>

#define LPNS 4096u
#define ENTRIES 64u

static void test_matches_an_array(uint64_t seed)
{
    static uint32_t truth[LPNS];
    struct lpn_table t;
    struct rng rng;
    uint32_t count = 0;

    memset(truth, 0xff, sizeof(truth));     /* LPN_TABLE_NONE everywhere */
    rng_seed(&rng, seed);
    CHECK(lpn_table_init(&t, ENTRIES));
    for (uint32_t step = 0; step < 200000; step++) {
        /* a few LPNs that hash close together, so probe runs are long and wrap */
        uint32_t lpn = (uint32_t)rng_below(&rng, LPNS);
        uint32_t op = (uint32_t)rng_below(&rng, 3);
        if (op == 0 && (count < ENTRIES || truth[lpn] != LPN_TABLE_NONE)) {
            count += truth[lpn] == LPN_TABLE_NONE;
            truth[lpn] = step;
            lpn_table_put(&t, lpn, step);
        } else if (op == 1) {
            count -= truth[lpn] != LPN_TABLE_NONE;
            truth[lpn] = LPN_TABLE_NONE;
            lpn_table_del(&t, lpn);
        } else if (lpn_table_get(&t, lpn) != truth[lpn]) {
            CHECK_EQ_U64(lpn_table_get(&t, lpn), truth[lpn]);
            break;
        }
        if (t.count != count) {
            CHECK_EQ_U64(t.count, count);
            break;
        }
    }
    for (uint32_t lpn = 0; lpn < LPNS; lpn++) {
        if (lpn_table_get(&t, lpn) != truth[lpn]) {
            CHECK_EQ_U64(lpn_table_get(&t, lpn), truth[lpn]);
            break;
        }
    }
    printf("  seed %llu: %u LPNs held at the end, table of %u slots\n",
           (unsigned long long)seed, count, t.mask + 1);
    lpn_table_free(&t);
}

int main(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        test_matches_an_array(seed);
    }
    return check_summary();
}
