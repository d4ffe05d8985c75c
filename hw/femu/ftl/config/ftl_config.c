/* FTL configuration: the defaults, one key's value set and read, and validation, which
 * runs each concern's cross-checks (config_keys_*.c, beside their keys) in one order. */
#include "femu_ftl/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_checks.h"
#include "config/config_keys.h"
#include "femu_ftl/error.h"

void ftl_config_defaults(struct ftl_config *cfg)
{
    *cfg = (struct ftl_config){
        .secsz = 512, .secs_per_pg = 8, .pgs_per_blk = 256, .blks_per_pl = 256,
        .pls_per_lun = 1, .luns_per_ch = 8, .nchs = 8, .devsz_mb = 12288,
        .pg_rd_lat = 40000, .pg_wr_lat = 200000, .blk_er_lat = 2000000, .ch_xfer_lat = 0,
        .gc_thres_pcent = 75, .gc_thres_pcent_high = 95, .gc_mode = FTL_GC_PACED,
        .gc_policy = FTL_GC_GREEDY, .gc_dchoice_d = 2, .gc_unit = FTL_GC_UNIT_LINE,
        .placement = FTL_PLACEMENT_SINGLE, .hot_threshold = 0, .nstreams = 2,
        .gc_scope = FTL_GC_SCOPE_GLOBAL, .fdp_ruhs = 8, .fdp_ruh_type = FTL_RUH_PERSISTENT,
        .fdp_ru_time_limit_s = 0, .fdp_ru_size = 0, .fdp_nrg = 1,
        .pe_cycles = 3000, .read_uncor_ppm = 0, .fault_seed = 1, .bad_blk_pcent = 0,
        .read_retry_lat = 0, .read_retry_pe_step = 0, .read_retry_age_s = 0,
        .read_retry_max = 8,
        .mapping = FTL_MAPPING_PAGE, .cmt_entries = 65536,
        .log_blocks = 8,
        .write_buffer_sectors = 0, .buf_wr_lat = 1000, .buf_flush_pcent = 100,
        .read_cache_pages = 0, .read_cache_policy = FTL_RCACHE_LRU, .read_cache_lat = 453,
        .dram_mb = 0,
        .kv_index_cache_pages = 256, .kv_op_pct = 10, .kv_max_value = 65536,
        .kv_max_keys = 0, .kv_segment_pages = 0,
        .pcie_gen = 0, .pcie_lanes = 4, .pcie_mps = 256, .ctrl_cores = 0,
        /* one operational state: QEMU's own NVMe controller reports 25 W, 16 us entry
         * and 4 us exit latency; the 5 W idle power is femu's guess (a drive of that
         * class idles at a fifth of its maximum), ACTP not reported */
        .ps_count = 1,
        .ps[0] = { .max_mw = 25000, .idle_mw = 5000, .active_mw = 0, .enlat_us = 16,
                   .exlat_us = 4, .nonop = 0, .perf_pcent = 100 },
    };
}

/* Enum fields are int-sized; the key table reaches them by offset. */
_Static_assert(sizeof(enum ftl_placement) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_mode) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_policy) == sizeof(unsigned) &&
               sizeof(enum ftl_mapping) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_unit) == sizeof(unsigned) &&
               sizeof(enum ftl_gc_scope) == sizeof(unsigned) &&
               sizeof(enum ftl_ruh_type) == sizeof(unsigned) &&
               sizeof(enum ftl_slc_when_full) == sizeof(unsigned) &&
               sizeof(enum ftl_read_cache_policy) == sizeof(unsigned),
               "enum keys are unsigned-sized");

static unsigned named_get(const struct ftl_config *cfg, const struct config_key *k)
{
    return *(const unsigned *)((const char *)cfg + k->offset);
}

/* Decimal digits only: no sign, no spaces, no trailing text. */
static bool parse_uint(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

/* Digits with an optional K, M or G suffix (binary, either case): a size in bytes. */
static bool parse_bytes(const char *text, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9') {
        return false;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE) {
        return false;
    }
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift))) {
        return false;
    }
    *out = (uint64_t)v << shift;
    return true;
}

/* The key's own bounds; `name` is the spelling the user wrote (ssd_size or devsz_mb). */
static int check_range(const struct config_key *k, const char *name, uint64_t v, char *err,
                       size_t errlen)
{
    if (v < k->min || v > k->max) {
        return ftl_error(err, errlen, "%s: %" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64
                         "]", name, v, k->min, k->max);
    }
    return 0;
}

