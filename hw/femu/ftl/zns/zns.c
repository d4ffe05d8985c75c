/*
 * The zoned namespace behind femu_ftl/zns.h: its geometry, admission through the zone state
 * machine (zone_state.c), and the flash side of zones.
 *
 * Flash side. Zone z's page p (p = zone-relative sector / secs_per_pg) lives on LUN group
 * g = z % zone_groups, LUN g * zone_luns + p % zone_luns, block row
 * lines + (z / zone_groups) * zone_blocks_per_lun + (p / zone_luns) / pgs_per_blk: pages
 * go LUN first, so consecutive pages pipeline over the zone's LUNs. Per zone the flash
 * side keeps only how many sectors reached the device (`written`, zone-relative): the
 * pages below written / secs_per_pg are programmed, the sectors of the page after them
 * wait in the controller's page buffer. This record is its own, not admission's: a
 * controller reset may drop an admitted request before it is priced.
 */
#include "zns/zns.h"

#include <stdlib.h>

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "flash/erase.h"
#include "flash/geometry.h"
#include "flash/timing.h"
#include "zns/zns_tables.h"
#include "zns/zone_state.h"

/* ---- geometry ---- */

uint64_t ftl_zone_count(const struct ftl *ftl)
{
    return ftl->cfg.zoned ? ftl->cfg.zones : 0;
}

uint64_t ftl_zone_size_sectors(const struct ftl *ftl)
{
    return ftl->geo.zone_sectors;
}

uint64_t ftl_zone_cap_sectors(const struct ftl *ftl)
{
    return ftl->geo.zone_cap_sectors;
}

uint32_t ftl_zone_luns(const struct ftl *ftl)
{
    return (uint32_t)ftl->geo.zone_luns;
}

bool ftl_zrwa_geometry(const struct ftl *ftl, struct ftl_zrwa_geometry *out)
{
    bool any = ftl->cfg.zoned && ftl->cfg.zrwa_zones > 0;
    *out = (struct ftl_zrwa_geometry){ 0 };
    if (any) {
        *out = (struct ftl_zrwa_geometry){ .resources = (uint32_t)ftl->cfg.zrwa_zones,
                                           .size_sectors = ftl->geo.zrwa_sectors,
                                           .flush_gran_sectors = ftl->geo.zrwa_fg_sectors };
    }
    return any;
}

uint32_t ftl_zrwa_in_use(const struct ftl *ftl)
{
    return ftl->zns ? zone_state_zrwa_used(ftl->zns->state) : 0;
}

const char *ftl_zone_state_name(uint8_t state)
{
    switch (state) {
    case FTL_ZONE_EMPTY: return "empty";
    case FTL_ZONE_IMPLICIT_OPEN: return "implicitly_open";
    case FTL_ZONE_EXPLICIT_OPEN: return "explicitly_open";
    case FTL_ZONE_CLOSED: return "closed";
    case FTL_ZONE_READ_ONLY: return "read_only";
    case FTL_ZONE_FULL: return "full";
    case FTL_ZONE_OFFLINE: return "offline";
    default: return "unknown";
    }
}

/* ---- life cycle ---- */

int zns_init(struct ftl *ftl)
{
    const struct ftl_geometry *g = &ftl->geo;
    struct zone_state_params p = {
        .zones = ftl->cfg.zones, .zone_sectors = g->zone_sectors,
        .cap_sectors = g->zone_cap_sectors, .max_open = (uint32_t)ftl->cfg.max_open,
        .max_active = (uint32_t)ftl->cfg.max_active, .reset_limit = ftl->cfg.pe_cycles,
        .zrwa_resources = (uint32_t)ftl->cfg.zrwa_zones, .zrwa_sectors = g->zrwa_sectors,
        .zrwa_fg_sectors = g->zrwa_fg_sectors,
    };
    struct zns *z = calloc(1, sizeof(*z));
    if (!z) {
        return FTL_E_NOMEM;
    }
    ftl->zns = z;
    z->state = zone_state_create(&p);
    z->zones = calloc(ftl->cfg.zones, sizeof(*z->zones));
    z->changed = calloc(ftl->cfg.zones, sizeof(*z->changed));
    return z->state && z->zones && z->changed ? FTL_OK : FTL_E_NOMEM;
}

