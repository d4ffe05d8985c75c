/* The FTL handle: creation and the host commands (read, write, trim, verify, format,
 * flush). What callers can observe of it is in ftl_query.c. */
#include "femu_ftl/ftl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/max_u64.h"
#include "config/config_checks.h"
#include "flash/debt.h"
#include "flash/erase.h"
#include "flash/fault.h"
#include "flash/line_lists.h"
#include "flash/timing.h"
#include "hostio/host_page.h"
#include "hostio/inflight.h"
#include "map/dftl.h"
#include "map/hybrid.h"
#include "map/hybrid_write.h"
#include "map/page_map.h"
#include "place/placement.h"
#include "place/heat.h"
#include "place/write_count.h"
#include "rcache/read_cache.h"
#include "wbuf/write_buffer.h"
#include "zns/zns.h"

static void *alloc_array(uint64_t count, size_t size)
{
    return count ? calloc(count, size) : NULL;
}

static bool alloc_victim_hist(struct ftl *ftl)
{
    for (int i = 0; i < 2; i++) {
        ftl->victim_hist[i] = alloc_array(ftl->geo.pgs_per_unit + 1, sizeof(uint64_t));
        if (!ftl->victim_hist[i]) {
            return false;
        }
    }
    return true;
}

/* The hybrid map's tables, once the bad blocks are drawn: the free blocks must hold the
 * logical blocks, the log blocks and a spare. */
static int hybrid_create(struct ftl *ftl, char *err, size_t errlen)
{
    if (config_check_hybrid_room(&ftl->cfg, ftl->geo.logical_pages, ftl->free_count,
                                 err, errlen)) {
        return -1;
    }
    if (hybrid_init(ftl) != FTL_OK) {
        snprintf(err, errlen, "out of memory for the %s map's tables",
                 ftl_mapping_name(ftl->cfg.mapping));
        return -1;
    }
    return 0;
}

struct ftl *ftl_create(const struct ftl_config *cfg, char *err, size_t errlen)
{
    struct ftl_geometry geo;
    if (ftl_config_validate(cfg, &geo, err, errlen)) {
        return NULL;
    }
    struct ftl *ftl = calloc(1, sizeof(*ftl));
    if (!ftl) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ftl->cfg = *cfg;
    ftl->geo = geo;
    ftl->pgs_per_line = (uint32_t)geo.pgs_per_unit;
    ftl->nunits = (uint32_t)geo.units;
    ftl->block_mode = cfg->gc_unit == FTL_GC_UNIT_BLOCK;
    ftl->line_luns = ftl->block_mode ? 1 : (uint32_t)geo.luns;
    ftl->npools = ftl->block_mode ? (uint32_t)geo.luns : 1;
    ftl->pool_cap = ftl->nunits / ftl->npools;
    ftl->luns = (uint32_t)geo.luns;
    ftl->nchs = (uint32_t)cfg->nchs;
    ftl->secs_per_pg = (uint32_t)cfg->secs_per_pg;
    ftl->nwps = (uint32_t)geo.write_pointers;
    if ((ftl->pgs_per_line & (ftl->pgs_per_line - 1)) == 0 && ftl->pgs_per_line > 1) {
        ftl->line_shift = (uint32_t)__builtin_ctz(ftl->pgs_per_line);
    }
    if ((ftl->luns & (ftl->luns - 1)) == 0 && ftl->luns > 1) {
        ftl->lun_mask = ftl->luns - 1;
    }

