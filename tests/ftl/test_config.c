/* Configuration: parsing, every validation error, config files, shipped configurations. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "femu_ftl/ftl.h"

static char err[512];

/* Validation of defaults with one key changed; returns the message (empty if valid). */
static const char *validate_with(const char *key, const char *value)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    err[0] = '\0';
    if (ftl_config_set(&cfg, key, value, err, sizeof(err)) == 0) {
        ftl_config_validate(&cfg, NULL, err, sizeof(err));
    }
    return err;
}

static void test_defaults(void)
{
    struct ftl_config cfg;
    struct ftl_geometry g;
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
    CHECK_EQ_U64(g.page_bytes, 4096);
    CHECK_EQ_U64(g.lines, 256);
    CHECK_EQ_U64(g.pgs_per_line, 64 * 256);
    CHECK_EQ_U64(g.phys_pages, 16ull * 1024 * 1024 * 1024 / 4096);
    CHECK_EQ_U64(g.logical_pages, 12288ull * 256);
    CHECK_EQ_U64(g.gc_thres_lines, 64);       /* (1 - 0.75) * 256 */
    CHECK_EQ_U64(g.gc_thres_lines_high, 12);  /* floor(0.05 * 256) */
    CHECK_EQ_U64(g.write_pointers, 1);
}

static void test_bad_values(void)
{
    CHECK_CONTAINS(validate_with("nchs", "0"), "nchs: 0 is out of range");
    CHECK_CONTAINS(validate_with("pgs_per_blk", "-4"), "pgs_per_blk: '-4' is not a non-negative");
    CHECK_CONTAINS(validate_with("luns_per_ch", "8x"), "luns_per_ch: '8x'");
    CHECK_CONTAINS(validate_with("secsz", "1000"), "secsz: 1000 is not a power of two");
    CHECK_CONTAINS(validate_with("devsz_mb", "99999999999999999999999"), "devsz_mb:");
    CHECK_CONTAINS(validate_with("bogus", "1"), "bogus: unknown key");
    CHECK_CONTAINS(validate_with("placement", "lru"), "placement: 'lru' is not one of");
    CHECK_CONTAINS(validate_with("gc_thres_pcent", "100"), "gc_thres_pcent: 100 is out of range");
    CHECK_CONTAINS(validate_with("gc_thres_pcent", "96"), "gc_thres_pcent: 96 is above");
    CHECK_CONTAINS(validate_with("nstreams", "17"), "nstreams: 17 is out of range");
    CHECK_CONTAINS(validate_with("pg_wr_lat", "1000000000000000"), "pg_wr_lat:");
    /* media and fault injection */
    CHECK_CONTAINS(validate_with("pe_cycles", "0"), "pe_cycles: 0 is out of range [1, ");
    CHECK_CONTAINS(validate_with("read_uncor_ppm", "1000001"),
                   "read_uncor_ppm: 1000001 is out of range [0, 1000000]");
    CHECK_CONTAINS(validate_with("fault_seed", "-1"), "fault_seed: '-1' is not a non-negative");
    CHECK_CONTAINS(validate_with("bad_blk_pcent", "51"), "bad_blk_pcent: 51 is out of range [0, 50]");
    CHECK_CONTAINS(validate_with("bad_blk_pcent", "ten"), "bad_blk_pcent: 'ten'");
    CHECK(strcmp(validate_with("read_uncor_ppm", "1000000"), "") == 0);
    CHECK(strcmp(validate_with("fault_seed", "18446744073709551615"), "") == 0);
    /* 12 GiB of 16 fit beside 15% bad blocks, not beside 30% (one line, naming the key) */
    CHECK(strcmp(validate_with("bad_blk_pcent", "15"), "") == 0);
    CHECK_CONTAINS(validate_with("bad_blk_pcent", "30"), "bad_blk_pcent: 30% bad blocks (76 per "
                   "LUN) leave too few good blocks for 12288 MiB");
    CHECK(strchr(err, '\n') == NULL);
    /* logical >= raw */
    CHECK_CONTAINS(validate_with("devsz_mb", "16384"), "must be smaller than the raw capacity");
    /* too little over-provisioning for GC to make progress */
    CHECK_CONTAINS(validate_with("devsz_mb", "16000"), "too little over-provisioning");
    /* not a whole number of pages */
    {
        struct ftl_config cfg;
        ftl_config_defaults(&cfg);
        cfg.secs_per_pg = 3;
        cfg.devsz_mb = 1000;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
        CHECK_CONTAINS(err, "devsz_mb: 1000 MiB is not a whole number of 1536-byte pages");
    }
    /* too few lines for the GC thresholds */
    {
        struct ftl_config cfg;
        ftl_config_defaults(&cfg);
        cfg.blks_per_pl = 16;
        cfg.devsz_mb = 512;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
        CHECK_CONTAINS(err, "gc_thres_pcent_high: 95% of 16 lines leaves no line");
    }
    /* geometry overflow: more pages than 32-bit addresses */
    {
        struct ftl_config cfg;
        ftl_config_defaults(&cfg);
        cfg.blks_per_pl = 1u << 20;
        cfg.pgs_per_blk = 65536;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
        CHECK_CONTAINS(err, "more than");
    }
    /* a config built in C with an out-of-range field is caught too */
    {
        struct ftl_config cfg;
        ftl_config_defaults(&cfg);
        cfg.pls_per_lun = 0;
        CHECK(ftl_create(&cfg, err, sizeof(err)) == NULL);
        CHECK_CONTAINS(err, "pls_per_lun: 0 is out of range");
    }
}

