/*
 * latency_hist.c - log-linear latency histogram (see latency_hist.h).
 */
#include "latency_hist.h"

#include <math.h>
#include <string.h>

/* Index of the highest set bit; v != 0. */
static unsigned top_bit(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll(v);
#else
    unsigned b = 0;

    while (v >>= 1) {
        b++;
    }
    return b;
#endif
}

static unsigned bucket_of(uint64_t v)
{
    unsigned e, shift;

    if (v < LATENCY_HIST_SUB) {
        return (unsigned)v;
    }
    e = top_bit(v);                     /* >= SUB_BITS */
    shift = e - LATENCY_HIST_SUB_BITS;
    /* (v >> shift) is in [SUB, 2*SUB): the leading 1 plus SUB_BITS bits */
    return (shift + 1) * LATENCY_HIST_SUB +
           (unsigned)((v >> shift) - LATENCY_HIST_SUB);
}

/* Smallest value in bucket i, and the bucket's width. */
static void bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
    unsigned group = i / LATENCY_HIST_SUB;
    unsigned sub = i % LATENCY_HIST_SUB;

    if (group == 0) {
        *lo = sub;
        *width = 1;
        return;
    }
    *width = (uint64_t)1 << (group - 1);
    *lo = ((uint64_t)LATENCY_HIST_SUB + sub) << (group - 1);
}

void latency_hist_reset(struct latency_hist *h)
{
    memset(h, 0, sizeof(*h));
}

void latency_hist_init(struct latency_hist *h)
{
    latency_hist_reset(h);
}

void latency_hist_add(struct latency_hist *h, uint64_t ns)
{
    if (h->count == 0 || ns < h->min) {
        h->min = ns;
    }
    if (h->count == 0 || ns > h->max) {
        h->max = ns;
    }
    h->count++;
    h->sum_lo += ns;
    h->sum_hi += h->sum_lo < ns;        /* carry */
    h->buckets[bucket_of(ns)]++;
}

void latency_hist_merge(struct latency_hist *dst,
                        const struct latency_hist *src)
{
    if (src->count == 0) {
        return;
    }
    if (dst->count == 0 || src->min < dst->min) {
        dst->min = src->min;
    }
    if (dst->count == 0 || src->max > dst->max) {
        dst->max = src->max;
    }
    dst->count += src->count;
    dst->sum_lo += src->sum_lo;
    dst->sum_hi += src->sum_hi + (dst->sum_lo < src->sum_lo);
    for (unsigned i = 0; i < LATENCY_HIST_NBUCKETS; i++) {
        dst->buckets[i] += src->buckets[i];
    }
}

uint64_t latency_hist_count(const struct latency_hist *h)
{
    return h->count;
}

double latency_hist_mean_ns(const struct latency_hist *h)
{
    if (h->count == 0) {
        return 0.0;
    }
    /* Split the 128-bit sum so the quotient stays exact where it can. */
    return ((double)h->sum_hi * 18446744073709551616.0 +
            (double)h->sum_lo) / (double)h->count;
}

uint64_t latency_hist_min_ns(const struct latency_hist *h)
{
    return h->count ? h->min : 0;
}

uint64_t latency_hist_max_ns(const struct latency_hist *h)
{
    return h->count ? h->max : 0;
}

uint64_t latency_hist_percentile_ns(const struct latency_hist *h, double p)
{
    uint64_t rank, seen = 0;
    double r;

    if (h->count == 0) {
        return 0;
    }
    if (!(p > 0.0)) {                   /* also NaN */
        return h->min;
    }
    if (p >= 100.0) {
        return h->max;
    }
    /* nearest rank: ceil(p/100 * count), at least 1; the tiny relative
     * nudge keeps an exact product like 99.9% of 1000 (computed as
     * 999.0000000000001) from moving up a rank */
    r = p / 100.0 * (double)h->count;
    r = ceil(r - r * 1e-12);
    rank = r < 1.0 ? 1 : (r >= (double)h->count ? h->count : (uint64_t)r);

    for (unsigned i = 0; i < LATENCY_HIST_NBUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            uint64_t lo, width, v;

            bucket_range(i, &lo, &width);
            v = lo + (width - 1) / 2;
            if (v < h->min) {
                v = h->min;
            }
            if (v > h->max) {
                v = h->max;
            }
            return v;
        }
    }
    return h->max;      /* not reached: the buckets sum to count */
}
