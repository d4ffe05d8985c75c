/* What callers can observe of an FTL: status names, its configuration, counters, gauges,
 * wear, per-LPN facts, metadata sizes and the GC victims' histogram. */
#include "femu_ftl/ftl.h"

#include "femu_ftl/zns.h"
#include "config/config_checks.h"
#include "flash/slc.h"
#include "flash/timing.h"
#include "gc/slc_fold.h"
#include "hostio/inflight.h"
#include "map/dftl.h"
#include "map/hybrid.h"
#include "map/page_map.h"
#include "place/write_count.h"
#include "rcache/read_cache.h"
#include "wbuf/write_buffer.h"
#include "zns/zns.h"

const char *ftl_status_str(int status)
{
    switch (status) {
    case FTL_OK: return "ok";
    case FTL_E_RANGE: return "LBA range outside the logical capacity";
    case FTL_E_NOSPC: return "no free line could be reclaimed";
    case FTL_E_INVAL: return "malformed request";
    case FTL_E_NOMEM: return "out of memory";
    case FTL_E_UNCORRECTABLE: return "unrecovered read error";
    case FTL_E_ZONE_BOUNDARY: return "zone boundary error";
    case FTL_E_ZONE_FULL: return "zone is full";
    case FTL_E_ZONE_READ_ONLY: return "zone is read only";
    case FTL_E_ZONE_OFFLINE: return "zone is offline";
    case FTL_E_ZONE_INVALID_WRITE: return "zone invalid write";
    case FTL_E_TOO_MANY_ACTIVE: return "too many active zones";
    case FTL_E_TOO_MANY_OPEN: return "too many open zones";
    case FTL_E_ZONE_TRANSITION: return "invalid zone state transition";
    case FTL_E_KV_NO_KEY: return "key does not exist";
    case FTL_E_KV_KEY_EXISTS: return "key exists";
    case FTL_E_KV_CAPACITY: return "capacity exceeded";
    case FTL_E_KV_VALUE_SIZE: return "invalid value size";
    case FTL_E_KV_KEY_SIZE: return "invalid key size";
    case FTL_E_ZONE_INVALID_OP: return "invalid zone operation request";
    case FTL_E_ZRWA_UNAVAILABLE: return "zone random write area resources unavailable";
    default: return "unknown status";
    }
}

const struct ftl_config *ftl_config_of(const struct ftl *ftl)
{
    return &ftl->cfg;
}

const struct ftl_geometry *ftl_geometry_of(const struct ftl *ftl)
{
    return &ftl->geo;
}

uint64_t ftl_read_error_lpn(const struct ftl *ftl)
{
    return ftl->read_error_lpn;
}

uint64_t ftl_buffered_sectors(const struct ftl *ftl)
{
    return ftl->wbuf ? wbuf_sectors(ftl) : 0;
}

uint64_t ftl_lpn_buffered_mask(const struct ftl *ftl, uint64_t lpn)
{
    return ftl->wbuf && lpn < ftl->geo.logical_pages ? wbuf_mask(ftl, (uint32_t)lpn) : 0;
}

void ftl_get_counters(const struct ftl *ftl, struct ftl_counters *out)
{
    *out = ftl->ctr;
}

uint64_t ftl_waf_programs(const struct ftl_counters *before, const struct ftl_counters *after,
                          uint64_t programs[FTL_WAF_PARTS])
{
#define DIFF(field) (after->field - before->field)
    programs[FTL_WAF_HOST] = DIFF(nand_user_programs);
    programs[FTL_WAF_GC] = DIFF(nand_gc_programs) + DIFF(fallback_pages);
    programs[FTL_WAF_FOLD] = DIFF(slc_folded_pages);    /* a folded page is programmed again */
    programs[FTL_WAF_MAP] = DIFF(map_writes) + DIFF(map_gc_moved_pages);
    programs[FTL_WAF_COPY] = DIFF(nand_copy_programs) + DIFF(nand_copybacks);
    /* Copy's destination pages are pages the host asked for; its programs and copybacks
     * are flash programs (zone writes are in neither: zones have no device GC). */
    return DIFF(host_write_pages) + DIFF(copy_pages);
#undef DIFF
}

bool ftl_waf(const struct ftl_counters *before, const struct ftl_counters *after,
             double *waf)
{
    uint64_t programs[FTL_WAF_PARTS], all = 0;
    uint64_t host = ftl_waf_programs(before, after, programs);
    if (host == 0) {
        return false;
    }
    for (int i = 0; i < FTL_WAF_PARTS; i++) {
        all += programs[i];
    }
    *waf = (double)all / (double)host;
    return true;
}