    /* The per-page arrays read as unmapped / erased / never written when zero, so calloc
     * is their whole initialisation: large blocks come straight from mmap, and their
     * memory is committed page by page as the device is written, not at start. */
    ftl->l2p_plus1 = alloc_array(geo.logical_pages, sizeof(uint32_t));
    ftl->p2l_plus1 = alloc_array(geo.phys_pages, sizeof(uint32_t));
    ftl->mapped_words = (geo.logical_pages + 63) / 64;
    ftl->mapped_bits = alloc_array(ftl->mapped_words, sizeof(uint64_t));
    ftl->write_count16 = alloc_array(geo.logical_pages, sizeof(uint16_t));
    ftl->blocks = alloc_array(geo.blocks, sizeof(struct block));
    ftl->bad_bits = alloc_array((geo.blocks + 63) / 64, sizeof(uint64_t));
    ftl->lines = alloc_array(geo.units, sizeof(struct line));
    ftl->free_queue = alloc_array(geo.units, sizeof(uint32_t));
    ftl->pool_head = alloc_array(ftl->npools, sizeof(uint32_t));
    ftl->pool_count = alloc_array(ftl->npools, sizeof(uint32_t));
    ftl->heap_count = alloc_array(ftl->npools, sizeof(uint32_t));
    ftl->victim_heap = alloc_array(geo.units, sizeof(uint32_t));
    ftl->gc_scratch = alloc_array(2 * geo.units, sizeof(uint32_t));  /* gc_policy.c */
    ftl->lun_avail_ns = alloc_array(geo.luns, sizeof(uint64_t));
    ftl->ch_avail_ns = alloc_array(cfg->nchs, sizeof(uint64_t));
    ftl->gc_debt = alloc_array(debt_capacity(ftl), sizeof(*ftl->gc_debt));
    ftl->gc_erase_luns = alloc_array(geo.luns, sizeof(uint32_t));
    ftl->gc_lun_cursor = alloc_array(geo.luns, sizeof(uint32_t));
    ftl->lun_busy = alloc_array(geo.luns, sizeof(struct lun_busy));
    ftl->block_programmed_ns = alloc_array(geo.blocks, sizeof(uint64_t));
    ftl->retry_hist = alloc_array((cfg->read_retry_max + 1) * (cfg->read_retry_max + 1),
                                  sizeof(uint64_t));
    if (!ftl->l2p_plus1 || !ftl->p2l_plus1 || !ftl->mapped_bits || !ftl->write_count16 ||
        !ftl->blocks || !ftl->bad_bits || !ftl->lines ||
        !ftl->free_queue || !ftl->pool_head || !ftl->pool_count || !ftl->victim_heap ||
        !ftl->heap_count || !ftl->gc_scratch || !ftl->lun_avail_ns || !ftl->ch_avail_ns ||
        !ftl->gc_debt || !ftl->gc_erase_luns || !ftl->gc_lun_cursor || !ftl->lun_busy ||
        !ftl->block_programmed_ns || !ftl->retry_hist ||
        !alloc_victim_hist(ftl) || !heat_init(ftl) ||
        (cfg->zoned && zns_init(ftl) != FTL_OK) ||
        (cfg->mapping == FTL_MAPPING_DFTL && dftl_init(ftl) != FTL_OK) ||
        (cfg->write_buffer_sectors && wbuf_init(ftl) != FTL_OK) ||
        (cfg->read_cache_pages &&
         !(ftl->rcache = rcache_create(cfg->read_cache_policy,
                                       (uint32_t)cfg->read_cache_pages)))) {
        ftl_destroy(ftl);
        snprintf(err, errlen, "out of memory for %llu physical pages",
                 (unsigned long long)geo.phys_pages);
        return NULL;
    }
    faults_init(ftl);   /* bad blocks first: they set each line's capacity */
    lines_init(ftl);
    if (ftl_mapping_is_hybrid(cfg->mapping) && hybrid_create(ftl, err, errlen)) {
        ftl_destroy(ftl);
        return NULL;
    }
    wear_init(ftl);
    ftl->gc_line = NO_LINE;
    for (uint32_t i = 0; i <= MAP_WP; i++) {
        ftl->wps[i] = (struct write_pointer){ .line = NO_LINE, .offset = 0 };
    }
    ftl->slc_wp = (struct write_pointer){ .line = NO_LINE, .offset = 0 };
    /* SLC pages are the first slc_pgs_per_blk of each block: offsets below this */
    ftl->slc_end = (uint32_t)(geo.slc_pgs_per_blk * ftl->line_luns);
    return ftl;
}

