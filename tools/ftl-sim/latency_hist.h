/*
 * latency_hist.h - fixed-size log-linear histogram of latencies in ns.
 *
 * HDR-style buckets: values below 2^LATENCY_HIST_SUB_BITS are counted
 * exactly; above that, every power of two [2^e, 2^(e+1)) is split into
 * 2^LATENCY_HIST_SUB_BITS equal buckets, so a bucket is at most 1/128 of
 * its values wide (percentiles are reported at the bucket middle: within
 * 0.4% of the exact value).  The whole uint64_t range is covered, adding
 * is O(1), and the struct has a fixed size (about 58 KiB), so it can be
 * embedded by value.  count, mean, min and max are exact.
 */
#ifndef FTL_SIM_LATENCY_HIST_H
#define FTL_SIM_LATENCY_HIST_H

#include <stdint.h>

#define LATENCY_HIST_SUB_BITS 7
#define LATENCY_HIST_SUB (1u << LATENCY_HIST_SUB_BITS)
/* exact range [0, 2^SUB_BITS) plus SUB buckets for each exponent
 * SUB_BITS..63 */
#define LATENCY_HIST_NBUCKETS ((64 - LATENCY_HIST_SUB_BITS + 1) * \
                               LATENCY_HIST_SUB)

struct latency_hist {
    uint64_t count;
    uint64_t sum_lo, sum_hi;    /* 128-bit exact sum */
    uint64_t min, max;
    uint64_t buckets[LATENCY_HIST_NBUCKETS];
};

/* Make h empty (same as latency_hist_reset). */
void latency_hist_init(struct latency_hist *h);

/* Forget every sample. */
void latency_hist_reset(struct latency_hist *h);

/* Record one latency. */
void latency_hist_add(struct latency_hist *h, uint64_t ns);

/* Add every sample of src to dst (e.g. per-job histograms into a
 * group total). */
void latency_hist_merge(struct latency_hist *dst,
                        const struct latency_hist *src);

/* Number of samples. */
uint64_t latency_hist_count(const struct latency_hist *h);

/* Exact mean in ns; 0 when empty. */
double latency_hist_mean_ns(const struct latency_hist *h);

/* Exact smallest / largest sample; 0 when empty. */
uint64_t latency_hist_min_ns(const struct latency_hist *h);
uint64_t latency_hist_max_ns(const struct latency_hist *h);

/* The p-th percentile (p in [0, 100], clamped; NaN counts as 0) by the
 * nearest-rank rule: the smallest sample with at least p% of the samples
 * at or below it, reported at its bucket's middle and clamped to
 * [min, max].  p = 0 gives min and p = 100 max, exactly.  0 when empty. */
uint64_t latency_hist_percentile_ns(const struct latency_hist *h, double p);

#endif
