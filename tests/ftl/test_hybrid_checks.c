/*
 * mapping=block|bast|fast beyond the hand-computed cases: randomized runs (writes, reads,
 * trims, formats, Copy, background GC calls, factory bad blocks) keep ftl_check passing
 * after every request, every page the host wrote mapped and no other, and page GC idle;
 * stats.csv's merge columns sum to the counters; and each refused combination answers
 * with one line naming its key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/copy.h"
#include "femu_ftl/stats.h"
#include "hybrid_test_util.h"
#include "rng.h"

/* 4 KiB pages, 4 a block: the 1 MiB device is 64 logical blocks over 2 x 40 blocks, 10%
 * of them factory bad. */
static struct ftl_config random_config(enum ftl_mapping mapping, uint64_t log_blocks)
{
    struct ftl_config cfg = hybrid_config(mapping, log_blocks);
    cfg.secs_per_pg = 8;
    cfg.blks_per_pl = 40;
    cfg.bad_blk_pcent = 10;
    return cfg;
}

/* One request; *has_data follows which pages hold data. */
static int random_request(struct ftl *ftl, struct rng *rng, bool *has_data, uint64_t now,
                          uint64_t *done)
{
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, spp = ftl_config_of(ftl)->secs_per_pg;
    uint64_t kind = rng_below(rng, 100), n = 1 + rng_below(rng, 4);
    uint64_t lpn = rng_below(rng, pages - n + 1);
    struct ftl_io io = page_io(ftl, now, lpn, n, 0);
    int rc = FTL_OK;

    *done = now;
    if (kind < 60) {
        rc = ftl_write(ftl, &io, done);
        for (uint64_t p = lpn; rc == FTL_OK && p < lpn + n; p++) {
            has_data[p] = true;
        }
    } else if (kind < 75) {
        rc = ftl_read(ftl, &io, done);
    } else if (kind < 87) {
        rc = ftl_trim(ftl, &io, done);
        forget_pages(has_data, io.slba, io.nlb, spp);
    } else if (kind < 95) {
        uint64_t from = rng_below(rng, pages - n + 1);
        struct ftl_range src = { from * spp, n * spp };
        rc = ftl_copy(ftl, &src, 1, lpn * spp, false, now, done);
        for (uint64_t p = 0; rc == FTL_OK && p < n; p++) {
            has_data[lpn + p] = true;   /* a copy maps its destination, data or not */
        }
    } else if (kind < 98) {
        rc = ftl_background_gc(ftl, now);   /* never collects under a hybrid mapping */
        CHECK(rc == 0);
    } else {
        rc = ftl_format(ftl, &io, rng_below(rng, 2), done);
        forget_pages(has_data, io.slba, io.nlb, spp);
    }
    return rc;
}

static void test_randomized(enum ftl_mapping mapping, uint64_t log_blocks, uint64_t seed)
{
    struct ftl_config cfg = random_config(mapping, log_blocks);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, inconsistent = 0, failed = 0;
    bool *has_data = calloc(pages, sizeof(bool));
    struct rng rng;
    rng_seed(&rng, seed);
    uint64_t now = 0;
    for (uint64_t i = 0; i < 3000; i++) {
        uint64_t done;
        now += 1000 + rng_below(&rng, 100000);
        failed += random_request(ftl, &rng, has_data, now, &done) != FTL_OK;
        check_after_request(ftl, i, &inconsistent);
    }
    uint64_t wrong = 0;
    for (uint64_t p = 0; p < pages; p++) {
        wrong += ftl_lpn_is_mapped(ftl, p) != has_data[p];
    }
    struct ftl_counters c = counters(ftl);
    printf("  %s: %llu merges (%llu switch, %llu partial, %llu full), %llu copied, "
           "%llu erased\n", ftl_mapping_name(mapping),
           (unsigned long long)c.gc_runs, (unsigned long long)c.merge_switch,
           (unsigned long long)c.merge_partial, (unsigned long long)c.merge_full,
           (unsigned long long)c.merge_copied_pages, (unsigned long long)c.merge_erased_blocks);
    CHECK_EQ_U64(failed, 0);
    CHECK_EQ_U64(inconsistent, 0);
    CHECK_EQ_U64(wrong, 0);
    CHECK(c.merge_full > 0);
    CHECK_EQ_U64(c.gc_runs, c.merge_switch + c.merge_partial + c.merge_full);
    CHECK_EQ_U64(c.gc_moved_pages, c.merge_copied_pages);
    CHECK_EQ_U64(c.nand_erases, c.merge_erased_blocks + c.format_erased_blocks);
    free(has_data);
    ftl_destroy(ftl);
}