void ftl_destroy(struct ftl *ftl)
{
    if (!ftl) {
        return;
    }
    free(ftl->l2p_plus1);
    free(ftl->p2l_plus1);
    free(ftl->mapped_bits);
    free(ftl->write_count16);
    free(ftl->wc_slots);
    free(ftl->heat);
    free(ftl->blocks);
    free(ftl->bad_bits);
    free(ftl->lines);
    free(ftl->free_queue);
    free(ftl->pool_head);
    free(ftl->pool_count);
    free(ftl->heap_count);
    free(ftl->victim_heap);
    free(ftl->gc_scratch);
    free(ftl->lun_avail_ns);
    free(ftl->ch_avail_ns);
    free(ftl->gc_debt);
    free(ftl->gc_erase_luns);
    free(ftl->gc_lun_cursor);
    free(ftl->block_programmed_ns);
    free(ftl->retry_hist);
    busy_free(ftl);
    inflight_free(ftl);
    zns_free(ftl);
    free(ftl->victim_hist[0]);
    free(ftl->victim_hist[1]);
    if (ftl->dftl) {
        dftl_free(ftl);
    }
    if (ftl->wbuf) {
        wbuf_free(ftl);
    }
    hybrid_free(ftl);
    rcache_destroy(ftl->rcache);
    if (ftl->kv_free) {
        ftl->kv_free(ftl);  /* the key-value stores: kv/ sits above core */
    }
    free(ftl);
}

/* The sector range is non-empty and inside the logical capacity (checked without overflow). */
static int io_check(const struct ftl *ftl, const struct ftl_io *io)
{
    if (io->nlb == 0) {
        return FTL_E_INVAL;
    }
    uint64_t cap = ftl->geo.logical_sectors;
    if (io->nlb > cap || io->slba > cap - io->nlb) {
        return FTL_E_RANGE;
    }
    return FTL_OK;
}

/* Checks the range; pages [*first, *last] are the ones it touches. */
static int io_pages(const struct ftl *ftl, const struct ftl_io *io, uint64_t *first,
                    uint64_t *last)
{
    int rc = io_check(ftl, io);
    if (rc != FTL_OK) {
        return rc;
    }
    *first = io->slba / ftl->secs_per_pg;
    *last = (io->slba + io->nlb - 1) / ftl->secs_per_pg;
    return FTL_OK;
}

/* lpn was read through flash_read_page (failed or not) after the read cache missed it: a
 * miss if it is mapped, and the page cached if it read back (what the host received). */
static void read_cache_missed(struct ftl *ftl, uint32_t lpn, bool failed)
{
    if (l2p_get(ftl, lpn) == L2P_UNMAPPED) {
        return;     /* nothing on flash: neither a hit nor a miss, nothing to cache */
    }
    ftl->ctr.rcache_misses++;
    if (!failed && rcache_insert(ftl->rcache, lpn) != RCACHE_NONE) {
        ftl->ctr.rcache_evictions++;
    }
}

/*
 * The reads of the command's pages from now_ns: a page whose requested sectors are all
 * in the write buffer is served from DRAM; with `cached` (host reads, not verify, which
 * checks the flash) a page in the read cache is too, at read_cache_lat; the others read
 * flash (a partly buffered page merges both), unmapped pages cost nothing. Neither DRAM
 * hit adds a transfer: the buffer's charges buf_wr_lat alone. *done_ns is when the last
 * one ends. Shared by read and verify, so both cost the same and fail alike:
 * FTL_E_UNCORRECTABLE when a page read failed (read_uncor_ppm).
 */