void ftl_get_gauges(const struct ftl *ftl, struct ftl_gauges *out)
{
    uint64_t open_free = 0;
    uint32_t open = 0;
    for (uint32_t i = 0; i <= MAP_WP; i++) {
        if (ftl->wps[i].line != NO_LINE) {
            /* Every page programmed in it is valid or invalid; bad blocks hold none. */
            const struct line *l = &ftl->lines[ftl->wps[i].line];
            open++;
            open_free += l->capacity - l->valid - l->invalid;
        }
    }
    *out = (struct ftl_gauges){
        .free_lines = ftl->free_count,
        .victim_lines = ftl->victim_count,
        .full_lines = ftl->full_count,
        .open_lines = open,
        .valid_pages = ftl->valid_pages,
        .free_pages = ftl->free_pages + open_free,
        .max_written_lpn_plus_one = ftl->max_lpn_plus_one,
        .hot_pages = ftl->hot_pages,
        .buf_pending_pages = ftl->wbuf ? wbuf_pages(ftl) : 0,
        .kv_keys = ftl->kv_keys,
        .kv_live_bytes = ftl->kv_live_bytes,
    };
    if (ftl->cfg.slc_cache) {
        out->slc_cap_pages = slc_capacity_pages(ftl);
        out->slc_used_pages = slc_used_pages(ftl);
        if (ftl->slc_wp.line != NO_LINE) {
            const struct line *l = &ftl->lines[ftl->slc_wp.line];
            out->open_lines++;
            out->free_pages += slc_unit_capacity(ftl, ftl->slc_wp.line) - l->valid - l->invalid;
        }
    }
}

void ftl_get_wear(const struct ftl *ftl, struct ftl_wear *out)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint64_t bad = g->blocks - ftl->good_blocks;
    /* Blocks the logical capacity fills when every page holds data, and the zones'. */
    uint64_t needed = (g->logical_pages + ftl->cfg.pgs_per_blk - 1) / ftl->cfg.pgs_per_blk +
                      ftl_zone_count(ftl) * g->zone_luns * g->zone_blocks_per_lun;
    uint64_t spare_total = g->blocks > needed ? g->blocks - needed : 0;

    *out = (struct ftl_wear){
        .blocks = g->blocks,
        .bad_blocks = bad,
        .spare_blocks = spare_total > bad ? spare_total - bad : 0,
        .spare_blocks_total = spare_total,
        .erase_min = ftl->erase_min,
        .erase_max = ftl->erase_max,
        .erase_sum = ftl->erase_sum,
        .pe_cycles = ftl->cfg.pe_cycles,
    };
}

unsigned ftl_write_pointer_count(const struct ftl *ftl)
{
    return ftl->nwps;
}

uint32_t ftl_lpn_write_count(const struct ftl *ftl, uint64_t lpn)
{
    return lpn < ftl->geo.logical_pages ? wc_get(ftl, (uint32_t)lpn) : 0;
}

bool ftl_lpn_is_mapped(const struct ftl *ftl, uint64_t lpn)
{
    return lpn < ftl->geo.logical_pages && l2p_get(ftl, lpn) != L2P_UNMAPPED;
}

size_t ftl_metadata_bytes(const struct ftl *ftl)
{
    const struct ftl_geometry *g = &ftl->geo;
    return sizeof(*ftl) + g->logical_pages * (sizeof(uint32_t) + sizeof(uint16_t)) +
           ftl->mapped_words * sizeof(uint64_t) + ftl->wc_nslots * sizeof(struct wc_slot) +
           g->phys_pages * sizeof(uint32_t) + g->blocks * sizeof(struct block) +
           (g->blocks + 63) / 64 * sizeof(uint64_t) +
           g->units * (sizeof(struct line) + 3 * sizeof(uint32_t)) +
           3 * (uint64_t)ftl->npools * sizeof(uint32_t) +
           (g->luns + ftl->nchs) * sizeof(uint64_t) + g->luns * sizeof(uint32_t) +
           2 * (g->pgs_per_unit + 1) * sizeof(uint64_t) +
           (ftl->dftl ? dftl_metadata_bytes(ftl) : 0) +
           (ftl->wbuf ? wbuf_metadata_bytes(ftl) : 0) +
           (ftl->rcache ? rcache_bytes(ftl->rcache) : 0) +
           (ftl->zns ? zns_metadata_bytes(ftl) : 0) + busy_metadata_bytes(ftl) +
           (ftl->hybrid ? hybrid_metadata_bytes(ftl) : 0) +
           inflight_metadata_bytes(ftl) + ftl->kv_host_bytes;
}

uint64_t ftl_device_map_bytes(const struct ftl *ftl)
{
    return config_device_map_bytes(&ftl->cfg, &ftl->geo);
}

const uint64_t *ftl_victim_histogram(const struct ftl *ftl, bool map, size_t *n)
{
    *n = ftl->geo.pgs_per_unit + 1;
    return ftl->victim_hist[map];
}

void ftl_set_unit_observer(struct ftl *ftl, ftl_unit_observer observer, void *ctx)
{
    ftl->unit_observer = observer;
    ftl->unit_observer_ctx = ctx;
}

uint64_t ftl_nand_reads(const struct ftl_counters *c)
{
    /* GC's three kinds each read and program a moved page */
    return c->nand_user_reads + c->nand_gc_reads + c->map_gc_moved_pages + c->fallback_pages +
           c->map_reads + c->buf_fill_reads + c->zone_reads + c->nand_copy_reads +
           c->slc_folded_pages;
}

uint64_t ftl_nand_programs(const struct ftl_counters *c)
{
    return c->nand_user_programs + c->nand_gc_programs + c->map_writes +
           c->map_gc_moved_pages + c->fallback_pages + c->zone_programs +
           c->nand_copy_programs + c->slc_folded_pages;
}

const uint64_t *ftl_read_retry_histogram(const struct ftl *ftl, size_t *n)
{
    *n = ftl->cfg.read_retry_max + 1;
    return ftl->retry_hist;
}