static void test_max_devsz(void)
{
    /* with bad blocks the largest size shrinks and still validates */
    {
        struct ftl_config cfg;
        ftl_config_defaults(&cfg);
        uint64_t clean = ftl_config_max_devsz_mb(&cfg);
        cfg.bad_blk_pcent = 25;
        uint64_t max = ftl_config_max_devsz_mb(&cfg);
        CHECK(max < clean && max > 0);
        cfg.devsz_mb = max;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
        cfg.devsz_mb = max + 1;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
        CHECK_CONTAINS(err, "bad_blk_pcent:");
    }
    const char *placements[] = { "single", "hotcold", "stream" };
    for (int p = 0; p < 3; p++) {
        struct ftl_config cfg;
        ftl_config_defaults(&cfg);
        ftl_config_set(&cfg, "placement", placements[p], err, sizeof(err));
        uint64_t max = ftl_config_max_devsz_mb(&cfg);
        CHECK(max > 12288);
        cfg.devsz_mb = max;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
        cfg.devsz_mb = max + 1;
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
    }
}

static void test_get_and_keys(void)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    char buf[64];
    size_t n = 0;
    for (const char *key; (key = ftl_config_key(n)); n++) {
        CHECK(ftl_config_get(&cfg, key, buf, sizeof(buf)) == 0);
        CHECK(ftl_config_key_help(key) != NULL);
        /* every value read back sets again unchanged */
        struct ftl_config copy = cfg;
        CHECK(ftl_config_set(&copy, key, buf, err, sizeof(err)) == 0);
        CHECK(memcmp(&copy, &cfg, sizeof(cfg)) == 0);
    }
    CHECK_EQ_U64(n, 91 + 1 + 7 * FTL_PS_MAX);   /* ps_count, psN_* */
    /* a file's origin is tracked for every key */
    CHECK(n <= FTL_CONFIG_ORIGIN_KEYS);
    CHECK(ftl_config_get(&cfg, "placement", buf, sizeof(buf)) == 0 && !strcmp(buf, "single"));
    CHECK(ftl_config_get(&cfg, "gc_mode", buf, sizeof(buf)) == 0 && !strcmp(buf, "paced"));
    CHECK(ftl_config_set(&cfg, "gc_mode", "line", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.gc_mode, FTL_GC_LINE);
    CHECK(ftl_config_set(&cfg, "gc_mode", "lazy", err, sizeof(err)) == -1);
    CHECK(strcmp(err, "gc_mode: 'lazy' is not one of paced, line") == 0);
    cfg.gc_mode = FTL_GC_PACED;
    CHECK(ftl_config_get(&cfg, "gc_policy", buf, sizeof(buf)) == 0 && !strcmp(buf, "greedy"));
    CHECK(ftl_config_set(&cfg, "gc_policy", "cost_benefit", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.gc_policy, FTL_GC_COST_BENEFIT);
    CHECK(!strcmp(ftl_gc_policy_name(cfg.gc_policy), "cost_benefit"));
    CHECK(ftl_config_set(&cfg, "gc_policy", "lru", err, sizeof(err)) == -1);
    CHECK(strcmp(err, "gc_policy: 'lru' is not one of greedy, cost_benefit, random, fifo, "
                 "dchoice") == 0);
    cfg.gc_policy = FTL_GC_GREEDY;
    CHECK_EQ_U64(cfg.gc_dchoice_d, 2);
    CHECK(ftl_config_set(&cfg, "gc_dchoice_d", "1", err, sizeof(err)) == -1);
    CHECK(strcmp(err, "gc_dchoice_d: 1 is out of range [2, 64]") == 0);
    CHECK(ftl_config_set(&cfg, "ssd_size", "768", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.devsz_mb, 768);
    CHECK(ftl_config_get(&cfg, "nope", buf, sizeof(buf)) == -1);
}

/* Validation of defaults with zoned=on and the given keys (pairs, NULL-terminated);
 * returns the message (empty if valid) and fills *g when valid. */
static const char *validate_zoned(struct ftl_geometry *g, const char *key, ...)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    err[0] = '\0';
    ftl_config_set(&cfg, "zoned", "on", err, sizeof(err));
    va_list ap;
    va_start(ap, key);
    for (const char *k = key; k; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        if (ftl_config_set(&cfg, k, v, err, sizeof(err)) != 0) {
            va_end(ap);
            return err;
        }
    }
    va_end(ap);
    struct ftl_geometry local;
    ftl_config_validate(&cfg, g ? g : &local, err, sizeof(err));
    return err;
}

static void test_zone_keys(void)
{
    struct ftl_config cfg;
    char buf[64];
    ftl_config_defaults(&cfg);
    CHECK_EQ_U64(cfg.zoned + cfg.zones + cfg.zone_luns + cfg.zone_cap + cfg.zone_size +
                 cfg.max_open + cfg.max_active, 0);
    const char *on[] = { "on", "1" }, *off[] = { "off", "0" };
    for (int i = 0; i < 2; i++) {
        CHECK(ftl_config_set(&cfg, "zoned", on[i], err, sizeof(err)) == 0 && cfg.zoned == 1);
        CHECK(ftl_config_set(&cfg, "zoned", off[i], err, sizeof(err)) == 0 && cfg.zoned == 0);
    }
    CHECK(ftl_config_set(&cfg, "zoned", "yes", err, sizeof(err)) == -1);
    CHECK(strcmp(err, "zoned: 'yes' is not one of off, on, 0, 1") == 0);
    /* sizes: bytes, K/M/G in either case, read back as plain bytes */
    const struct { const char *text; uint64_t bytes; } sizes[] = {
        { "4096", 4096 }, { "64K", 65536 }, { "64k", 65536 }, { "96M", 96ull << 20 },
        { "96m", 96ull << 20 }, { "2G", 2ull << 30 }, { "2g", 2ull << 30 },
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        CHECK(ftl_config_set(&cfg, "zone_size", sizes[i].text, err, sizeof(err)) == 0);
        CHECK_EQ_U64(cfg.zone_size, sizes[i].bytes);
        CHECK(ftl_config_set(&cfg, "zone_cap", sizes[i].text, err, sizeof(err)) == 0);
        CHECK_EQ_U64(cfg.zone_cap, sizes[i].bytes);
        char want[32];
        snprintf(want, sizeof(want), "%llu", (unsigned long long)sizes[i].bytes);
        CHECK(ftl_config_get(&cfg, "zone_cap", buf, sizeof(buf)) == 0 && !strcmp(buf, want));
    }
    const char *bad_sizes[] = { "", "M", "-1", "12Q", "1MB", "1 M", "99999999999G" };
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
        CHECK(ftl_config_set(&cfg, "zone_cap", bad_sizes[i], err, sizeof(err)) == -1);
        CHECK_CONTAINS(err, "zone_cap: '");
    }
    CHECK_CONTAINS(validate_with("max_open", "x"), "max_open: 'x' is not a non-negative");
    /* zone keys are ignored while zoned is off */
    CHECK(strcmp(validate_with("zone_luns", "3"), "") == 0);
    CHECK(strcmp(validate_with("zone_cap", "1000"), "") == 0);
    CHECK(strcmp(validate_with("max_open", "9"), "") == 0);
}

