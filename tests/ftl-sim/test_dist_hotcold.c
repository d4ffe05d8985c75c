/* Unit tests for --dist hotcold:H:W (tools/ftl-sim/dist.c): parsing and its messages, the
 * hot part's size, and the share of hits each part gets (fixed seed, bounds of several
 * standard deviations), uniform within each part. */
#include <stdlib.h>

#include "check.h"
#include "dist.h"

static void test_parse(void)
{
    struct dist_spec s;
    char err[256], name[64];

    CHECK(dist_parse("hotcold:10:90", &s, err, sizeof(err)) == 0);
    CHECK(s.kind == DIST_HOTCOLD && s.param == 10.0 && s.share == 90.0);
    CHECK(strcmp(dist_name(&s, name, sizeof(name)), "hotcold:10:90") == 0);
    CHECK(dist_parse("hotcold:2.5:100", &s, err, sizeof(err)) == 0);
    CHECK(strcmp(dist_name(&s, name, sizeof(name)), "hotcold:2.5:100") == 0);
    CHECK(dist_parse("hotcold:50:0", &s, err, sizeof(err)) == 0 && s.share == 0.0);

    static const struct { const char *text, *why; } bad[] = {
        { "hotcold", "want hotcold:H:W" },
        { "hotcold:10", "want hotcold:H:W" },
        { "hotcold:10:90:1", "too many values" },
        { "hotcold:x:90", "hotcold H is not a number" },
        { "hotcold:10:", "hotcold W is not a number" },
        { "hotcold:0:90", "H (percent of the items) must be in (0, 100)" },
        { "hotcold:100:90", "must be in (0, 100)" },
        { "hotcold:10:101", "W (percent of the I/Os) must be in [0, 100]" },
        { "hotcold:10:-1", "must be in [0, 100]" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        s = (struct dist_spec){ .kind = DIST_ZIPF, .param = 42.0 };
        err[0] = '\0';
        int ok = dist_parse(bad[i].text, &s, err, sizeof(err)) == -1 &&
                 strncmp(err, "--dist: ", 8) == 0 && strstr(err, bad[i].text) &&
                 strstr(err, bad[i].why) && s.kind == DIST_ZIPF;
        if (!check_record(ok, __FILE__, __LINE__, bad[i].text)) {
            fprintf(stderr, "    '%s' -> '%s'\n", bad[i].text, err);
        }
    }
}

static struct dist *make(const char *text, uint64_t n)
{
    struct dist_spec spec;
    char err[256] = "";
    if (dist_parse(text, &spec, err, sizeof(err)) != 0) {
        return NULL;
    }
    return dist_create(&spec, n, err, sizeof(err));
}

/* round(n * H / 100) items, at least 1, at most n - 1; no hot part for other kinds */
static void test_hot_items(void)
{
    static const struct { const char *text; uint64_t n, hot; } cases[] = {
        { "hotcold:10:90", 24576, 2458 }, { "hotcold:10:90", 1000, 100 },
        { "hotcold:1:50", 10, 1 }, { "hotcold:99.9:50", 10, 9 }, { "hotcold:50:50", 1, 1 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct dist *d = make(cases[i].text, cases[i].n);
        CHECK(d != NULL);
        if (d) {
            CHECK_EQ_U64(dist_hot_items(d), cases[i].hot);
        }
        dist_destroy(d);
    }
    struct dist *d = make("zipf:1.2", 1000);
    CHECK(d != NULL && dist_hot_items(d) == 0);
    dist_destroy(d);
}

/* 90% of 200000 draws in the hot 10%: binomial sd 134, so +-1000 is over 7 sd; within
 * each part every item is hit about equally often. */
static void test_shares(void)
{
    enum { N = 1000, DRAWS = 200000 };
    static unsigned hits[N];
    struct dist *d = make("hotcold:10:90", N);
    struct rng r;
    uint64_t hot = 0, outside = 0;

    CHECK(d != NULL);
    if (!d) {
        return;
    }
    rng_seed(&r, 7);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t item = dist_next(d, &r);
        if (item >= N) {
            outside++;
            continue;
        }
        hits[item]++;
        hot += item < 100;
    }
    CHECK_EQ_U64(outside, 0);
    CHECK_NEAR((double)hot, 0.9 * DRAWS, 1000);
    /* hot items expect 1800 hits (sd 42), cold ones 22 (sd 4.7) */
    unsigned hot_min = ~0u, hot_max = 0, cold_min = ~0u, cold_max = 0;
    for (int i = 0; i < N; i++) {
        unsigned *lo = i < 100 ? &hot_min : &cold_min, *hi = i < 100 ? &hot_max : &cold_max;
        *lo = hits[i] < *lo ? hits[i] : *lo;
        *hi = hits[i] > *hi ? hits[i] : *hi;
    }
    CHECK(hot_min > 1600 && hot_max < 2000);
    CHECK(cold_min > 2 && cold_max < 50);
    dist_destroy(d);

    /* W 100: only the hot part; W 0: only the cold part */
    uint64_t cold_hits = 0, hot_hits = 0;
    d = make("hotcold:10:100", N);
    for (int i = 0; i < 10000 && d; i++) {
        cold_hits += dist_next(d, &r) >= 100;
    }
    dist_destroy(d);
    d = make("hotcold:10:0", N);
    for (int i = 0; i < 10000 && d; i++) {
        hot_hits += dist_next(d, &r) < 100;
    }
    dist_destroy(d);
    CHECK_EQ_U64(cold_hits, 0);
    CHECK_EQ_U64(hot_hits, 0);
}

int main(void)
{
    test_parse();
    test_hot_items();
    test_shares();
    return check_summary();
}
