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

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fio's defaults when the value is omitted. */
#define ZIPF_DEFAULT_THETA 1.1
#define PARETO_DEFAULT_H 0.2
#define NORMAL_DEFAULT_DEV 0.0
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

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Writes "PFX'TEXT': why" and returns -1.  At most 48 characters of TEXT
 * are quoted so the explanation always fits in the caller's buffer. */
static int bad_spec(char *err, size_t errlen, const char *pfx,
                    const char *text, const char *fmt, ...)
{
    char why[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    set_err(err, errlen, "%s'%.48s%s': %s", pfx, text,
            strlen(text) > 48 ? "..." : "", why);
    return -1;
}

/* ---- parsing ---------------------------------------------------------- */

/* Parse one whole field [s, s+len) as a finite double. */
static int parse_number(const char *s, size_t len, double *out)
{
    char buf[64];
    char *end;
    double v;

    if (len == 0 || len >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    /* strtod would skip leading blanks and accept "inf"/"nan": refuse. */
    if (!(buf[0] == '-' || buf[0] == '+' || buf[0] == '.' ||
          (buf[0] >= '0' && buf[0] <= '9'))) {
        return -1;
    }
    errno = 0;
    v = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v)) {
        return -1;
    }
    *out = v;
    return 0;
}

/* fio's ranges for the value, and [0, 1] (or "not given") for CENTER. */
static int check_spec(const struct dist_spec *spec, const char *pfx,
                      const char *text, char *err, size_t errlen)
{
    double v = spec->param;

    switch (spec->kind) {
    case DIST_RANDOM:
        return 0;
    case DIST_ZIPF:
        if (!(v > 0.0) || !isfinite(v)) {
            return bad_spec(err, errlen, pfx, text,
                            "zipf theta must be > 0 (got %g)", v);
        }
        break;
    case DIST_PARETO:
        if (!(v > 0.0 && v < 1.0)) {
            return bad_spec(err, errlen, pfx, text,
                            "pareto H must be in (0, 1) (got %g)", v);
        }
        break;
    case DIST_NORMAL:
        if (!(v >= 0.0 && v < 100.0)) {
            return bad_spec(err, errlen, pfx, text,
                            "normal deviation must be in [0, 100) (got %g)",
                            v);
        }
        break;
    case DIST_HOTCOLD:
        if (!(v > 0.0 && v < 100.0)) {
            return bad_spec(err, errlen, pfx, text,
                            "hotcold H (percent of the items) must be in "
                            "(0, 100) (got %g)", v);
        }
        if (!(spec->share >= 0.0 && spec->share <= 100.0)) {
            return bad_spec(err, errlen, pfx, text,
                            "hotcold W (percent of the I/Os) must be in "
                            "[0, 100] (got %g)", spec->share);
        }
        return 0;
    default:
        return bad_spec(err, errlen, pfx, text, "unknown distribution kind");
    }
    if (isnan(spec->center) || spec->center > 1.0) {
        return bad_spec(err, errlen, pfx, text,
                        "center must be in [0, 1] (got %g)", spec->center);
    }
    return 0;
}

/* hotcold:H:W, both values required. */
static int parse_hotcold(const char *text, const char *colon,
                         struct dist_spec *out, char *err, size_t errlen)
{
    const char *pfx = "--dist: ";
    struct dist_spec spec = { .kind = DIST_HOTCOLD, .center = -1.0 };
    const char *second = colon ? strchr(colon + 1, ':') : NULL;

    if (second == NULL) {
        return bad_spec(err, errlen, pfx, text, "want hotcold:H:W (H percent "
                        "of the region gets W percent of the I/Os)");
    }
    if (strchr(second + 1, ':') != NULL) {
        return bad_spec(err, errlen, pfx, text,
                        "too many values (want hotcold:H:W)");
    }
    if (parse_number(colon + 1, (size_t)(second - colon - 1),
                     &spec.param) != 0) {
        return bad_spec(err, errlen, pfx, text, "hotcold H is not a number");
    }
    if (parse_number(second + 1, strlen(second + 1), &spec.share) != 0) {
        return bad_spec(err, errlen, pfx, text, "hotcold W is not a number");
    }
    if (check_spec(&spec, pfx, text, err, errlen) != 0) {
        return -1;
    }
    *out = spec;
    return 0;
}