static void test_zone_errors(void)
{
    /* every bad input is one line naming its key */
    CHECK_CONTAINS(validate_zoned(NULL, NULL), "zones: zoned=on needs at least one zone");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_luns", "3", NULL),
                   "zone_luns: 3 does not divide the 64 LUNs");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_luns", "128", NULL),
                   "zone_luns: 128 does not divide the 64 LUNs");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_cap", "1000000", NULL),
                   "zone_cap: 1000000 bytes does not fit the flash layout: a zone is 64 x N "
                   "blocks of 1048576 bytes");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_luns", "16", "zone_cap", "8M", NULL),
                   "zone_cap: 8388608 bytes does not fit the flash layout: a zone is 16 x N "
                   "blocks of 1048576 bytes");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_luns", "16", "zone_cap", "32M",
                                  "zone_size", "16M", NULL),
                   "zone_cap: 33554432 bytes is larger than zone_size (16777216 bytes)");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_luns", "16", "zone_size", "16380K",
                                  NULL), "zone_cap: 16777216 bytes is larger than zone_size");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "zone_luns", "16", "zone_size", "20001K",
                                  NULL),
                   "zone_size: 20481024 bytes is not a whole number of 4096-byte pages");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "max_open", "5", "max_active", "4", NULL),
                   "max_open: 5 is above max_active (4)");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "max_open", "9", NULL),
                   "max_open: 9 is more than the 8 zones");
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "8", "max_active", "9", NULL),
                   "max_active: 9 is more than the 8 zones");
    /* a zone of every LUN per block row: 256 zones need every row */
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "256", NULL),
                   "zones: 256 zones of 1 blocks on each of 64 LUNs need more than the 256 "
                   "blocks of a LUN");
    /* 64 rows of 256 leave 12 GiB raw: not more than the 12 GiB logical */
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "64", NULL),
                   "zones: the zones take 64 of the 256 block rows of every LUN, leaving 12288 "
                   "MiB raw: less than devsz_mb (12288 MiB)");
    /* 55 rows leave 201 lines: too few for 12 GiB beside the GC reserve */
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "55", NULL),
                   "zones: the zones take 55 of the 256 block rows of every LUN, leaving 201 "
                   "lines: too few for 12288 MiB and the GC reserve");
    CHECK(strcmp(validate_zoned(NULL, "zones", "50", NULL), "") == 0);
    /* a size too big even without zones still names devsz_mb */
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "1", "devsz_mb", "16000", NULL),
                   "devsz_mb: 16000 MiB leaves too little over-provisioning");
    /* rows left too few for foreground GC's reserve */
    CHECK_CONTAINS(validate_zoned(NULL, "zones", "240", "devsz_mb", "64", NULL),
                   "zones: the zones take 240 of the 256 block rows of every LUN, leaving 16 "
                   "lines: too few for foreground GC");
    CHECK(strchr(err, '\n') == NULL);
}