int ftl_config_set(struct ftl_config *cfg, const char *key, const char *value,
                   char *err, size_t errlen)
{
    const struct config_key *k = config_key_find(key);
    if (!k) {
        return ftl_error(err, errlen, "%s: unknown key", key);
    }
    if (k->kind == KEY_NAMED) {
        char choices[128] = "";
        for (unsigned i = 0; i <= k->max; i++) {
            if (strcmp(value, k->names[i]) == 0) {
                *(unsigned *)((char *)cfg + k->offset) = i;
                return 0;
            }
            size_t used = strlen(choices);
            snprintf(choices + used, sizeof(choices) - used, "%s%s", i ? ", " : "", k->names[i]);
        }
        return ftl_error(err, errlen, "%s: '%s' is not one of %s", key, value, choices);
    }
    uint64_t v;
    if (k->kind == KEY_SWITCH) {
        if (!strcmp(value, "on") || !strcmp(value, "1")) {
            v = 1;
        } else if (!strcmp(value, "off") || !strcmp(value, "0")) {
            v = 0;
        } else {
            return ftl_error(err, errlen, "%s: '%s' is not one of off, on, 0, 1", key, value);
        }
    } else if (k->kind == KEY_BYTES) {
        if (!parse_bytes(value, &v)) {
            return ftl_error(err, errlen, "%s: '%s' is not a size in bytes (digits, then "
                             "optionally K, M or G)", key, value);
        }
    } else if (k->kind == KEY_COUNT && strcmp(value, "off") == 0) {
        v = 0;
    } else if (!parse_uint(value, &v)) {
        return ftl_error(err, errlen, "%s: '%s' is not a non-negative integer%s", key, value,
                         k->kind == KEY_COUNT ? " or off" : "");
    }
    if (check_range(k, key, v, err, errlen)) {
        return -1;
    }
    *(uint64_t *)((char *)cfg + k->offset) = v;
    if (k->offset == offsetof(struct ftl_config, ps_count)) {
        config_power_drop_past_count(cfg);
    }
    return 0;
}

int ftl_config_get(const struct ftl_config *cfg, const char *key, char *buf, size_t buflen)
{
    const struct config_key *k = config_key_find(key);
    if (!k) {
        return -1;
    }
    if (k->kind == KEY_NAMED) {
        unsigned v = named_get(cfg, k);
        snprintf(buf, buflen, "%s", v <= k->max ? k->names[v] : "?");
    } else {
        uint64_t v = *(const uint64_t *)((const char *)cfg + k->offset);
        if (k->kind == KEY_COUNT && v == 0) {
            snprintf(buf, buflen, "off");
        } else {
            snprintf(buf, buflen, "%" PRIu64, v);
        }
    }
    return 0;
}

/* Per-key ranges (a config built in C may bypass ftl_config_set). */
static int check_ranges(const struct ftl_config *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < config_key_count(); i++) {
        const struct config_key *k = config_key_at(i);
        if (k->kind == KEY_NAMED) {
            if (named_get(cfg, k) > k->max) {
                return ftl_error(err, errlen, "%s: unknown value %u", k->name, named_get(cfg, k));
            }
            continue;
        }
        uint64_t v = *(const uint64_t *)((const char *)cfg + k->offset);
        if (check_range(k, k->name, v, err, errlen)) {
            return -1;
        }
    }
    if (config_check_flash(cfg, err, errlen) || config_check_read_retry(cfg, err, errlen) ||
        config_check_placement(cfg, err, errlen) || config_check_gc(cfg, err, errlen) ||
        config_check_front(cfg, err, errlen) || config_check_energy(cfg, err, errlen)) {
        return -1;
    }
    if (config_check_power(cfg, err, errlen)) {
        return -1;
    }
    return 0;
}

int ftl_config_validate(const struct ftl_config *cfg, struct ftl_geometry *geo,
                        char *err, size_t errlen)
{
    struct ftl_geometry g;
    if (check_ranges(cfg, err, errlen) || config_derive_layout(cfg, &g, err, errlen)) {
        return -1;
    }
    uint64_t logical_bytes = cfg->devsz_mb * MIB;  /* devsz_mb capped at UINT64_MAX / MIB */
    if (logical_bytes % g.page_bytes) {
        return ftl_error(err, errlen, "devsz_mb: %" PRIu64 " MiB is not a whole number of %" PRIu64
                    "-byte pages", cfg->devsz_mb, g.page_bytes);
    }
    g.logical_pages = logical_bytes / g.page_bytes;
    if (config_check_mapping(cfg, &g, err, errlen)) {
        return -1;
    }
    if (config_check_capacity(cfg, &g, err, errlen)) {
        return -1;
    }
    g.logical_sectors = g.logical_pages * cfg->secs_per_pg;
    if (config_check_write_buffer(cfg, &g, err, errlen) || config_check_fdp(cfg, &g, err, errlen) ||
        config_check_read_cache(cfg, &g, err, errlen) || config_check_kv(cfg, &g, err, errlen)) {
        return -1;
    }
    if (geo) {
        *geo = g;
    }
    return 0;
}

uint64_t ftl_config_max_devsz_mb(const struct ftl_config *cfg)
{
    struct ftl_geometry g;
    char err[8];
    if (check_ranges(cfg, err, sizeof(err)) || config_derive_layout(cfg, &g, err, sizeof(err))) {
        return 0;
    }
    uint64_t limit = config_max_logical_pages(&g, g.good_pages);
    if (ftl_mapping_is_hybrid(cfg->mapping)) {
        /* a data block per logical block beside the log blocks and the spare */
        uint64_t spare = config_hybrid_units_needed(cfg, 0);
        uint64_t good = g.good_pages / cfg->pgs_per_blk;
        limit = good > spare ? (good - spare) * cfg->pgs_per_blk : 0;
    }
    if (limit >= g.phys_pages) {
        limit = g.phys_pages - 1;
    }
    /* Largest MiB count that is a whole number of pages and fits the limit: a few steps
     * down from the page limit at most (page_bytes / gcd(page_bytes, MiB) of them). */
    uint64_t mib = limit * g.page_bytes / MIB;
    for (uint64_t tries = 0; mib > 0 && tries <= g.page_bytes; mib--, tries++) {
        struct ftl_config probe = *cfg;
        probe.devsz_mb = mib;
        if (ftl_config_validate(&probe, NULL, err, sizeof(err)) == 0) {
            return mib;
        }
    }
    return 0;
}