static int read_pages(struct ftl *ftl, const struct ftl_io *io, uint64_t first,
                      uint64_t last, bool cached, uint64_t *done_ns)
{
    uint64_t done = io->now_ns;
    int rc = FTL_OK;
    struct rcache *rcache = cached ? ftl->rcache : NULL;
    for (uint64_t lpn = first; lpn <= last; lpn++) {
        if (ftl->wbuf &&
            wbuf_covers(ftl, (uint32_t)lpn, page_sector_mask(ftl, lpn, io->slba, io->nlb))) {
            ftl->ctr.buf_read_hits++;
            done = max_u64(done, io->now_ns + ftl->cfg.buf_wr_lat);    /* a DRAM access */
            continue;
        }
        if (rcache && rcache_lookup(rcache, (uint32_t)lpn)) {
            ftl->ctr.rcache_hits++;     /* no map lookup, flash read, retry or dice */
            done = max_u64(done, io->now_ns + ftl->cfg.read_cache_lat);
            continue;
        }
        /* Every page of the command is read (and rolls its dice) even after one failed:
         * the flash time is spent either way. The first failure names the page. */
        bool failed = flash_read_page(ftl, (uint32_t)lpn, io->now_ns, &done);
        if (failed && rc == FTL_OK) {
            ftl->read_error_lpn = lpn;
            rc = FTL_E_UNCORRECTABLE;
        }
        if (rcache) {
            read_cache_missed(ftl, (uint32_t)lpn, failed);
        }
    }
    *done_ns = done;
    return rc;
}

int ftl_read(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns)
{
    ftl_note_time(ftl, io->now_ns);
    uint64_t first, last;
    int rc = io_pages(ftl, io, &first, &last);
    if (rc != FTL_OK) {
        return rc;
    }
    rc = read_pages(ftl, io, first, last, true, done_ns);
    ftl->ctr.host_read_cmds++;
    ftl->ctr.host_read_pages += last - first + 1;
    ftl->ctr.host_read_bytes += io->nlb * ftl->cfg.secsz;
    return rc;
}

int ftl_verify(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns)
{
    ftl_note_time(ftl, io->now_ns);
    uint64_t first, last;
    int rc = io_pages(ftl, io, &first, &last);
    if (rc != FTL_OK) {
        return rc;
    }
    ftl->ctr.host_verify_cmds++;
    return read_pages(ftl, io, first, last, false, done_ns);
}

/* The pages of a write that bypasses the buffer (none, the cache off, or FUA), each
 * programmed now: completes when the last program ends. */
static int write_pages_through(struct ftl *ftl, const struct ftl_io *io, uint64_t first,
                               uint64_t last, uint64_t *done_ns)
{
    uint64_t done = io->now_ns;
    int rc = FTL_OK;
    for (uint64_t lpn = first; lpn <= last; lpn++) {
        struct host_page_undo undo;
        if (!host_page_accepted(ftl, (uint32_t)lpn, &undo)) {
            rc = FTL_E_NOMEM;
            break;
        }
        rc = ftl->wbuf ? wbuf_write_through(ftl, (uint32_t)lpn,
                                            page_sector_mask(ftl, lpn, io->slba, io->nlb),
                                            io->stream, io->now_ns, &done)
                       : host_program_page(ftl, (uint32_t)lpn, io->stream, io->now_ns,
                                           io->now_ns, &done);
        if (rc != FTL_OK) {
            host_page_withdrawn(ftl, (uint32_t)lpn, &undo);
            break;
        }
    }
    *done_ns = done;
    return rc;
}

int ftl_write(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns)
{
    uint64_t first, last;
    int rc = io_pages(ftl, io, &first, &last);
    if (rc != FTL_OK) {
        return rc;
    }
    uint32_t handles = placement_host_handles(ftl);
    if (handles && io->stream >= handles) {
        return FTL_E_INVAL;
    }
    ftl_note_time(ftl, io->now_ns);
    if (ftl->rcache) {
        rcache_drop_range(ftl->rcache, first, last + 1);   /* even a page written in part */
    }
    ftl->ctr.host_write_cmds++;
    ftl->ctr.host_write_bytes += io->nlb * ftl->cfg.secsz;
    if (ftl_write_cache_on(ftl) && !io->fua) {
        return wbuf_write(ftl, io, done_ns);
    }
    return write_pages_through(ftl, io, first, last, done_ns);
}