static void test_zone_geometry(void)
{
    struct ftl_geometry g;
    /* defaults: one block on every LUN, zone_size the cap rounded up to a power of two */
    CHECK(strcmp(validate_zoned(&g, "zones", "4", NULL), "") == 0);
    CHECK_EQ_U64(g.zone_luns, 64);
    CHECK_EQ_U64(g.zone_groups, 1);
    CHECK_EQ_U64(g.zone_blocks_per_lun, 1);
    CHECK_EQ_U64(g.zone_rows, 4);
    CHECK_EQ_U64(g.lines, 252);
    CHECK_EQ_U64(g.blks_per_lun, 256);
    CHECK_EQ_U64(g.blocks, 64 * 256);
    CHECK_EQ_U64(g.phys_pages, 252ull * 64 * 256);
    CHECK_EQ_U64(g.zone_cap_sectors, 64ull * 1024 * 1024 / 512);
    CHECK_EQ_U64(g.zone_sectors, 64ull * 1024 * 1024 / 512);
    CHECK_EQ_U64(g.zoned_sectors, 4 * g.zone_sectors);
    CHECK_EQ_U64(g.gc_thres_lines_high, 12);    /* floor(0.05 * 252) */
    /* 16-LUN zones of 3 blocks per LUN: 4 groups, 10 zones stack 3 deep (9 rows) */
    CHECK(strcmp(validate_zoned(&g, "zones", "10", "zone_luns", "16", "zone_cap", "48M", NULL),
                 "") == 0);
    CHECK_EQ_U64(g.zone_groups, 4);
    CHECK_EQ_U64(g.zone_blocks_per_lun, 3);
    CHECK_EQ_U64(g.zone_rows, 9);
    CHECK_EQ_U64(g.lines, 247);
    CHECK_EQ_U64(g.zone_cap_sectors, 48ull * 2048);
    CHECK_EQ_U64(g.zone_sectors, 64ull * 2048);    /* 48 MiB rounded up */
    /* a zone size that is not a power of two is accepted here (the device refuses it) */
    CHECK(strcmp(validate_zoned(&g, "zones", "10", "zone_luns", "16", "zone_cap", "48M",
                                "zone_size", "48M", NULL), "") == 0);
    CHECK_EQ_U64(g.zone_sectors, 48ull * 2048);
    CHECK(strcmp(validate_zoned(&g, "zones", "10", "zone_luns", "16", "zone_cap", "48M",
                                "zone_size", "50M", "max_open", "4", "max_active", "10",
                                NULL), "") == 0);
    CHECK_EQ_U64(g.zone_sectors, 50ull * 2048);
    /* the largest conventional size counts the zone rows */
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    uint64_t plain = ftl_config_max_devsz_mb(&cfg);
    cfg.zoned = 1;
    cfg.zones = 32;
    uint64_t max = ftl_config_max_devsz_mb(&cfg);
    /* 256 lines less 12 for foreground GC and 1 open: 243 x 64 MiB less a page; with 32
     * rows taken, 224 less 11 and 1 */
    CHECK_EQ_U64(plain, 243 * 64 - 1);
    CHECK_EQ_U64(max, 212 * 64 - 1);
    cfg.devsz_mb = max;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg.devsz_mb = max + 1;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
    CHECK_CONTAINS(err, "zones:");
    /* bad blocks fall among the conventional lines only */
    CHECK(strcmp(validate_zoned(&g, "zones", "56", "devsz_mb", "8192", "bad_blk_pcent", "10",
                                NULL), "") == 0);
    CHECK_EQ_U64(g.lines, 200);
    CHECK_EQ_U64(g.bad_blocks_per_lun, 20);
}