/* Validation and creation fail with one line that starts with "key:". */
static void check_rejected(const struct ftl_config *cfg, const char *key)
{
    char err[512] = "";
    CHECK(ftl_config_validate(cfg, NULL, err, sizeof(err)) != 0);
    size_t n = strlen(key);
    if (!check_record(strncmp(err, key, n) == 0 && err[n] == ':' && !strchr(err, '\n'),
                      __FILE__, __LINE__, "one line naming the key")) {
        fprintf(stderr, "    expected '%s: ...', got \"%s\"\n", key, err);
    }
    printf("  rejected: %s\n", err);
    CHECK(ftl_create(cfg, err, sizeof(err)) == NULL);
}

static void test_refusals(void)
{
    const enum ftl_mapping schemes[] = { FTL_MAPPING_BLOCK, FTL_MAPPING_BAST,
                                         FTL_MAPPING_FAST };
    char err[512];
    for (size_t i = 0; i < 3; i++) {
        struct ftl_config ok = hybrid_config(schemes[i], 2), cfg;
        CHECK(ftl_config_validate(&ok, NULL, err, sizeof(err)) == 0);
        cfg = ok;
        cfg.gc_unit = FTL_GC_UNIT_LINE;
        check_rejected(&cfg, "mapping");
        cfg = ok;
        cfg.placement = FTL_PLACEMENT_HOTCOLD;
        check_rejected(&cfg, "placement");
        cfg = ok;
        cfg.placement = FTL_PLACEMENT_FDP;
        check_rejected(&cfg, "placement");
        cfg = ok;
        cfg.slc_cache = 1;
        cfg.cell_bits = 2;
        cfg.slc_pg_rd_lat = cfg.slc_pg_wr_lat = cfg.slc_blk_er_lat = 1;
        check_rejected(&cfg, "slc_cache");
        cfg = ok;
        cfg.zoned = 1;
        cfg.zones = 1;
        cfg.zone_luns = 2;
        cfg.zone_cap = 2 * 4 * 65536;
        check_rejected(&cfg, "zoned");
    }
    /* 16 good blocks: 4 logical blocks + log_blocks + 1 spare must fit */
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BAST, 11);
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg.log_blocks = 12;
    check_rejected(&cfg, "log_blocks");
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0 && strstr(err, "17") &&
          strstr(err, "16 good"));
    cfg = hybrid_config(FTL_MAPPING_FAST, 1);   /* one SW and no random log */
    check_rejected(&cfg, "log_blocks");
    /* factory bad blocks count: 1 of 8 per LUN bad leaves 14 */
    cfg = hybrid_config(FTL_MAPPING_FAST, 10);
    cfg.bad_blk_pcent = 13;
    check_rejected(&cfg, "log_blocks");
    CHECK(ftl_create(&cfg, err, sizeof(err)) == NULL && strstr(err, "14 good"));
    cfg.log_blocks = 9;
    struct ftl *ftl = ftl_create(&cfg, err, sizeof(err));
    CHECK(ftl != NULL);
    ftl_destroy(ftl);
    /* the largest device: 16 good blocks less 2 log blocks and the spare, 13 x 256 KiB */
    cfg = hybrid_config(FTL_MAPPING_BAST, 2);
    CHECK_EQ_U64(ftl_config_max_devsz_mb(&cfg), 13 * 256 / 1024);
    cfg.pgs_per_blk = 16;   /* 1 MiB blocks: 13 MiB */
    CHECK_EQ_U64(ftl_config_max_devsz_mb(&cfg), 13);
    /* by name */
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_set(&cfg, "mapping", "fast", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.mapping, FTL_MAPPING_FAST);
    CHECK(ftl_config_set(&cfg, "log_blocks", "0", err, sizeof(err)) != 0);
    CHECK_CONTAINS(err, "log_blocks:");
}

