/* Helpers shared by the FTL unit tests: small geometries and page-granular I/O. */
#ifndef FTL_TEST_UTIL_H
#define FTL_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "femu_ftl/ftl.h"

/* A small geometry: nchs x luns x blks lines x pgs pages, pages of secs_per_pg 512-byte
 * sectors; the logical size is the largest the GC reserve allows unless set later. */
static inline struct ftl_config small_config(uint64_t nchs, uint64_t luns_per_ch,
                                             uint64_t blks, uint64_t pgs,
                                             uint64_t secs_per_pg)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    cfg.nchs = nchs;
    cfg.luns_per_ch = luns_per_ch;
    cfg.blks_per_pl = blks;
    cfg.pgs_per_blk = pgs;
    cfg.secs_per_pg = secs_per_pg;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

static inline struct ftl *make_ftl(const struct ftl_config *cfg)
{
    char err[256] = "";
    struct ftl *ftl = ftl_create(cfg, err, sizeof(err));
    if (!ftl) {
        fprintf(stderr, "ftl_create failed: %s\n", err);
        exit(1);
    }
    return ftl;
}

/* Page-granular I/O: lpn and npages in flash pages. */
static inline struct ftl_io page_io(const struct ftl *ftl, uint64_t now, uint64_t lpn,
                                    uint64_t npages, uint32_t stream)
{
    uint64_t spp = ftl_config_of(ftl)->secs_per_pg;
    return (struct ftl_io){ .now_ns = now, .slba = lpn * spp, .nlb = npages * spp,
                            .stream = stream };
}

static inline int write_pages(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t npages,
                              uint64_t *done)
{
    struct ftl_io io = page_io(ftl, now, lpn, npages, 0);
    uint64_t ignored;
    return ftl_write(ftl, &io, done ? done : &ignored);
}

static inline int read_pages(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t npages,
                             uint64_t *done)
{
    struct ftl_io io = page_io(ftl, now, lpn, npages, 0);
    uint64_t ignored;
    return ftl_read(ftl, &io, done ? done : &ignored);
}

#define CHECK_CONSISTENT(ftl) do { \
        char check_err_[256] = ""; \
        if (!check_record(ftl_check((ftl), check_err_, sizeof(check_err_)) == 0, \
                          __FILE__, __LINE__, "ftl_check")) \
            fprintf(stderr, "    %s\n", check_err_); \
    } while (0)

/* A randomized run's model of which pages hold data: a trim or format of sectors
 * [slba, slba + nlb) takes it from the pages wholly inside (a format is page-aligned). */
static inline void forget_pages(bool *has_data, uint64_t slba, uint64_t nlb, uint64_t spp)
{
    for (uint64_t p = (slba + spp - 1) / spp; p < (slba + nlb) / spp; p++) {
        has_data[p] = false;
    }
}

/* ftl_check after request i of a randomized run: counts the requests that left the FTL
 * inconsistent, and prints only the first (the rest usually follow from it). */
static inline void check_after_request(const struct ftl *ftl, uint64_t i,
                                       uint64_t *inconsistent)
{
    char err[256] = "";
    if (ftl_check(ftl, err, sizeof(err)) != 0 && (*inconsistent)++ == 0) {
        fprintf(stderr, "    request %llu: %s\n", (unsigned long long)i, err);
    }
}

/* The FTL's counters now, as a value. */
static inline struct ftl_counters counters(const struct ftl *ftl)
{
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    return c;
}

/* The counters a state file keeps: the power states' (the engine's, counted from its first
 * time) cleared. */
static inline struct ftl_counters counters_kept(const struct ftl *ftl)
{
    struct ftl_counters c = counters(ftl);
    memset(c.ps_time_ns, 0, sizeof(c.ps_time_ns));
    c.ps_transitions = c.ps_exits = c.ps_exit_wait_ns = 0;
    return c;
}

static inline double counters_waf(const struct ftl_counters *a, const struct ftl_counters *b)
{
    double host = (double)(b->nand_user_programs - a->nand_user_programs);
    double gc = (double)(b->nand_gc_programs - a->nand_gc_programs);
    return host > 0 ? (host + gc) / host : 0.0;
}

#endif
