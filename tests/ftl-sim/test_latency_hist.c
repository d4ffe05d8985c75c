/* Unit tests for tools/ftl-sim/latency_hist.c: exact count/mean/min/max,
 * percentiles within bucket precision of a sorted array. */
#include <stdlib.h>

#include "check.h"
#include "latency_hist.h"
#include "rng.h"

/* Bucket precision: the reported middle is within half a bucket, and a
 * bucket is at most 1/128 of its values wide. */
static int close_enough(uint64_t got, uint64_t want)
{
    uint64_t diff = got > want ? got - want : want - got;

    return diff <= want / 256 + 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static struct latency_hist h, h2, h3;

static void test_empty(void)
{
    latency_hist_init(&h);
    CHECK_EQ_U64(latency_hist_count(&h), 0);
    CHECK(latency_hist_mean_ns(&h) == 0.0);
    CHECK_EQ_U64(latency_hist_min_ns(&h), 0);
    CHECK_EQ_U64(latency_hist_max_ns(&h), 0);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 0), 0);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 50), 0);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 100), 0);
}

static void test_small_exact(void)
{
    /* values below 128 have their own buckets: percentiles are exact */
    latency_hist_init(&h);
    for (uint64_t v = 1; v <= 100; v++) {
        latency_hist_add(&h, v);
    }
    CHECK_EQ_U64(latency_hist_count(&h), 100);
    CHECK(latency_hist_mean_ns(&h) == 50.5);
    CHECK_EQ_U64(latency_hist_min_ns(&h), 1);
    CHECK_EQ_U64(latency_hist_max_ns(&h), 100);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 0), 1);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 1), 1);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 1.5), 2);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 50), 50);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 99), 99);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 99.9), 100);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 100), 100);
    /* out-of-range p is clamped, NaN is p0 */
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, -5), 1);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 250), 100);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, nan("")), 1);

    /* 99.9% of 1000 samples is exactly rank 999 */
    latency_hist_reset(&h);
    for (uint64_t v = 0; v < 1000; v++) {
        latency_hist_add(&h, v < 999 ? 5 : 100);
    }
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 99.9), 5);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 99.91), 100);

    latency_hist_reset(&h);
    CHECK_EQ_U64(latency_hist_count(&h), 0);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 50), 0);
}

/* One value between a 0 and a UINT64_MAX: the median is that value's
 * bucket, not clamped to min or max.  Covers every bucket group. */
static void test_bucket_mapping(void)
{
    int ok = 1;

    for (int e = 0; e < 64; e++) {
        for (int d = -2; d <= 2; d++) {
            uint64_t v = ((uint64_t)1 << e) + (uint64_t)(int64_t)d;
            uint64_t got;

            if (e < 2 && d < 0) {
                continue;
            }
            latency_hist_reset(&h);
            latency_hist_add(&h, 0);
            latency_hist_add(&h, v);
            latency_hist_add(&h, UINT64_MAX);
            got = latency_hist_percentile_ns(&h, 50);
            if (!close_enough(got, v)) {
                ok = 0;
                fprintf(stderr, "    v=%llu -> %llu\n",
                        (unsigned long long)v, (unsigned long long)got);
            }
        }
    }
    CHECK(ok);
    latency_hist_reset(&h);
    latency_hist_add(&h, UINT64_MAX);
    latency_hist_add(&h, UINT64_MAX - 1);
    CHECK_EQ_U64(latency_hist_min_ns(&h), UINT64_MAX - 1);
    CHECK_EQ_U64(latency_hist_max_ns(&h), UINT64_MAX);
    CHECK(close_enough(latency_hist_percentile_ns(&h, 50), UINT64_MAX - 1));
}

static void test_random_percentiles(void)
{
    enum { N = 200000 };
    const double ps[] = { 0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9,
                          99.99, 100 };
    const int p1000[] = { 0, 1, 10, 100, 250, 500, 750, 900, 950, 990, 999,
                          -1, 1000 };   /* p * 10, -1: computed below */
    uint64_t *v = malloc(N * sizeof(*v));
    struct rng r;
    double sum = 0;

    rng_seed(&r, 2024);
    latency_hist_init(&h);
    latency_hist_init(&h2);
    latency_hist_init(&h3);
    for (int i = 0; i < N; i++) {
        /* log-uniform from 1 us to 100 ms, like device latencies */
        v[i] = (uint64_t)(1000.0 * pow(10.0, 5.0 * rng_unit(&r)));
        latency_hist_add(&h, v[i]);
        latency_hist_add(i % 3 ? &h2 : &h3, v[i]);
        sum += (double)v[i];
    }
    qsort(v, N, sizeof(*v), cmp_u64);
    CHECK_EQ_U64(latency_hist_count(&h), N);
    CHECK_NEAR(latency_hist_mean_ns(&h), sum / N, 1e-9 * sum / N);
    CHECK_EQ_U64(latency_hist_min_ns(&h), v[0]);
    CHECK_EQ_U64(latency_hist_max_ns(&h), v[N - 1]);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 0), v[0]);
    CHECK_EQ_U64(latency_hist_percentile_ns(&h, 100), v[N - 1]);

    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        /* nearest rank, in exact integer arithmetic */
        uint64_t rank = p1000[i] >= 0
            ? ((uint64_t)p1000[i] * N + 999) / 1000
            : ((uint64_t)9999 * N + 9999) / 10000;   /* 99.99 */
        uint64_t want = v[rank ? rank - 1 : 0];
        uint64_t got = latency_hist_percentile_ns(&h, ps[i]);

        if (!check_record(close_enough(got, want), __FILE__, __LINE__,
                          "percentile within bucket precision"))
            fprintf(stderr, "    p%g: %llu vs %llu\n", ps[i],
                    (unsigned long long)got, (unsigned long long)want);
    }

    /* merging two halves gives the same histogram */
    latency_hist_merge(&h2, &h3);
    CHECK(memcmp(&h, &h2, sizeof(h)) == 0);
    latency_hist_reset(&h3);
    latency_hist_merge(&h2, &h3);       /* empty source: no change */
    CHECK(memcmp(&h, &h2, sizeof(h)) == 0);
    latency_hist_merge(&h3, &h);        /* into empty */
    CHECK(memcmp(&h, &h3, sizeof(h)) == 0);
    free(v);
}

/* The sum is kept in 128 bits: huge samples still give an exact mean. */
static void test_mean_exact_large(void)
{
    latency_hist_init(&h);
    for (int i = 0; i < 1000; i++) {
        latency_hist_add(&h, UINT64_MAX);
    }
    CHECK_NEAR(latency_hist_mean_ns(&h), 18446744073709551615.0, 1e4);
    latency_hist_add(&h, 0);
    CHECK_NEAR(latency_hist_mean_ns(&h),
               18446744073709551615.0 * 1000 / 1001, 1e5);
    CHECK_EQ_U64(latency_hist_min_ns(&h), 0);
    latency_hist_init(&h2);
    latency_hist_merge(&h2, &h);
    latency_hist_merge(&h2, &h);
    CHECK_NEAR(latency_hist_mean_ns(&h2),
               18446744073709551615.0 * 1000 / 1001, 1e5);
    CHECK_EQ_U64(latency_hist_count(&h2), 2002);
}

int main(void)
{
    test_empty();
    test_small_exact();
    test_bucket_mapping();
    test_random_percentiles();
    test_mean_exact_large();
    return check_summary();
}