static char tmpdir[] = "/tmp/ftl-config-test-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static const char *load(const char *text, struct ftl_config *cfg)
{
    ftl_config_defaults(cfg);
    err[0] = '\0';
    ftl_config_load_file(cfg, write_file("t.conf", text), err, sizeof(err));
    return err;
}

static void test_files(void)
{
    struct ftl_config cfg;
    CHECK_EQ_U64(strlen(load("# comment only\n\n  nchs = 2   # two channels\r\n"
                             "ssd_size=768\nplacement=hotcold\nhot_threshold=5", &cfg)), 0);
    CHECK_EQ_U64(cfg.nchs, 2);
    CHECK_EQ_U64(cfg.devsz_mb, 768);
    CHECK(cfg.placement == FTL_PLACEMENT_HOTCOLD);
    CHECK_EQ_U64(cfg.hot_threshold, 5);

    CHECK_CONTAINS(load("nchs=2\nwhat=3\n", &cfg), "t.conf:2: what: unknown key");
    CHECK_EQ_U64(cfg.nchs, 8);  /* a bad file changes nothing */
    CHECK_CONTAINS(load("nchs 2\n", &cfg), "t.conf:1: expected key=value");
    CHECK_CONTAINS(load("=2\n", &cfg), "t.conf:1: missing key");
    CHECK_CONTAINS(load("nchs=\n", &cfg), "t.conf:1: nchs: missing value");
    CHECK_CONTAINS(load("nchs=2\nnchs=4\n", &cfg), "t.conf:2: nchs: set twice");
    CHECK_CONTAINS(load("devsz_mb=2\nssd_size=4\n", &cfg), "t.conf:2: ssd_size: set twice");
    CHECK_CONTAINS(load("nchs=two\n", &cfg), "t.conf:1: nchs: 'two' is not");
    char longline[3000];
    memset(longline, 'a', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\0';
    CHECK_CONTAINS(load(longline, &cfg), "t.conf:1: line longer than");
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_load_file(&cfg, "/nonexistent/x.conf", err, sizeof(err)) != 0);
    CHECK_CONTAINS(err, "/nonexistent/x.conf: cannot open");
}

