/*
 * dist.c - fio-compatible random item distributions (see dist.h).
 *
 * Zipf is sampled exactly with rejection-inversion (Hörmann & Derflinger,
 * "Rejection-inversion to generate variates from monotone discrete
 * distributions", 1996): O(1) setup and memory, a handful of transcendental
 * calls per sample, valid for every exponent > 0 including 1.  Pareto and
 * normal follow fio's own generators (see dist.h for the formulas).
 */
#include "dist.h"
#include "dist_spec.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NORMAL_DRAWS 12

/* A bad draw sequence can never loop forever: the acceptance probability
 * of rejection-inversion is far above 1/2, so 64 straight rejections
 * (p < 2^-64) only happen if the numerics broke; then take the last k. */
#define ZIPF_MAX_TRIES 64

struct dist {
    enum dist_kind kind;
    uint64_t n;
    /* scatter: item = ((raw - peak) * mult + base) mod n */
    uint64_t peak;
    uint64_t mult;
    uint64_t base;
    /* zipf (rejection-inversion constants) */
    double s;          /* exponent theta */
    double h_x1;       /* H(1.5) - h(1) */
    double h_n;        /* H(n + 0.5) */
    double s_thr;      /* accept k without the test if k - x <= s_thr */
    /* pareto */
    double pareto_pow;
    /* normal */
    uint64_t jitter;   /* width of fio's uniform jitter, 0 = none */
    /* hotcold: items [0, hot) get the share of hits */
    uint64_t hot;
    double hot_share;  /* 0..1 */
};

/* ---- scatter ---------------------------------------------------------- */

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;

        a = b;
        b = t;
    }
    return a;
}

/* (a * b) mod n for a, b < n without overflow. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t n)
{
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)a * b) % n);
#else
    uint64_t r = 0;

    /* Double-and-add; n <= 2^53 keeps every sum below 2^64. */
    while (b != 0) {
        if (b & 1) {
            r = (r + a) % n;
        }
        a = (a + a) % n;
        b >>= 1;
    }
    return r;
#endif
}

/* splitmix64's finalizer: a fixed, well-mixed function of x. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t dist_scatter(const struct dist *d, uint64_t raw)
{
    uint64_t n = d->n;
    uint64_t off, item;

    if (d->kind == DIST_RANDOM || d->kind == DIST_HOTCOLD || n <= 1) {
        return n <= 1 ? 0 : raw % n;
    }
    raw %= n;
    off = raw >= d->peak ? raw - d->peak : raw + (n - d->peak);
    /* below 2^32 items the product fits in 64 bits: skip the slow
     * 128-bit remainder */
    item = n <= UINT32_MAX ? off * d->mult % n : mulmod(off, d->mult, n);
    item += d->base;                    /* both < n: no overflow */
    return item >= n ? item - n : item;
}

/* ---- zipf: rejection-inversion ---------------------------------------- */

/* log1p(x) / x, continuous at 0. */
static double log1p_over_x(double x)
{
    if (fabs(x) > 1e-8) {
        return log1p(x) / x;
    }
    return 1.0 - x * (0.5 - x / 3.0);
}

/* expm1(x) / x, continuous at 0. */
static double expm1_over_x(double x)
{
    if (fabs(x) > 1e-8) {
        return expm1(x) / x;
    }
    return 1.0 + x * (0.5 + x / 6.0);
}

/* Hat density h(x) = x^-s. */
static double zipf_h(const struct dist *d, double x)
{
    return exp(-d->s * log(x));
}

/* H(x) = integral of h = (x^(1-s) - 1) / (1-s), or log(x) when s = 1. */
static double zipf_H(const struct dist *d, double x)
{
    double lx = log(x);

    return expm1_over_x((1.0 - d->s) * lx) * lx;
}

/* Inverse of H. */
static double zipf_H_inv(const struct dist *d, double y)
{
    double t = (1.0 - d->s) * y;

    if (t <= -1.0) {
        /* Only reachable through rounding at the far tail (s > 1). */
        return HUGE_VAL;
    }
    return exp(log1p_over_x(t) * y);
}

static void zipf_setup(struct dist *d, double theta)
{
    double n = (double)d->n;

    d->s = theta;
    d->h_x1 = zipf_H(d, 1.5) - 1.0;
    d->h_n = zipf_H(d, n + 0.5);
    d->s_thr = 2.0 - zipf_H_inv(d, zipf_H(d, 2.5) - zipf_h(d, 2.0));
}

/* Rank in [1, n]. */
static uint64_t zipf_rank(const struct dist *d, struct rng *r)
{
    double n = (double)d->n;
    double k = 1.0;

    for (int tries = 0; tries < ZIPF_MAX_TRIES; tries++) {
        double u = d->h_n + rng_unit(r) * (d->h_x1 - d->h_n);
        double x = zipf_H_inv(d, u);

        k = floor(x + 0.5);
        if (!(k >= 1.0)) {      /* also catches NaN */
            k = 1.0;
        } else if (k > n) {
            k = n;
        }
        if (k - x <= d->s_thr || u >= zipf_H(d, k + 0.5) - zipf_h(d, k)) {
            break;
        }
    }
    return (uint64_t)k;
}

/* ---- samplers --------------------------------------------------------- */

