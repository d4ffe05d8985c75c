/*
 * FTL throughput benchmark (prints figures, asserts nothing): steady-state random 4 KiB
 * host page writes per second on one core with GC running, and metadata per page.
 * usage: ftl-bench CONFIG [devsz_mb]   (a conf file, or "64g" for a 64 GiB geometry)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "femu_ftl/ftl.h"
#include "rng.h"

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void random_writes(struct ftl *ftl, struct rng *rng, uint64_t count, uint64_t *now)
{
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages;
    uint64_t spp = ftl_config_of(ftl)->secs_per_pg;
    for (uint64_t i = 0; i < count; i++) {
        struct ftl_io io = { .now_ns = *now, .slba = rng_below(rng, logical) * spp, .nlb = spp };
        uint64_t done;
        if (ftl_write(ftl, &io, &done) != FTL_OK) {
            fprintf(stderr, "ftl-bench: write failed\n");
            exit(1);
        }
        ftl_background_gc(ftl, *now);
        *now += 1000;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ftl-bench CONFIG|64g [devsz_mb] [key=value]...\n");
        return 2;
    }
    struct ftl_config cfg;
    char err[512];
    ftl_config_defaults(&cfg);
    const char *name = argv[1];
    if (strcmp(name, "64g") == 0) {
        cfg.blks_per_pl = 1024;           /* 8 ch x 8 LUN x 1024 blk x 256 pg x 4 KiB */
        cfg.devsz_mb = 48 * 1024;         /* 25% of raw held back, as the lab configs */
    } else if (ftl_config_load_file(&cfg, name, err, sizeof(err))) {
        fprintf(stderr, "ftl-bench: %s\n", err);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        if (!eq) {
            cfg.devsz_mb = strtoull(argv[i], NULL, 10);
            continue;
        }
        snprintf(key, sizeof(key), "%.*s", (int)(eq - argv[i]), argv[i]);
        if (ftl_config_set(&cfg, key, eq + 1, err, sizeof(err))) {
            fprintf(stderr, "ftl-bench: %s\n", err);
            return 2;
        }
    }
    struct ftl *ftl = ftl_create(&cfg, err, sizeof(err));
    if (!ftl) {
        fprintf(stderr, "ftl-bench: %s\n", err);
        return 2;
    }
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    struct rng rng;
    rng_seed(&rng, 7);
    uint64_t now = 0, logical = g->logical_pages;
    for (uint64_t lpn = 0; lpn < logical; lpn++) {   /* fill, then reach steady state */
        struct ftl_io io = { .now_ns = now, .slba = lpn * cfg.secs_per_pg, .nlb = cfg.secs_per_pg };
        uint64_t done;
        ftl_write(ftl, &io, &done);
    }
    random_writes(ftl, &rng, 2 * logical, &now);

    struct ftl_counters a, b;
    ftl_get_counters(ftl, &a);
    uint64_t count = 4 * logical > 20000000 ? 4 * logical : 20000000;  /* >= ~2 s measured */
    double t0 = wall_seconds();
    random_writes(ftl, &rng, count, &now);
    double secs = wall_seconds() - t0;
    ftl_get_counters(ftl, &b);

    double host = (double)(b.host_write_pages - a.host_write_pages);
    double waf = 0.0;
    ftl_waf(&a, &b, &waf);
    printf("%s (mapping=%s, write_buffer_sectors=%llu): %.0f MiB raw, %.0f MiB logical, "
           "%llu lines\n", name, ftl_mapping_name(cfg.mapping),
           (unsigned long long)cfg.write_buffer_sectors,
           (double)(g->phys_pages * g->page_bytes) / 1048576.0,
           (double)(g->logical_pages * g->page_bytes) / 1048576.0,
           (unsigned long long)g->lines);
    printf("  steady-state random 4 KiB writes: %.2f M host page writes/s, "
           "%.2f M flash programs/s (WAF %.2f, %.1f s for %llu writes)\n",
           host / secs / 1e6, host * waf / secs / 1e6, waf, secs, (unsigned long long)count);
    if (cfg.mapping == FTL_MAPPING_DFTL) {
        uint64_t lookups = (b.cmt_hits - a.cmt_hits) + (b.cmt_misses - a.cmt_misses);
        printf("  dftl: CMT hit rate %.2f%%, %.3f map reads and %.3f map writes per host "
               "page\n", lookups ? 100.0 * (double)(b.cmt_hits - a.cmt_hits) / lookups : 0.0,
               (double)(b.map_reads - a.map_reads) / host,
               (double)(b.map_writes - a.map_writes) / host);
    }
    printf("  metadata: %.2f bytes per physical page (%.2f besides the per-LPN counter), "
           "%.1f MiB in all\n",
           (double)ftl_metadata_bytes(ftl) / (double)g->phys_pages,
           (double)(ftl_metadata_bytes(ftl) - logical * 2) / (double)g->phys_pages,
           (double)ftl_metadata_bytes(ftl) / 1048576.0);
    printf("  the modelled SSD's DRAM map: %.3f bytes per physical page (%.2f MiB)\n",
           (double)ftl_device_map_bytes(ftl) / (double)g->phys_pages,
           (double)ftl_device_map_bytes(ftl) / 1048576.0);
    ftl_destroy(ftl);
    return 0;
}
