/* Unit tests for tools/ftl-sim/rng.c: seeding, determinism, ranges and
 * unbiasedness of rng_below. */
#include "check.h"
#include "rng.h"

static void test_seeding(void)
{
    struct rng a, b;
    int same = 1, differ = 0;

    /* splitmix64 from 0: the published first outputs */
    rng_seed(&a, 0);
    CHECK_EQ_U64(a.s[0], 0xe220a8397b1dcdafULL);
    CHECK_EQ_U64(a.s[1], 0x6e789e6aa1b965f4ULL);
    CHECK_EQ_U64(a.s[2], 0x06c45d188009454fULL);

    rng_seed(&a, 42);
    rng_seed(&b, 42);
    for (int i = 0; i < 1000; i++) {
        same &= rng_next(&a) == rng_next(&b);
    }
    CHECK(same);
    rng_seed(&a, 42);
    rng_seed(&b, 43);
    for (int i = 0; i < 1000; i++) {
        differ += rng_next(&a) != rng_next(&b);
    }
    CHECK(differ == 1000);
}

static void test_bits(void)
{
    struct rng r;
    int ones[64] = { 0 };
    int ok = 1;

    rng_seed(&r, 7);
    for (int i = 0; i < 100000; i++) {
        uint64_t x = rng_next(&r);

        for (int b = 0; b < 64; b++) {
            ones[b] += (int)((x >> b) & 1);
        }
    }
    /* every bit is fair: 50000 +- 5 sd (sd = 158) */
    for (int b = 0; b < 64; b++) {
        ok &= ones[b] > 50000 - 800 && ones[b] < 50000 + 800;
    }
    CHECK(ok);
}

static void test_unit(void)
{
    struct rng r;
    double sum = 0, lo = 1, hi = 0;

    rng_seed(&r, 3);
    for (int i = 0; i < 1000000; i++) {
        double u = rng_unit(&r);

        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    CHECK(lo >= 0.0 && hi < 1.0);
    CHECK(lo < 1e-4 && hi > 1 - 1e-4);
    CHECK_NEAR(sum / 1e6, 0.5, 0.002);
}

static void test_below(void)
{
    struct rng r;
    int ok = 1;

    rng_seed(&r, 11);
    CHECK_EQ_U64(rng_below(&r, 0), 0);
    for (int i = 0; i < 1000; i++) {
        ok &= rng_below(&r, 1) == 0;
    }
    CHECK(ok);

    /* n = 3: flat (chi-square, 2 degrees of freedom) */
    {
        uint64_t c[3] = { 0 };
        double chi2 = 0, e = 3e5 / 3;

        ok = 1;
        for (int i = 0; i < 300000; i++) {
            uint64_t v = rng_below(&r, 3);

            ok &= v < 3;
            if (v < 3) {
                c[v]++;
            }
        }
        CHECK(ok);
        for (int i = 0; i < 3; i++) {
            chi2 += (c[i] - e) * (c[i] - e) / e;
        }
        CHECK(chi2 < 20);
    }

    /* n = 2^63 + 2^62: a plain "x % n" would put half of the draws in
     * [0, 2^62) instead of a third; unbiased sampling gives 1/3 */
    {
        uint64_t n = (UINT64_C(1) << 63) + (UINT64_C(1) << 62);
        int low = 0;

        ok = 1;
        for (int i = 0; i < 30000; i++) {
            uint64_t v = rng_below(&r, n);

            ok &= v < n;
            low += v < (UINT64_C(1) << 62);
        }
        CHECK(ok);
        CHECK_NEAR(low / 30000.0, 1.0 / 3, 0.015);
    }

    /* every value of a small range shows up, nothing outside */
    {
        int seen[10] = { 0 };

        ok = 1;
        for (int i = 0; i < 1000; i++) {
            uint64_t v = rng_below(&r, 10);

            ok &= v < 10;
            if (v < 10) {
                seen[v] = 1;
            }
        }
        for (int i = 0; i < 10; i++) {
            ok &= seen[i];
        }
        CHECK(ok);
    }
    {
        uint64_t v = rng_below(&r, UINT64_MAX);

        CHECK(v < UINT64_MAX);
    }
}

int main(void)
{
    test_seeding();
    test_bits();
    test_unit();
    test_below();
    return check_summary();
}