void zns_free(struct ftl *ftl)
{
    struct zns *z = ftl->zns;
    if (z) {
        zone_state_destroy(z->state);
        free(z->zones);
        free(z->changed);
        free(z);
    }
}

size_t zns_metadata_bytes(const struct ftl *ftl)
{
    /* the state machine: a state byte, the written count and resets per zone, and the
     * implicitly-open links with max_open (about) */
    uint64_t zones = ftl->cfg.zones;
    return sizeof(struct zns) + zones * (sizeof(struct zone_flash) + sizeof(uint64_t)) +
           zones * (1 + 2 * sizeof(uint64_t) + (ftl->cfg.max_open ? 8 : 0) +
                    (ftl->cfg.zrwa_zones ? 1 : 0));
}

/* ---- admission (zone_state.c), FTL_E_INVAL when the FTL has no zones ---- */

void ftl_zone_get(const struct ftl *ftl, uint64_t zone, struct ftl_zone_info *out)
{
    if (!ftl->zns || zone >= ftl->cfg.zones) {
        *out = (struct ftl_zone_info){ 0 };
        return;
    }
    zone_state_get(ftl->zns->state, zone, out);
}

void ftl_zone_state_counts(const struct ftl *ftl, uint64_t counts[FTL_ZONE_STATES])
{
    if (!ftl->zns) {
        for (int i = 0; i < FTL_ZONE_STATES; i++) {
            counts[i] = 0;
        }
        return;
    }
    zone_state_counts(ftl->zns->state, counts);
}

uint32_t ftl_zone_open_count(const struct ftl *ftl)
{
    return ftl->zns ? zone_state_open(ftl->zns->state) : 0;
}

uint32_t ftl_zone_active_count(const struct ftl *ftl)
{
    return ftl->zns ? zone_state_active(ftl->zns->state) : 0;
}

int ftl_zone_admit_write(struct ftl *ftl, uint64_t slba, uint64_t nlb, bool append,
                         uint64_t *assigned)
{
    if (!ftl->zns) {
        return FTL_E_INVAL;
    }
    return zone_state_write(ftl->zns->state, slba, nlb, append, assigned);
}

int ftl_zone_admit_read(const struct ftl *ftl, uint64_t slba, uint64_t nlb)
{
    if (!ftl->zns) {
        return FTL_E_INVAL;
    }
    return zone_state_read(ftl->zns->state, slba, nlb);
}

int ftl_zone_admit_mgmt(struct ftl *ftl, uint64_t slba, enum ftl_zone_action action, bool all,
                        uint64_t *zones, size_t *nzones)
{
    if (!ftl->zns) {
        return FTL_E_INVAL;
    }
    return zone_state_mgmt(ftl->zns->state, slba, action, all, zones, nzones);
}

int ftl_zone_admit_copy(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc,
                        uint64_t dest)
{
    if (!ftl->zns) {
        return FTL_E_INVAL;
    }
    return zone_state_copy(ftl->zns->state, src, nsrc, dest);
}

uint64_t *zns_changed_scratch(struct ftl *ftl)
{
    return ftl->zns->changed;
}

/* ---- flash side ---- */

uint64_t zns_programmed_pages(const struct ftl *ftl, uint64_t zone)
{
    return ftl->zns->zones[zone].written / ftl->secs_per_pg;
}

/* [slba, slba + nlb) lies in one zone below its capacity; *zone and the zone-relative
 * start. */