static void test_shipped_configs(void)
{
    static const struct { const char *name; uint64_t raw_mib, logical_mib, lines; } confs[] = {
        { "femu-default.conf", 16384, 12288, 256 },
        { "lab-1g.conf", 1024, 768, 64 },
        { "lab-4g.conf", 4096, 3072, 256 },
    };
    for (size_t i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", CONF_DIR, confs[i].name);
        struct ftl_config cfg;
        struct ftl_geometry g;
        ftl_config_defaults(&cfg);
        CHECK(ftl_config_load_file(&cfg, path, err, sizeof(err)) == 0);
        CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
        CHECK_EQ_U64(g.phys_pages * g.page_bytes >> 20, confs[i].raw_mib);
        CHECK_EQ_U64(g.logical_pages * g.page_bytes >> 20, confs[i].logical_mib);
        CHECK_EQ_U64(g.lines, confs[i].lines);
    }
}

/* A message built at run time holds want. */
static void expect_in(const char *msg, const char *want, int line)
{
    if (!check_record(strstr(msg, want) != NULL, __FILE__, line, want)) {
        fprintf(stderr, "    got: \"%s\"\n", msg);
    }
}

/* Combine files as ftl-sim does (in order, noting origins); the validation message. */
static const char *combine(struct ftl_config *cfg, struct ftl_config_origins *origins,
                           const char *const *paths, size_t n)
{
    ftl_config_defaults(cfg);
    memset(origins, 0, sizeof(*origins));
    err[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (ftl_config_combine_file(cfg, origins, paths[i], err, sizeof(err))) {
            return err;
        }
    }
    ftl_config_validate_combined(cfg, origins, NULL, err, sizeof(err));
    return err;
}

/* include: relative paths, later keys win, one key twice in one file stays an error,
 * cycles and deep nesting are refused, an error inside names the including line. */
