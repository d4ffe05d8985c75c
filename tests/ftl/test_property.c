/*
 * Randomized property test: >= 10^6 mixed operations (writes, reads, trims, background GC,
 * out-of-range requests) over several geometries and every placement, against a shadow
 * model of which LPNs hold data and how often each was written. The invariant checker
 * runs throughout. Seeds are fixed, so a failure replays exactly.
 */
#include <stdbool.h>

#include "ftl_test_util.h"
#include "rng.h"

struct shadow {
    bool *mapped;
    uint32_t *writes;
};

static int compare_with_shadow(const struct ftl *ftl, const struct shadow *sh)
{
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages;
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        if (ftl_lpn_is_mapped(ftl, lpn) != sh->mapped[lpn] ||
            ftl_lpn_write_count(ftl, lpn) != sh->writes[lpn]) {
            fprintf(stderr, "    LPN %llu: ftl says mapped=%d writes=%u, model %d / %u\n",
                    (unsigned long long)lpn, ftl_lpn_is_mapped(ftl, lpn),
                    ftl_lpn_write_count(ftl, lpn), sh->mapped[lpn], sh->writes[lpn]);
            return -1;
        }
    }
    return 0;
}

static void run(struct ftl_config cfg, uint64_t ops, uint64_t seed)
{
    struct ftl *ftl = make_ftl(&cfg);
    const struct ftl_geometry *geo = ftl_geometry_of(ftl);
    uint64_t spp = cfg.secs_per_pg, cap = geo->logical_sectors, logical = geo->logical_pages;
    struct shadow sh = { calloc(logical, sizeof(bool)), calloc(logical, sizeof(uint32_t)) };
    struct rng rng;
    rng_seed(&rng, seed);
    uint64_t now = 0, done, unexpected = 0, mismatches = 0;
    /* Writes favour a hot eighth of the space half the time, so lines age unevenly. */
    uint64_t hot = logical / 8 ? logical / 8 : 1;

    for (uint64_t i = 0; i < ops; i++) {
        uint64_t kind = rng_below(&rng, 100);
        uint64_t nlb = 1 + rng_below(&rng, 8 * spp);
        uint64_t base = rng_below(&rng, 2) ? rng_below(&rng, hot * spp) : rng_below(&rng, cap);
        uint64_t slba = base + nlb <= cap ? base : cap - nlb;
        struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb,
                             .stream = (uint32_t)rng_below(&rng, geo->write_pointers) };
        now += rng_below(&rng, 300000);
        int rc;
        if (kind < 60) {
            rc = ftl_write(ftl, &io, &done);
            for (uint64_t lpn = slba / spp; rc == FTL_OK && lpn <= (slba + nlb - 1) / spp; lpn++) {
                sh.mapped[lpn] = true;
                sh.writes[lpn]++;
            }
        } else if (kind < 85) {
            rc = ftl_read(ftl, &io, &done);
        } else if (kind < 93) {
            rc = ftl_trim(ftl, &io, &done);
            for (uint64_t lpn = (slba + spp - 1) / spp; lpn < (slba + nlb) / spp; lpn++) {
                sh.mapped[lpn] = false;
            }
        } else if (kind < 98) {
            rc = ftl_background_gc(ftl, now) < 0 ? -1 : FTL_OK;
        } else {
            io.slba = cap - nlb + 1 + rng_below(&rng, 4 * spp);  /* crosses the end */
            rc = ftl_write(ftl, &io, &done) == FTL_E_RANGE ? FTL_OK : -1;
        }
        unexpected += rc != FTL_OK;
        if (kind < 85 && rc == FTL_OK && done < io.now_ns) {
            unexpected++;  /* completion before submission */
        }
        if (i % 25000 == 24999 || i == ops - 1) {
            CHECK_CONSISTENT(ftl);
            mismatches += compare_with_shadow(ftl, &sh) != 0;
        }
    }
    CHECK_EQ_U64(unexpected, 0);
    CHECK_EQ_U64(mismatches, 0);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK(c.gc_runs > 0);  /* the runs are long enough that GC is part of what is tested */
    printf("  %-8s %llu ops: %llu GC runs, WAF %.2f\n", ftl_placement_name(cfg.placement),
           (unsigned long long)ops, (unsigned long long)c.gc_runs,
           (double)(c.nand_user_programs + c.nand_gc_programs) / (double)c.nand_user_programs);
    free(sh.mapped);
    free(sh.writes);
    ftl_destroy(ftl);
}

int main(void)
{
    uint64_t total = 0;
    struct ftl_config cfg = small_config(2, 2, 64, 64, 1);      /* 512-byte pages */
    run(cfg, 300000, 11), total += 300000;
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 2;
    run(cfg, 250000, 12), total += 250000;

    cfg = small_config(4, 2, 48, 16, 2);                        /* 1 KiB pages */
    cfg.gc_thres_pcent = 60;
    cfg.gc_thres_pcent_high = 90;
    cfg.ch_xfer_lat = 5000;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    run(cfg, 250000, 13), total += 250000;
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 3;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    run(cfg, 250000, 14), total += 250000;

    CHECK(total >= 1000000);
    return check_summary();
}