static int zone_span(const struct ftl *ftl, uint64_t slba, uint64_t nlb, uint64_t *zone,
                     uint64_t *offset)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (nlb == 0 || slba >= g->zoned_sectors) {
        return FTL_E_INVAL;
    }
    *zone = slba / g->zone_sectors;
    *offset = slba - *zone * g->zone_sectors;
    if (nlb > g->zone_cap_sectors || *offset > g->zone_cap_sectors - nlb) {
        return FTL_E_INVAL;
    }
    return FTL_OK;
}

int zns_write_pages(struct ftl *ftl, uint64_t slba, uint64_t nlb, uint64_t *first_page,
                    uint64_t *end_page)
{
    uint64_t zone, offset;
    int rc = zone_span(ftl, slba, nlb, &zone, &offset);
    if (rc != FTL_OK) {
        return rc;
    }
    struct zone_flash *zf = &ftl->zns->zones[zone];
    uint64_t spp = ftl->secs_per_pg, end = offset + nlb;
    /* Sectors below the record were accounted already (a request priced out of order):
     * only what lies past it completes pages. A gap above it (a request dropped after
     * admission) holds no data; its pages count as written without a program. */
    uint64_t from = offset > zf->written ? offset : zf->written;
    *first_page = from / spp;
    *end_page = end > zf->written ? end / spp : *first_page;
    if (end > zf->written) {
        zf->written = end;
    }
    return FTL_OK;
}

int zns_write(struct ftl *ftl, uint64_t slba, uint64_t nlb, bool append, uint64_t now_ns,
              uint64_t *done_ns)
{
    uint64_t zone = slba < ftl->geo.zoned_sectors ? slba / ftl->geo.zone_sectors : 0;
    if (slba < ftl->geo.zoned_sectors && ftl->zns->zones[zone].zrwa) {
        return append ? FTL_E_INVAL : zns_zrwa_write(ftl, zone, slba - zone *
                                                     ftl->geo.zone_sectors, nlb, now_ns,
                                                     done_ns);
    }
    uint64_t first, end;
    int rc = zns_write_pages(ftl, slba, nlb, &first, &end);
    if (rc != FTL_OK) {
        return rc;
    }
    uint64_t done = now_ns + ftl->cfg.buf_wr_lat;  /* no page completed: in the buffer */
    if (end > first) {
        done = zns_program_pages(ftl, zone, first, end, now_ns);
    }
    if (append) {
        ftl->ctr.zone_append_cmds++;
    } else {
        ftl->ctr.zone_write_cmds++;
    }
    *done_ns = done;
    return FTL_OK;
}

int zns_read(struct ftl *ftl, uint64_t slba, uint64_t nlb, uint64_t now_ns, uint64_t *done_ns)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (nlb == 0 || slba >= g->zoned_sectors || nlb > g->zoned_sectors - slba) {
        return FTL_E_INVAL;
    }
    uint64_t done = now_ns, spp = ftl->secs_per_pg, end = slba + nlb;
    for (uint64_t zone = slba / g->zone_sectors; zone * g->zone_sectors < end; zone++) {
        uint64_t start = zone * g->zone_sectors;
        uint64_t lo = slba > start ? slba - start : 0;
        uint64_t hi = end - start < g->zone_sectors ? end - start : g->zone_sectors;
        uint64_t programmed = ftl->zns->zones[zone].written / spp;
        uint64_t last = (hi - 1) / spp + 1;     /* pages [lo / spp, last) touched */
        if (last > programmed) {
            last = programmed;  /* buffered or unwritten sectors cost nothing */
        }
        for (uint64_t p = lo / spp; p < last; p++) {
            uint32_t lun;
            zns_page_place(ftl, zone, p, &lun, NULL);
            done = max_u64(done, nand_read(ftl, lun, now_ns));
            ftl->ctr.zone_reads++;
        }
        done = max_u64(done, zns_zrwa_read(ftl, zone, lo, hi, now_ns));
    }
    ftl->ctr.zone_read_cmds++;
    *done_ns = done;
    return FTL_OK;
}