static void test_includes(void)
{
    static struct ftl_config_origins origins;
    struct ftl_config cfg;
    char sub[600];
    snprintf(sub, sizeof(sub), "%s/sub", tmpdir);
    CHECK(mkdir(sub, 0700) == 0);
    write_file("sub/media.conf", "pgs_per_blk=128\npg_rd_lat=35000\n");
    /* the include's path is relative to the including file; its keys apply where it is */
    const char *top = write_file("top.conf", "pgs_per_blk=64\ninclude sub/media.conf\n"
                                 "pg_rd_lat=1000  # after the include: wins\nssd_size=4096\n");
    CHECK_EQ_U64(strlen(combine(&cfg, &origins, &top, 1)), 0);
    CHECK_EQ_U64(cfg.pgs_per_blk, 128);
    CHECK_EQ_U64(cfg.pg_rd_lat, 1000);
    char want[700];
    snprintf(want, sizeof(want), "%s/sub/media.conf:1", tmpdir);
    CHECK(strcmp(ftl_config_origin_of(&origins, "pgs_per_blk"), want) == 0);
    snprintf(want, sizeof(want), "%s:3", top);
    CHECK(strcmp(ftl_config_origin_of(&origins, "pg_rd_lat"), want) == 0);
    CHECK(ftl_config_origin_of(&origins, "nchs") == NULL);
    ftl_config_origin_note(&origins, "pg_rd_lat", NULL);   /* e.g. --set took it over */
    CHECK(ftl_config_origin_of(&origins, "pg_rd_lat") == NULL);

    /* two files: the second overrides the first; the same key twice in one file fails */
    char a[700], b[700];
    snprintf(a, sizeof(a), "%s", write_file("a.conf", "nchs=2\nluns_per_ch=4\nssd_size=2048\n"));
    snprintf(b, sizeof(b), "%s", write_file("b.conf", "nchs=4\n"));
    const char *two[] = { a, b };
    CHECK_EQ_U64(strlen(combine(&cfg, &origins, two, 2)), 0);
    CHECK_EQ_U64(cfg.nchs, 4);
    CHECK_EQ_U64(cfg.luns_per_ch, 4);
    CHECK_CONTAINS(load("include sub/media.conf\npgs_per_blk=1\npgs_per_blk=2\n", &cfg),
                   "t.conf:3: pgs_per_blk: set twice in this file");

    /* a conflict after combining: one line, the file and line that set the key last */
    snprintf(a, sizeof(a), "%s", write_file("geo.conf", "nchs=1\nluns_per_ch=1\n"
                                            "blks_per_pl=64\nssd_size=768\n"));
    snprintf(b, sizeof(b), "%s", write_file("media.conf", "secs_per_pg=8\n"));
    const char *conflict[] = { a, b };
    combine(&cfg, &origins, conflict, 2);
    snprintf(want, sizeof(want), "%s:4: devsz_mb: logical size 768 MiB must be smaller",
             conflict[0]);
    expect_in(err, want, __LINE__);
    CHECK(strchr(err, '\n') == NULL);

    /* errors inside an included file name the including line */
    write_file("sub/bad.conf", "colour=blue\n");
    CHECK_CONTAINS(load("nchs=2\ninclude sub/bad.conf\n", &cfg), "sub/bad.conf:1: colour: "
                   "unknown key (included from ");
    CHECK_CONTAINS(err, "t.conf:2)");
    CHECK_EQ_U64(cfg.nchs, 8);  /* nothing applied */
    CHECK_CONTAINS(load("include sub/none.conf\n", &cfg), "t.conf:1: include sub/none.conf: "
                   "cannot open");
    CHECK_CONTAINS(load("include   \n", &cfg), "t.conf:1: expected key=value or include");
    CHECK_CONTAINS(load("include\tsub/media.conf # fine\n", &cfg), "");
    CHECK_EQ_U64(cfg.pgs_per_blk, 128);

    /* cycles: a file including itself, and a -> b -> a */
    CHECK_CONTAINS(load("include t.conf\n", &cfg), "t.conf:1: include t.conf: an include "
                   "cycle");
    write_file("sub/x.conf", "include y.conf\n");
    write_file("sub/y.conf", "nchs=2\ninclude ../sub/x.conf\n");
    CHECK_CONTAINS(load("include sub/x.conf\n", &cfg), "y.conf:2: include ../sub/x.conf: an "
                   "include cycle");
    /* nesting: d0 includes d1 ... includes d9, which sets nchs */
    for (int i = 0; i <= 9; i++) {
        char name[32], text[64];
        snprintf(name, sizeof(name), "sub/d%d.conf", i);
        snprintf(text, sizeof(text), i < 9 ? "include d%d.conf\n" : "nchs=2\n", i + 1);
        write_file(name, text);
    }
    CHECK_CONTAINS(load("include sub/d2.conf\n", &cfg), "");    /* 8 includes deep */
    CHECK_EQ_U64(cfg.nchs, 2);
    CHECK_CONTAINS(load("include sub/d1.conf\n", &cfg), "d8.conf:1: include d9.conf: "
                   "includes nested deeper than 8 (included from ");
    CHECK_CONTAINS(err, "d7.conf:1)");

    const char *cleanup[] = { "sub/media.conf", "sub/bad.conf", "sub/x.conf", "sub/y.conf",
                              "top.conf", "a.conf", "b.conf", "geo.conf", "media.conf" };
    for (size_t i = 0; i < sizeof(cleanup) / sizeof(cleanup[0]); i++) {
        unlink(write_file(cleanup[i], ""));
    }
    for (int i = 0; i <= 9; i++) {
        char name[32];
        snprintf(name, sizeof(name), "sub/d%d.conf", i);
        unlink(write_file(name, ""));
    }
    rmdir(sub);
}

/* conf/nand profiles: media keys only; each combines with the shipped geometries and
 * validates, or is refused with one line naming the geometry's line that set the key. */