/* The sum over stats.csv's rows of the column named `name` (-1: no such column). */
static double csv_column_sum(const char *path, const char *name)
{
    static char line[1 << 14];
    FILE *f = fopen(path, "r");
    if (!f || !fgets(line, sizeof(line), f)) {
        if (f) {
            fclose(f);
        }
        return -1;
    }
    int column = -1, i = 0;
    for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), i++) {
        column = column < 0 && strcmp(tok, name) == 0 ? i : column;
    }
    double sum = column < 0 ? -1 : 0;
    while (column >= 0 && fgets(line, sizeof(line), f)) {
        const char *field = line;
        for (int k = 0; k < column && field; k++) {
            field = strchr(field, ',');
            field = field ? field + 1 : NULL;
        }
        sum += field ? strtod(field, NULL) : 0;
    }
    fclose(f);
    return sum;
}

/* A BAST run with every merge type, its rows summed per column. */
static void test_stats_columns(void)
{
    char dir[] = "/tmp/femu-test-hybrid-stats-XXXXXX", err[256] = "", path[128];
    CHECK(mkdtemp(dir) != NULL);
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BAST, 1);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    CHECK(w != NULL);
    /* switch (LBN 0's log 0..3, merged for LBN 1's page 4), partial (LBN 1's log with
     * offset 0, merged for LBN 0's page 0), full (LBN 0's log with offsets 0, 2, merged
     * for LBN 2's page 8) */
    const uint64_t lpns[] = { 0, 1, 2, 3, 0, 1, 2, 3, 4, 4, 5, 8, 9, 0, 2, 8 };
    uint64_t t = 0;
    for (size_t i = 0; i < sizeof(lpns) / sizeof(lpns[0]); i++) {
        t += SEC;
        CHECK(ftl_stats_advance(w, t, err, sizeof(err)) == 0);
        write1(ftl, t, lpns[i]);
    }
    CHECK(ftl_stats_close(w, t + SEC, err, sizeof(err)) == 0);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.merge_switch, 1);
    CHECK_EQ_U64(c.merge_partial, 1);
    CHECK_EQ_U64(c.merge_full, 1);
    snprintf(path, sizeof(path), "%s/stats.csv", dir);
    CHECK_EQ_U64(csv_column_sum(path, "merge_switch"), c.merge_switch);
    CHECK_EQ_U64(csv_column_sum(path, "merge_partial"), c.merge_partial);
    CHECK_EQ_U64(csv_column_sum(path, "merge_full"), c.merge_full);
    CHECK_EQ_U64(csv_column_sum(path, "merge_copied_pages"), c.merge_copied_pages);
    CHECK_EQ_U64(csv_column_sum(path, "merge_erased_blocks"), c.merge_erased_blocks);
    CHECK_EQ_U64(csv_column_sum(path, "gc_runs"), 3);
    ftl_destroy(ftl);
    /* page mapping's file has no merge columns */
    cfg = hybrid_config(FTL_MAPPING_PAGE, 1);
    ftl = make_ftl(&cfg);
    w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    CHECK(w != NULL && ftl_stats_close(w, SEC, err, sizeof(err)) == 0);
    CHECK(csv_column_sum(path, "merge_switch") < 0);
    ftl_destroy(ftl);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_stats_columns();
    test_randomized(FTL_MAPPING_BLOCK, 1, 1);
    test_randomized(FTL_MAPPING_BAST, 4, 2);
    test_randomized(FTL_MAPPING_FAST, 4, 3);
    test_refusals();
    return check_summary();
}