int dist_parse(const char *text, struct dist_spec *out, char *err,
               size_t errlen)
{
    const char *pfx = "--dist: ";   /* ftl-sim's option for this text */
    struct dist_spec spec = { .kind = DIST_RANDOM, .param = 0.0, .center = -1.0 };
    const char *colon, *value, *colon2;
    size_t name_len;
    const char *what;

    if (text == NULL || text[0] == '\0') {
        set_err(err, errlen, "%sempty distribution (want random, "
                "zipf:THETA, pareto:H, normal[:DEV] or hotcold:H:W)", pfx);
        return -1;
    }
    colon = strchr(text, ':');
    name_len = colon ? (size_t)(colon - text) : strlen(text);

    if (name_len == 6 && strncmp(text, "random", 6) == 0) {
        if (colon) {
            return bad_spec(err, errlen, pfx, text, "random takes no value");
        }
        *out = spec;
        return 0;
    } else if (name_len == 4 && strncmp(text, "zipf", 4) == 0) {
        spec.kind = DIST_ZIPF;
        spec.param = ZIPF_DEFAULT_THETA;
        what = "zipf theta";
    } else if (name_len == 6 && strncmp(text, "pareto", 6) == 0) {
        spec.kind = DIST_PARETO;
        spec.param = PARETO_DEFAULT_H;
        what = "pareto H";
    } else if (name_len == 6 && strncmp(text, "normal", 6) == 0) {
        spec.kind = DIST_NORMAL;
        spec.param = NORMAL_DEFAULT_DEV;
        what = "normal deviation";
    } else if (name_len == 7 && strncmp(text, "hotcold", 7) == 0) {
        return parse_hotcold(text, colon, out, err, errlen);
    } else if ((name_len == 5 && strncmp(text, "zoned", 5) == 0) ||
               (name_len == 9 && strncmp(text, "zoned_abs", 9) == 0)) {
        return bad_spec(err, errlen, pfx, text,
                        "zoned distributions are not supported");
    } else {
        return bad_spec(err, errlen, pfx, text, "unknown distribution "
                        "(want random, zipf, pareto, normal or hotcold)");
    }

    if (colon) {
        value = colon + 1;
        colon2 = strchr(value, ':');
        if (parse_number(value, colon2 ? (size_t)(colon2 - value)
                                       : strlen(value), &spec.param) != 0) {
            return bad_spec(err, errlen, pfx, text, "%s is not a number",
                            what);
        }
        if (colon2) {
            if (strchr(colon2 + 1, ':') != NULL) {
                return bad_spec(err, errlen, pfx, text,
                                "too many values (at most VALUE:CENTER)");
            }
            if (parse_number(colon2 + 1, strlen(colon2 + 1),
                             &spec.center) != 0) {
                return bad_spec(err, errlen, pfx, text,
                                "center is not a number");
            }
            if (!(spec.center >= 0.0)) {
                return bad_spec(err, errlen, pfx, text,
                                "center must be in [0, 1] (got %g)",
                                spec.center);
            }
        }
    }
    if (check_spec(&spec, pfx, text, err, errlen) != 0) {
        return -1;
    }
    *out = spec;
    return 0;
}

const char *dist_name(const struct dist_spec *spec, char *buf, size_t len)
{
    const char *name;

    if (buf == NULL || len == 0) {
        return "";
    }
    switch (spec->kind) {
    case DIST_RANDOM:
        snprintf(buf, len, "random");
        return buf;
    case DIST_ZIPF:
        name = "zipf";
        break;
    case DIST_PARETO:
        name = "pareto";
        break;
    case DIST_NORMAL:
        name = "normal";
        break;
    case DIST_HOTCOLD:
        snprintf(buf, len, "hotcold:%.10g:%.10g", spec->param, spec->share);
        return buf;
    default:
        snprintf(buf, len, "?");
        return buf;
    }
    /* %.10g: short, and round-trips every value a human types */
    if (spec->kind == DIST_NORMAL && spec->param == 0.0 && spec->center < 0)
        snprintf(buf, len, "%s", name);
    else if (spec->center < 0)
        snprintf(buf, len, "%s:%.10g", name, spec->param);
    else
        snprintf(buf, len, "%s:%.10g:%.10g", name, spec->param,
                 spec->center);
    return buf;
}

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
        set_err(err, errlen, "no distribution given");
        return NULL;
    }
    dist_name(spec, name, sizeof(name));
    if (check_spec(spec, "", name, err, errlen) != 0) {
        return NULL;
    }
    if (nitems == 0) {
        bad_spec(err, errlen, "", name, "no items to choose from");
        return NULL;
    }
    if (spec->kind != DIST_RANDOM && nitems > DIST_MAX_ITEMS) {
        bad_spec(err, errlen, "", name, "too many items (%llu > 2^53)",
                 (unsigned long long)nitems);
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        bad_spec(err, errlen, "", name, "out of memory");
        return NULL;
    }
    d->kind = spec->kind;
    d->n = nitems;

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
        return d;
    }
    case DIST_RANDOM:
    default:
        return d;
    }

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
    return d;
}

void dist_destroy(struct dist *d)
{
    free(d);
}
