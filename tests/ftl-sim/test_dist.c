/* Unit tests for tools/ftl-sim/dist.c: parsing, bijective scatter, and
 * statistical shape of each distribution (fixed seeds, bounds of several
 * standard deviations so the tests are deterministic and meaningful). */
#include <stdlib.h>

#include "check.h"
#include "dist.h"

static struct dist *make(const char *text, uint64_t n)
{
    struct dist_spec spec;
    char err[256] = "";
    struct dist *d;

    if (dist_parse(text, &spec, err, sizeof(err)) != 0) {
        fprintf(stderr, "parse '%s': %s\n", text, err);
        return NULL;
    }
    d = dist_create(&spec, n, err, sizeof(err));
    if (d == NULL) {
        fprintf(stderr, "create '%s': %s\n", text, err);
    }
    return d;
}

static void test_parse_ok(void)
{
    struct dist_spec s;
    char err[256];
    char name[64];

    CHECK(dist_parse("random", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_RANDOM);

    /* fio's defaults when the value is omitted */
    CHECK(dist_parse("zipf", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_ZIPF && s.param == 1.1 && s.center < 0);
    CHECK(dist_parse("pareto", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_PARETO && s.param == 0.2);
    CHECK(dist_parse("normal", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_NORMAL && s.param == 0.0 && s.center < 0);
    CHECK_CONTAINS(dist_name(&s, name, sizeof(name)), "normal");
    CHECK(strcmp(name, "normal") == 0);

    CHECK(dist_parse("zipf:0.8", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_ZIPF && s.param == 0.8);
    CHECK(strcmp(dist_name(&s, name, sizeof(name)), "zipf:0.8") == 0);
    CHECK(dist_parse("zipf:1.2:0.25", &s, err, sizeof(err)) == 0);
    CHECK(s.param == 1.2 && s.center == 0.25);
    CHECK(strcmp(dist_name(&s, name, sizeof(name)), "zipf:1.2:0.25") == 0);
    CHECK(dist_parse("zipf:1", &s, err, sizeof(err)) == 0);
    CHECK(dist_parse("pareto:0.5", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_PARETO && s.param == 0.5);
    CHECK(strcmp(dist_name(&s, name, sizeof(name)), "pareto:0.5") == 0);
    CHECK(dist_parse("normal:10", &s, err, sizeof(err)) == 0);
    CHECK(s.param == 10.0 && s.center < 0);
    CHECK(dist_parse("normal:0:0", &s, err, sizeof(err)) == 0);
    CHECK(s.param == 0.0 && s.center == 0.0);
    CHECK(strcmp(dist_name(&s, name, sizeof(name)), "normal:0:0") == 0);
    CHECK(dist_parse("normal:99.5:1", &s, err, sizeof(err)) == 0);

    /* dist_name parses back to the same spec */
    {
        const char *texts[] = { "random", "zipf:1.2", "pareto:0.3:0.75",
                                "normal", "normal:12.5", "zipf:0.99:1" };

        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
            struct dist_spec a, b;

            CHECK(dist_parse(texts[i], &a, err, sizeof(err)) == 0);
            dist_name(&a, name, sizeof(name));
            CHECK(dist_parse(name, &b, err, sizeof(err)) == 0);
            CHECK(a.kind == b.kind && a.param == b.param &&
                  a.center == b.center);
            CHECK(strcmp(name, texts[i]) == 0);
        }
    }
}

static void expect_bad(const char *text, int line)
{
    struct dist_spec s = { DIST_ZIPF, 42.0, 0.5, 0.0 };
    char err[256] = "";
    int rc = dist_parse(text, &s, err, sizeof(err));

    if (!check_record(rc == -1, __FILE__, line, "dist_parse rejects")) {
        fprintf(stderr, "    accepted '%s'\n", text);
    }
    /* one line, names the text, output untouched */
    check_record(strchr(err, '\n') == NULL &&
                 strncmp(err, "--dist: ", 8) == 0, __FILE__, line,
                 "one-line message naming the option");
    if (text[0] != '\0' &&
        !check_record(strstr(err, text) != NULL, __FILE__, line,
                      "message names the text"))
        fprintf(stderr, "    '%s' -> '%s'\n", text, err);
    check_record(s.kind == DIST_ZIPF && s.param == 42.0, __FILE__, line,
                 "output untouched on error");
}
#define EXPECT_BAD(t) expect_bad((t), __LINE__)

static void test_parse_bad(void)
{
    char err[256];
    struct dist_spec s;

    EXPECT_BAD("");
    EXPECT_BAD("uniform");
    EXPECT_BAD("Zipf:1.2");
    EXPECT_BAD("zipf:");
    EXPECT_BAD("zipf:x");
    EXPECT_BAD("zipf:1.2x");
    EXPECT_BAD("zipf: 1.2");
    EXPECT_BAD("zipf:0");
    EXPECT_BAD("zipf:-1");
    EXPECT_BAD("zipf:nan");
    EXPECT_BAD("zipf:inf");
    EXPECT_BAD("zipf:1e999");
    EXPECT_BAD("zipf:1.2:");
    EXPECT_BAD("zipf:1.2:1.5");
    EXPECT_BAD("zipf:1.2:-0.1");
    EXPECT_BAD("zipf:1.2:0.5:1");
    EXPECT_BAD("pareto:0");
    EXPECT_BAD("pareto:1");
    EXPECT_BAD("pareto:1.5");
    EXPECT_BAD("pareto:-0.2");
    EXPECT_BAD("normal:100");   /* fio: 0 <= dev < 100 */
    EXPECT_BAD("normal:-1");
    EXPECT_BAD("normal:abc");
    EXPECT_BAD("random:1");
    EXPECT_BAD("zoned:60/10:40/90");
    EXPECT_BAD("zoned_abs:60/20G:40/100G");
    EXPECT_BAD(":1.2");
    EXPECT_BAD("zipf1.2");

    CHECK(dist_parse(NULL, &s, err, sizeof(err)) == -1);
    /* a NULL or empty error buffer is allowed */
    CHECK(dist_parse("bogus", &s, NULL, 0) == -1);
    CHECK(dist_parse("bogus", &s, err, 0) == -1);
    /* a tiny buffer is truncated, not overflowed */
    {
        char small[8];

        memset(small, 'x', sizeof(small));
        CHECK(dist_parse("zipf:bogus", &s, small, 5) == -1);
        CHECK(small[4] == '\0' && small[5] == 'x');
    }
}

static void test_create_errors(void)
{
    struct dist_spec s = { DIST_ZIPF, 1.2, -1.0, 0.0 };
    char err[256] = "";

    CHECK(dist_create(&s, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "no items");
    s.param = 0.0;
    CHECK(dist_create(&s, 10, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "theta");
    s.kind = DIST_PARETO;
    s.param = 1.0;
    CHECK(dist_create(&s, 10, err, sizeof(err)) == NULL);
    s.kind = DIST_NORMAL;
    s.param = 100.0;
    CHECK(dist_create(&s, 10, err, sizeof(err)) == NULL);
    s.param = 1.0;
    s.center = 2.0;
    CHECK(dist_create(&s, 10, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "center");
    s.kind = (enum dist_kind)99;
    CHECK(dist_create(&s, 10, err, sizeof(err)) == NULL);
    s.kind = DIST_ZIPF;
    s.param = 1.2;
    s.center = -1.0;
    CHECK(dist_create(&s, DIST_MAX_ITEMS + 1, err, sizeof(err)) == NULL);
    CHECK(dist_create(NULL, 10, err, sizeof(err)) == NULL);
    dist_destroy(NULL);
}

/* Every kind maps raw values to items one-to-one, for awkward sizes too. */
static void test_scatter_bijective(void)
{
    const char *kinds[] = { "random", "zipf:1.2", "zipf:0.8:0.25",
                            "pareto:0.2", "pareto:0.8", "normal",
                            "normal:10:1" };
    const uint64_t sizes[] = { 1, 2, 3, 4, 10, 12, 97, 1000, 1024, 30030,
                               (1u << 20) + 1 };

    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            uint64_t n = sizes[i];
            struct dist *d = make(kinds[k], n);
            unsigned char *seen = calloc(n, 1);
            int ok = d != NULL && seen != NULL;

            for (uint64_t raw = 0; ok && raw < n; raw++) {
                uint64_t item = dist_scatter(d, raw);

                if (item >= n || seen[item]) {
                    ok = 0;
                } else {
                    seen[item] = 1;
                }
            }
            if (!check_record(ok, __FILE__, __LINE__, "scatter bijective"))
                fprintf(stderr, "    %s n=%llu\n", kinds[k],
                        (unsigned long long)n);
            CHECK(dist_nitems(d) == n);
            free(seen);
            dist_destroy(d);
        }
    }
    /* hot ranks are not the lowest offsets: the top 10 ranks of a 1M-item
     * zipf spread over the range */
    {
        struct dist *d = make("zipf:1.2", 1u << 20);
        uint64_t lo = UINT64_MAX, hi = 0;

        for (uint64_t raw = 0; raw < 10; raw++) {
            uint64_t it = dist_scatter(d, raw);

            lo = it < lo ? it : lo;
            hi = it > hi ? it : hi;
        }
        CHECK(hi - lo > (1u << 20) / 2);
        dist_destroy(d);
    }
}

static void test_uniform(void)
{
    enum { N = 100, SAMPLES = 1000000 };
    static uint64_t count[N];
    struct dist *d = make("random", N);
    struct rng r;
    double chi2 = 0.0, e = (double)SAMPLES / N;
    int in_range = 1;

    rng_seed(&r, 1);
    for (int i = 0; i < SAMPLES; i++) {
        uint64_t v = dist_next(d, &r);

        if (v >= N) {
            in_range = 0;
        } else {
            count[v]++;
        }
    }
    CHECK(in_range);
    for (int i = 0; i < N; i++) {
        chi2 += (count[i] - e) * (count[i] - e) / e;
    }
    /* 99 degrees of freedom: mean 99, sd 14 */
    CHECK(chi2 < 99 + 5 * 14);
    CHECK(chi2 > 99 - 4 * 14);
    dist_destroy(d);

    /* the full 64-bit range works for random */
    {
        struct dist_spec s = { DIST_RANDOM, 0.0, -1.0, 0.0 };
        struct dist *big = dist_create(&s, UINT64_MAX, NULL, 0);
        int high = 0;

        CHECK(big != NULL);
        for (int i = 0; big && i < 1000; i++) {
            uint64_t v = dist_next(big, &r);

            high += v >> 63;
            CHECK(v < UINT64_MAX || v == UINT64_MAX - 1);
        }
        CHECK(high > 400 && high < 600);
        dist_destroy(big);
    }
}

/* Exact Zipf probabilities on a small support, several exponents. */
static void test_zipf_exact_small(void)
{
    const double thetas[] = { 0.01, 0.5, 0.8, 1.0, 1.2, 3.0, 50.0 };
    enum { N = 7, SAMPLES = 700000 };

    for (size_t t = 0; t < sizeof(thetas) / sizeof(thetas[0]); t++) {
        struct dist_spec s = { DIST_ZIPF, thetas[t], -1.0, 0.0 };
        struct dist *d = dist_create(&s, N, NULL, 0);
        uint64_t count[N] = { 0 };
        double z = 0.0;
        struct rng r;
        int ok = 1;

        rng_seed(&r, 7 + t);
        for (int i = 0; i < SAMPLES; i++) {
            uint64_t v = dist_next_raw(d, &r);

            if (v >= N) {
                ok = 0;
            } else {
                count[v]++;
            }
        }
        CHECK(ok);
        for (int k = 1; k <= N; k++) {
            z += pow(k, -thetas[t]);
        }
        for (int k = 1; k <= N; k++) {
            double p = pow(k, -thetas[t]) / z;
            double sd = sqrt(SAMPLES * p * (1 - p));
            double diff = fabs((double)count[k - 1] - SAMPLES * p);

            if (!check_record(diff <= 5 * sd + 1, __FILE__, __LINE__,
                              "zipf rank frequency matches k^-theta"))
                fprintf(stderr, "    theta %g rank %d: %llu vs %.0f\n",
                        thetas[t], k, (unsigned long long)count[k - 1],
                        SAMPLES * p);
        }
        dist_destroy(d);
    }
}

/* Top ranks of a large zipf follow rank^-theta; top 1% share grows with
 * theta and matches the exact value. */
static void test_zipf_large(void)
{
    const double thetas[] = { 0.8, 1.2 };
    enum { N = 1 << 20, SAMPLES = 2000000, TOP = N / 100 };
    double share[2];

    for (int t = 0; t < 2; t++) {
        struct dist_spec s = { DIST_ZIPF, thetas[t], -1.0, 0.0 };
        struct dist *d = dist_create(&s, N, NULL, 0);
        unsigned char *hot = calloc(N, 1);
        uint64_t c1 = 0, c2 = 0, c10 = 0, in_top = 0;
        double zn = 0.0, ztop = 0.0;
        struct rng r;

        for (uint64_t raw = 0; raw < TOP; raw++) {
            hot[dist_scatter(d, raw)] = 1;
        }
        rng_seed(&r, 1234 + t);
        for (int i = 0; i < SAMPLES; i++) {
            uint64_t item = dist_next(d, &r);

            c1 += item == dist_scatter(d, 0);
            c2 += item == dist_scatter(d, 1);
            c10 += item == dist_scatter(d, 9);
            in_top += hot[item];
        }
        CHECK_NEAR((double)c1 / c10, pow(10, thetas[t]),
                   0.10 * pow(10, thetas[t]));
        CHECK_NEAR((double)c1 / c2, pow(2, thetas[t]),
                   0.05 * pow(2, thetas[t]));
        for (uint64_t k = N; k >= 1; k--) {
            double p = pow((double)k, -thetas[t]);

            zn += p;
            if (k <= TOP) {
                ztop += p;
            }
        }
        share[t] = (double)in_top / SAMPLES;
        CHECK_NEAR(share[t], ztop / zn, 0.01);
        free(hot);
        dist_destroy(d);
    }
    CHECK(share[1] > share[0] + 0.2);
}

/* Huge ranges: samples stay in range (ranks in doubles, 128-bit scatter). */
static void test_zipf_extremes(void)
{
    const uint64_t sizes[] = { 2, 1u << 26, DIST_MAX_ITEMS };
    const char *texts[] = { "zipf:0.8", "zipf:1.2", "zipf:0.0001",
                            "zipf:1000", "pareto:0.001", "pareto:0.999",
                            "normal:99" };
    struct rng r;

    rng_seed(&r, 99);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (size_t j = 0; j < sizeof(texts) / sizeof(texts[0]); j++) {
            struct dist *d = make(texts[j], sizes[i]);
            int ok = d != NULL;

            for (int k = 0; ok && k < 20000; k++) {
                ok = dist_next(d, &r) < sizes[i] &&
                     dist_next_raw(d, &r) < sizes[i];
            }
            if (!check_record(ok, __FILE__, __LINE__, "in range"))
                fprintf(stderr, "    %s n=%llu\n", texts[j],
                        (unsigned long long)sizes[i]);
            dist_destroy(d);
        }
    }
    /* a single item: always 0 */
    {
        const char *all[] = { "random", "zipf:1.2", "pareto:0.2", "normal" };

        for (size_t j = 0; j < 4; j++) {
            struct dist *d = make(all[j], 1);
            int ok = d != NULL;

            for (int k = 0; ok && k < 1000; k++) {
                ok = dist_next(d, &r) == 0;
            }
            CHECK(ok);
            dist_destroy(d);
        }
    }
    /* theta 1000: essentially always the top rank */
    {
        struct dist *d = make("zipf:1000", 1000);
        int top = 0;

        for (int k = 0; k < 1000; k++) {
            top += dist_next_raw(d, &r) == 0;
        }
        CHECK(top == 1000);
        dist_destroy(d);
    }
}

/* fio's Pareto: the hottest min(H,1-H) of the items get max(H,1-H) of
 * the hits; 0.5 is uniform; smaller H below 0.5 is more skewed. */
static void test_pareto(void)
{
    enum { N = 100000, SAMPLES = 1000000 };
    const double hs[] = { 0.1, 0.2, 0.3, 0.5, 0.8 };
    double top1[5];
    struct rng r;

    rng_seed(&r, 5);
    for (int t = 0; t < 5; t++) {
        double h = hs[t];
        struct dist_spec s = { DIST_PARETO, h, -1.0, 0.0 };
        struct dist *d = dist_create(&s, N, NULL, 0);
        uint64_t hot_frac = (uint64_t)((h < 0.5 ? h : 1 - h) * N);
        uint64_t in_hot = 0, in_top1 = 0;

        for (int i = 0; i < SAMPLES; i++) {
            uint64_t raw = dist_next_raw(d, &r);
            /* hottest raw values: low for H < 0.5, high for H > 0.5 */
            uint64_t dist_from_peak = h <= 0.5 ? raw : N - 1 - raw;

            in_hot += dist_from_peak < hot_frac;
            in_top1 += dist_from_peak < N / 100;
        }
        CHECK_NEAR((double)in_hot / SAMPLES, h < 0.5 ? 1 - h : h, 0.005);
        top1[t] = (double)in_top1 / SAMPLES;
        dist_destroy(d);
    }
    CHECK(top1[0] > top1[1] && top1[1] > top1[2] && top1[2] > top1[3]);
    CHECK_NEAR(top1[3], 0.01, 0.001);               /* 0.5: uniform */
    /* exact: P(raw < m) = (m/n)^(1/p), p = log h / log(1-h) */
    CHECK_NEAR(top1[1], pow(0.01, log(0.8) / log(0.2)), 0.005);

    /* pareto:0.5 is flat over 10 bins of the range */
    {
        struct dist *d = make("pareto:0.5", 1000);
        uint64_t bins[10] = { 0 };
        double chi2 = 0;

        for (int i = 0; i < SAMPLES; i++) {
            bins[dist_next(d, &r) / 100]++;
        }
        for (int b = 0; b < 10; b++) {
            double e = SAMPLES / 10.0;

            chi2 += (bins[b] - e) * (bins[b] - e) / e;
        }
        CHECK(chi2 < 9 + 5 * 4.3);
        dist_destroy(d);
    }
}

static void sample_moments(struct dist *d, struct rng *r, int samples,
                           double *mean, double *sd)
{
    double sum = 0, sq = 0;

    for (int i = 0; i < samples; i++) {
        double v = (double)dist_next_raw(d, r);

        sum += v;
        sq += v * v;
    }
    *mean = sum / samples;
    *sd = sqrt(sq / samples - *mean * *mean);
}

/* fio's normal: Irwin-Hall bell with sd n/12, plus uniform jitter of
 * width DEV% (capped at 50%); the most probable item sits at the center. */
static void test_normal(void)
{
    enum { N = 100000, SAMPLES = 400000 };
    struct rng r;
    double mean, sd;
    struct dist *d;

    rng_seed(&r, 11);
    d = make("normal", N);
    sample_moments(d, &r, SAMPLES, &mean, &sd);
    CHECK_NEAR(mean, N / 2.0, N * 0.002);
    CHECK_NEAR(sd, N / 12.0, N / 12.0 * 0.02);
    /* default center 0.5: the bell's middle lands mid-range */
    CHECK_EQ_U64(dist_scatter(d, N / 2), N / 2);
    dist_destroy(d);

    d = make("normal:20", N);
    sample_moments(d, &r, SAMPLES, &mean, &sd);
    CHECK_NEAR(mean, N / 2.0, N * 0.002);
    CHECK_NEAR(sd, N * sqrt(1.0 / 144 + 0.04 / 12), N * 0.10 * 0.02);
    dist_destroy(d);

    /* jitter capped at half the range: sd n/6, a little less from fio's
     * halving at the edges */
    d = make("normal:60", N);
    sample_moments(d, &r, SAMPLES, &mean, &sd);
    CHECK_NEAR(mean, N / 2.0, N * 0.003);
    CHECK_NEAR(sd, N / 6.0, N / 6.0 * 0.04);
    dist_destroy(d);

    /* center 0.25: the hottest item is at a quarter of the range */
    {
        enum { M = 1000, S2 = 2000000 };
        uint64_t *count = calloc(M, sizeof(*count));
        uint64_t best = 0, raw_of_best = 0;

        d = make("normal:0:0.25", M);
        CHECK_EQ_U64(dist_scatter(d, M / 2), M / 4);
        for (int i = 0; i < S2; i++) {
            count[dist_next(d, &r)]++;
        }
        for (uint64_t i = 1; i < M; i++) {
            if (count[i] > count[best]) {
                best = i;
            }
        }
        for (uint64_t raw = 0; raw < M; raw++) {
            if (dist_scatter(d, raw) == best) {
                raw_of_best = raw;
            }
        }
        CHECK(raw_of_best > M / 2 - 15 && raw_of_best < M / 2 + 15);
        free(count);
        dist_destroy(d);
    }
}

static void test_determinism(void)
{
    const char *texts[] = { "random", "zipf:1.2", "pareto:0.3", "normal:5" };

    for (size_t t = 0; t < 4; t++) {
        struct dist *d = make(texts[t], 123457);
        struct rng a, b, c;
        int same = 1, differ = 0;

        rng_seed(&a, 42);
        rng_seed(&b, 42);
        rng_seed(&c, 43);
        for (int i = 0; i < 1000; i++) {
            uint64_t x = dist_next(d, &a);

            same &= x == dist_next(d, &b);
            differ += x != dist_next(d, &c);
        }
        CHECK(same);
        CHECK(differ > 500);
        dist_destroy(d);
    }
}

int main(void)
{
    test_parse_ok();
    test_parse_bad();
    test_create_errors();
    test_scatter_bijective();
    test_uniform();
    test_zipf_exact_small();
    test_zipf_large();
    test_zipf_extremes();
    test_pareto();
    test_normal();
    test_determinism();
    return check_summary();
}