/* Erase every block of the zone holding a programmed page: each LUN's blocks in series,
 * the LUNs in parallel. Returns when the last erase ends (now_ns if none). */
static uint64_t zone_erase(struct ftl *ftl, uint64_t zone, uint64_t now_ns)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint64_t programmed = ftl->zns->zones[zone].written / ftl->secs_per_pg;
    uint64_t pages_per_row = g->zone_luns * ftl->cfg.pgs_per_blk;
    uint64_t done = now_ns, erased = 0;
    for (uint64_t k = 0; k < g->zone_luns && k < programmed; k++) {
        /* block row r of LUN k starts at page r * pages_per_row + k */
        for (uint64_t first = k; first < programmed; first += pages_per_row) {
            uint32_t lun;
            uint64_t block;
            zns_page_place(ftl, zone, first, &lun, &block);
            done = max_u64(done, nand_erase(ftl, lun, now_ns));
            block_erased(ftl, block);
            erased++;
        }
    }
    ftl->ctr.zone_erased_blocks += erased;
    ftl->ctr.nand_erases += erased;
    return done;
}

int zns_manage(struct ftl *ftl, enum ftl_zone_action action, uint64_t zone, uint64_t now_ns,
               uint64_t *done_ns)
{
    if (zone >= ftl->cfg.zones) {
        return FTL_E_INVAL;
    }
    *done_ns = now_ns;
    switch (action) {
    case FTL_ZONE_ACTION_RESET:
        *done_ns = zone_erase(ftl, zone, now_ns);
        ftl->zns->zones[zone].written = 0;
        zns_zrwa_drop(ftl, zone);
        ftl->ctr.zone_resets++;
        return FTL_OK;
    case FTL_ZONE_ACTION_FINISH:
        /* no padding programs: buffered sectors stay put; a ZRWA's window is committed */
        *done_ns = zns_zrwa_finish(ftl, zone, now_ns);
        ftl->ctr.zone_finishes++;
        return FTL_OK;
    case FTL_ZONE_ACTION_OFFLINE:
        ftl->zns->zones[zone].written = 0;  /* its data is gone, its blocks unused */
        zns_zrwa_drop(ftl, zone);
        return FTL_OK;
    case FTL_ZONE_ACTION_OPEN_ZRWA:
        zns_zrwa_open(ftl, zone);
        return FTL_OK;
    case FTL_ZONE_ACTION_OPEN:
    case FTL_ZONE_ACTION_CLOSE:
    case FTL_ZONE_ACTION_ZRWA_FLUSH:   /* the engine calls zns_zrwa_flush with its LBA */
        return FTL_OK;
    }
    return FTL_E_INVAL;
}

int zns_check(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (zone_state_check(ftl->zns->state, err, errlen) ||
        zns_zrwa_check(ftl, err, errlen)) {
        return -1;
    }
    for (uint64_t zone = 0; zone < ftl->cfg.zones; zone++) {
        if (ftl->zns->zones[zone].written > g->zone_cap_sectors) {
            return ftl_error(err, errlen, "zone %llu: %llu sectors reached the flash, past its "
                             "capacity %llu", (unsigned long long)zone,
                             (unsigned long long)ftl->zns->zones[zone].written,
                             (unsigned long long)g->zone_cap_sectors);
        }
    }
    /* the zone blocks hold no conventional page */
    for (uint64_t row = g->lines; row < g->blks_per_lun; row++) {
        for (uint32_t lun = 0; lun < ftl->luns; lun++) {
            const struct block *b = &ftl->blocks[row * ftl->luns + lun];
            if (b->valid || b->invalid || block_index_is_bad(ftl, row * ftl->luns + lun)) {
                return ftl_error(err, errlen, "zone block (row %llu, lun %u) holds "
                                 "conventional pages or is bad", (unsigned long long)row, lun);
            }
        }
    }
    return 0;
}