static void test_nand_profiles(void)
{
    static struct ftl_config_origins origins;
    static const struct {
        const char *profile;
        uint64_t page_bytes, pgs_per_blk, rd, wr, er, xfer;
        const char *lab_1g_error, *femu_default_error;  /* NULL: validates */
    } profiles[] = {
        { "slc", 4096, 64, 25000, 200000, 1500000, 6000,
          "lab-1g.conf:10: devsz_mb: logical size 768 MiB must be smaller than the raw "
          "capacity (256 MiB)",
          "femu-default.conf:10: devsz_mb: logical size 12288 MiB must be smaller than the "
          "raw capacity (4096 MiB)" },
        { "mlc", 16384, 128, 35000, 390000, 4000000, 24000, NULL, NULL },
        { "tlc", 16384, 768, 60000, 700000, 4500000, 24000, NULL, NULL },
        { "qlc", 16384, 1024, 120000, 1365000, 6000000, 24000, NULL, NULL },
        { "znand", 2048, 512, 3000, 100000, 1500000, 3000, NULL, NULL },
    };
    for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
        for (int geo = 0; geo < 2; geo++) {
            char geometry[1024], profile[1024];
            snprintf(geometry, sizeof(geometry), "%s/%s", CONF_DIR,
                     geo ? "femu-default.conf" : "lab-1g.conf");
            snprintf(profile, sizeof(profile), "%s/nand/%s.conf", CONF_DIR,
                     profiles[i].profile);
            const char *paths[] = { geometry, profile };
            struct ftl_config cfg;
            const char *msg = combine(&cfg, &origins, paths, 2);
            const char *want = geo ? profiles[i].femu_default_error : profiles[i].lab_1g_error;
            if (want) {
                expect_in(msg, want, __LINE__);
                CHECK(strchr(msg, '\n') == NULL);
            } else {
                CHECK_EQ_U64(strlen(msg), 0);
            }
            /* the profile's keys win over the geometry's, the geometry's stay */
            CHECK_EQ_U64(cfg.secsz * cfg.secs_per_pg, profiles[i].page_bytes);
            CHECK_EQ_U64(cfg.pgs_per_blk, profiles[i].pgs_per_blk);
            CHECK_EQ_U64(cfg.pg_rd_lat, profiles[i].rd);
            CHECK_EQ_U64(cfg.pg_wr_lat, profiles[i].wr);
            CHECK_EQ_U64(cfg.blk_er_lat, profiles[i].er);
            CHECK_EQ_U64(cfg.ch_xfer_lat, profiles[i].xfer);
            CHECK_EQ_U64(cfg.nchs, geo ? 8 : 2);
            CHECK_EQ_U64(cfg.blks_per_pl, geo ? 256 : 64);
            /* only media keys: counts and the logical size come from the geometry */
            CHECK(strstr(ftl_config_origin_of(&origins, "nchs"), "nand/") == NULL);
            CHECK(strstr(ftl_config_origin_of(&origins, "devsz_mb"), "nand/") == NULL);
            CHECK(strstr(ftl_config_origin_of(&origins, "pgs_per_blk"), "nand/") != NULL);
        }
    }
}

/* plp=on needs a write buffer: the refusal names the key; with one it is accepted. */
static void test_plp(void)
{
    struct ftl_config cfg;
    struct ftl_geometry g;
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_set(&cfg, "plp", "on", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.plp, 1);
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == -1);
    CHECK(strcmp(err, "plp: power-loss protection needs a write buffer "
                 "(write_buffer_sectors > 0)") == 0);
    cfg.write_buffer_sectors = 1024;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
}

/* hot_decay: off or a count (0 reads back as off); under 1024, or with a threshold the
 * 16-bit aged counts cannot exceed, refused naming the key. */
static void test_hot_decay(void)
{
    struct ftl_config cfg;
    struct ftl_geometry g;
    char buf[32];
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_get(&cfg, "hot_decay", buf, sizeof(buf)) == 0 && !strcmp(buf, "off"));
    CHECK(ftl_config_set(&cfg, "hot_decay", "4096", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.hot_decay, 4096);
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
    CHECK(ftl_config_set(&cfg, "hot_decay", "off", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.hot_decay, 0);
    CHECK(ftl_config_set(&cfg, "hot_decay", "often", err, sizeof(err)) == -1);
    CHECK(strcmp(err, "hot_decay: 'often' is not a non-negative integer or off") == 0);
    CHECK(ftl_config_set(&cfg, "hot_decay", "1023", err, sizeof(err)) == 0);
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == -1);
    CHECK(strncmp(err, "hot_decay: 1023 host page writes", 32) == 0);
    cfg.hot_decay = 1024;
    cfg.hot_threshold = 65535;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == -1);
    CHECK(strncmp(err, "hot_threshold: 65535 is not below 65535", 39) == 0);
    cfg.hot_decay = 0;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_defaults();
    test_bad_values();
    test_max_devsz();
    test_get_and_keys();
    test_plp();
    test_hot_decay();
    test_zone_keys();
    test_zone_errors();
    test_zone_geometry();
    test_files();
    test_shipped_configs();
    test_includes();
    test_nand_profiles();
    unlink(write_file("t.conf", ""));
    rmdir(tmpdir);
    return check_summary();
}