uint64_t dist_next_raw(const struct dist *d, struct rng *r)
{
    uint64_t n = d->n;

    switch (d->kind) {
    case DIST_ZIPF:
        return zipf_rank(d, r) - 1;
    case DIST_PARETO: {
        double y = pow(rng_unit(r), d->pareto_pow) * (double)n;
        uint64_t v = y < (double)n ? (uint64_t)y : n - 1;

        return v < n ? v : n - 1;
    }
    case DIST_NORMAL: {
        uint64_t sum = 0;
        uint64_t v;

        for (int i = 0; i < NORMAL_DRAWS; i++) {
            sum += rng_below(r, n + 1);
        }
        v = (sum + NORMAL_DRAWS - 1) / NORMAL_DRAWS;   /* in [0, n] */
        if (d->jitter != 0) {
            int64_t j = (int64_t)rng_below(r, d->jitter) -
                        (int64_t)(d->jitter / 2);

            /* fio halves the jitter until the result is in range. */
            while (j != 0 && ((j < 0 && (uint64_t)-j > v) ||
                              (j > 0 && (uint64_t)j >= n - v))) {
                j /= 2;
            }
            v = (uint64_t)((int64_t)v + j);
        }
        return v < n ? v : n - 1;
    }
    case DIST_HOTCOLD:
        if (d->hot == n || rng_unit(r) < d->hot_share) {
            return rng_below(r, d->hot);
        }
        return d->hot + rng_below(r, n - d->hot);
    case DIST_RANDOM:
    default:
        return rng_below(r, n);
    }
}

uint64_t dist_next(const struct dist *d, struct rng *r)
{
    if (d->kind == DIST_RANDOM) {
        return rng_below(r, d->n);
    }
    return dist_scatter(d, dist_next_raw(d, r));
}

uint64_t dist_hot_items(const struct dist *d)
{
    return d->kind == DIST_HOTCOLD ? d->hot : 0;
}

/* Each kind's shape over nitems; whether its hot items are then scattered (zipf, pareto,
 * normal: not hotcold, whose parts are contiguous, nor random). */
static bool setup_shape(struct dist *d, const struct dist_spec *spec, uint64_t nitems)
{
    switch (spec->kind) {
    case DIST_ZIPF:
        zipf_setup(d, spec->param);
        d->peak = 0;
        break;
    case DIST_PARETO:
        d->pareto_pow = log(spec->param) / log(1.0 - spec->param);
        /* u^p piles up at 0 for p > 1 and at 1 for p < 1. */
        d->peak = d->pareto_pow >= 1.0 ? 0 : nitems - 1;
        break;
    case DIST_NORMAL: {
        double w = ceil((double)nitems * spec->param / 100.0);

        d->jitter = w < (double)(nitems / 2) ? (uint64_t)w : nitems / 2;
        d->peak = nitems / 2;
        break;
    }
    case DIST_HOTCOLD: {
        double hot = floor((double)nitems * spec->param / 100.0 + 0.5);

        d->hot = hot < 1.0 ? 1 : (uint64_t)hot;
        if (nitems > 1 && d->hot >= nitems) {
            d->hot = nitems - 1;
        }
        d->hot_share = spec->share / 100.0;
        return false;
    }
    case DIST_RANDOM:
    default:
        return false;
    }
    return true;
}

/* Hot ranks scattered over the range as fio does, from the center when one is given. */
static void scatter_ranks(struct dist *d, const struct dist_spec *spec, uint64_t nitems)
{
    if (nitems > 1) {
        /* Golden-ratio step: consecutive ranks land far apart and the
         * first few thousand spread evenly over the range. */
        uint64_t m = (uint64_t)((double)nitems * 0.6180339887498949);

        if (m == 0) {
            m = 1;
        }
        while (gcd_u64(m, nitems) != 1) {
            m++;        /* stops at nitems - 1 at the latest */
        }
        d->mult = m;
        if (spec->center >= 0.0) {
            double b = floor(spec->center * (double)nitems);

            d->base = b < (double)nitems ? (uint64_t)b : 0;
        } else if (spec->kind == DIST_NORMAL) {
            d->base = nitems / 2;       /* fio's default center 0.5 */
        } else {
            d->base = mix64(nitems) % nitems;
        }
    }
}

uint64_t dist_nitems(const struct dist *d)
{
    return d->n;
}

struct dist *dist_create(const struct dist_spec *spec, uint64_t nitems,
                         char *err, size_t errlen)
{
    struct dist *d;
    char name[96];

    if (spec == NULL) {
        dist_set_err(err, errlen, "no distribution given");
        return NULL;
    }
    dist_name(spec, name, sizeof(name));
    if (dist_check_spec(spec, "", name, err, errlen) != 0) {
        return NULL;
    }
    if (nitems == 0) {
        dist_bad_spec(err, errlen, "", name, "no items to choose from");
        return NULL;
    }
    if (spec->kind != DIST_RANDOM && nitems > DIST_MAX_ITEMS) {
        dist_bad_spec(err, errlen, "", name, "too many items (%llu > 2^53)",
                      (unsigned long long)nitems);
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        dist_bad_spec(err, errlen, "", name, "out of memory");
        return NULL;
    }
    d->kind = spec->kind;
    d->n = nitems;
    if (setup_shape(d, spec, nitems)) {
        scatter_ranks(d, spec, nitems);
    }
    return d;
}

void dist_destroy(struct dist *d)
{
    free(d);
}