int ftl_flush(struct ftl *ftl, uint64_t now_ns, uint64_t *done_ns)
{
    ftl_note_time(ftl, now_ns);
    ftl->ctr.host_flush_cmds++;
    *done_ns = now_ns;
    return ftl->wbuf ? wbuf_flush_all(ftl, now_ns, done_ns) : FTL_OK;
}

bool ftl_write_cache_on(const struct ftl *ftl)
{
    return ftl->wbuf && !ftl->write_cache_off;
}

int ftl_set_write_cache(struct ftl *ftl, bool on, uint64_t now_ns, uint64_t *done_ns)
{
    ftl_note_time(ftl, now_ns);
    *done_ns = now_ns;
    if (!ftl->wbuf) {
        return on ? FTL_E_INVAL : FTL_OK;   /* no volatile cache to switch on */
    }
    /* Drained before the switch: what was acknowledged from DRAM must not stay there
     * while writes go past it (a read would find older data on flash). */
    int rc = on ? FTL_OK : wbuf_flush_all(ftl, now_ns, done_ns);
    if (rc == FTL_OK) {
        ftl->write_cache_off = !on;
    }
    return rc;
}

/*
 * Unmap every mapped page in [start, end). Unmapped runs are skipped 64 pages at a time
 * through mapped_bits, so this costs the pages it unmaps, not the range it names.
 */
static void unmap_pages(struct ftl *ftl, uint64_t start, uint64_t end)
{
    for (uint64_t lpn = start; lpn < end;) {
        uint64_t word = ftl->mapped_bits[lpn / 64] >> (lpn % 64);
        if (word == 0) {
            lpn = (lpn / 64 + 1) * 64;  /* nothing mapped in the rest of this word */
            continue;
        }
        lpn += (uint64_t)__builtin_ctzll(word);
        if (lpn >= end) {
            break;
        }
        map_invalidate(ftl, l2p_get(ftl, lpn));
        l2p_set(ftl, lpn, L2P_UNMAPPED);
        mapped_clear(ftl, lpn);
        if (ftl->dftl) {
            dftl_note_update(ftl, (uint32_t)lpn);
        }
        lpn++;
    }
}

int ftl_trim(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns)
{
    ftl_note_time(ftl, io->now_ns);
    int rc = io_check(ftl, io);
    if (rc != FTL_OK) {
        return rc;
    }
    /* Only pages wholly inside the range lose their data. */
    uint64_t spp = ftl->secs_per_pg;
    uint64_t start = (io->slba + spp - 1) / spp;
    uint64_t end = (io->slba + io->nlb) / spp;  /* exclusive */
    if (ftl->wbuf && end > start) {
        wbuf_drop(ftl, start, end);
    }
    if (ftl->rcache) {
        rcache_drop_range(ftl->rcache, start, end);
    }
    unmap_pages(ftl, start, end);
    if (ftl->dftl) {
        /* the translation pages' rewrites occupy their LUNs; the trim does not wait */
        dftl_write_pending(ftl, false, io->now_ns);
    }
    ftl->ctr.host_trim_cmds++;
    ftl->ctr.host_trim_pages += end > start ? end - start : 0;
    *done_ns = io->now_ns;
    return FTL_OK;
}

/* Whether the 16 write counts from lpn (a multiple of 16) are all 0: one 32-byte test
 * instead of 16, so a format of a big, mostly unwritten range reads only the counts. */
static bool wc_block_zero(const struct ftl *ftl, uint64_t lpn)
{
    uint64_t words[4];
    memcpy(words, &ftl->write_count16[lpn], sizeof(words));
    return (words[0] | words[1] | words[2] | words[3]) == 0;
}

/* The highest LPN below `below` ever written, + 1 (0 if none). */
static uint64_t wc_highest_written_below(const struct ftl *ftl, uint64_t below)
{
    uint64_t lpn = below;
    while (lpn % 16 && ftl->write_count16[lpn - 1] == 0) {
        lpn--;
    }
    while (lpn >= 16 && wc_block_zero(ftl, lpn - 16)) {
        lpn -= 16;
    }
    while (lpn > 0 && ftl->write_count16[lpn - 1] == 0) {
        lpn--;
    }
    return lpn;
}

/*
 * Per-LPN write counts of [start, end) back to 0. Only nonzero entries are written, so
 * a range never written keeps its untouched (lazily committed) memory. An overflow-table
 * entry left behind is ignored from now on (write_count.c). The highest written LPN may
 * have been in the range: it is found again below it.
 */
static void wc_reset_pages(struct ftl *ftl, uint64_t start, uint64_t end)
{
    for (uint64_t lpn = start; lpn < end;) {
        if (lpn % 16 == 0 && end - lpn >= 16 && wc_block_zero(ftl, lpn)) {
            lpn += 16;
            continue;
        }
        if (ftl->write_count16[lpn]) {
            heat_forget(ftl, (uint32_t)lpn);    /* an aged count is never above the exact */
            wc_set(ftl, (uint32_t)lpn, 0);     /* below WC_OVERFLOW: cannot fail */
        }
        lpn++;
    }
    if (ftl->max_lpn_plus_one > start && ftl->max_lpn_plus_one <= end) {
        ftl->max_lpn_plus_one = wc_highest_written_below(ftl, start);
    }
}

/*
 * Erase and free every closed line without a valid page left: the victims at the top of
 * the heap (keyed on valid pages) and the line paced GC was collecting, if the format
 * emptied it. Full lines have every page valid; open lines belong to their write
 * pointers. Returns when the last erase ends (now_ns if none).
 */
static uint64_t erase_empty_lines(struct ftl *ftl, uint64_t now_ns)
{
    uint64_t done = now_ns;
    uint32_t id, blocks;

    while ((id = victim_peek(ftl)) != NO_LINE && ftl->lines[id].valid == 0) {
        victim_remove(ftl, id);
        done = max_u64(done, line_erase(ftl, id, now_ns, &blocks));
        ftl->ctr.format_erased_blocks += blocks;
    }
    return done;
}

int ftl_format(struct ftl *ftl, const struct ftl_io *io, bool erase, uint64_t *done_ns)
{
    ftl_note_time(ftl, io->now_ns);
    int rc = io_check(ftl, io);
    if (rc != FTL_OK) {
        return rc;
    }
    uint64_t spp = ftl->secs_per_pg;
    if (io->slba % spp || io->nlb % spp) {
        return FTL_E_INVAL;    /* a format never splits a page */
    }
    uint64_t start = io->slba / spp, end = (io->slba + io->nlb) / spp;
    uint64_t done = io->now_ns;
    if (ftl->wbuf) {
        wbuf_drop(ftl, start, end);
    }
    if (ftl->rcache) {
        rcache_drop_range(ftl->rcache, start, end);
    }
    unmap_pages(ftl, start, end);
    if (ftl->dftl) {
        done = dftl_write_pending(ftl, false, io->now_ns);
    }
    if (erase) {
        wc_reset_pages(ftl, start, end);
        done = max_u64(done, erase_empty_lines(ftl, io->now_ns));
        if (ftl->hybrid) {
            done = max_u64(done, hybrid_erase_empty(ftl, io->now_ns,
                                                    &ftl->ctr.format_erased_blocks));
        }
    }
    ftl->ctr.format_cmds++;
    *done_ns = done;
    return FTL_OK;
}
