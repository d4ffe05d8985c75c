/*
 * Zone Random Write Areas, flash side: the window of a zone holding one is controller
 * memory of ZRWAS bytes (counted in dram_mb, config_keys_rcache.c). A write into it is a
 * transfer into that memory, ZRWA_XFER_NS per 4 KiB started; rewriting what it holds
 * costs no program; a read of what it holds is served from it at the same rate. A commit
 * (a write reaching past the window, the explicit flush, Finish) programs whole pages at
 * the zone's write pointer through zns_program_pages: the zone's LUNs, flash time, wear
 * and statistics as any zone write. The record is the flash side's own (zns_tables.h):
 * the committed sectors and the window's high mark.
 */
#include "zns/zns.h"

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "flash/ftl_handle.h"
#include "zns/zns_tables.h"
#include "zns/zone_transition.h"

/* A DDR4-2400 row open and read (26.7 ns) plus 4 KiB over a 32-bit bus (426.7 ns): the
 * figure read_cache_lat's default is made of (config_keys_rcache.c). */
#define ZRWA_XFER_NS 453u
#define ZRWA_XFER_UNIT 4096u

uint64_t zrwa_xfer_ns(const struct ftl *ftl, uint64_t sectors)
{
    uint64_t bytes = sectors * ftl->cfg.secsz;
    return (bytes + ZRWA_XFER_UNIT - 1) / ZRWA_XFER_UNIT * ZRWA_XFER_NS;
}

/* Commits the zone's next n sectors (whole pages): programs them; the ZRWA is freed at
 * the capacity. Returns the last program's end. */
static uint64_t commit(struct ftl *ftl, uint64_t zone, uint64_t n, uint64_t now_ns)
{
    struct zone_flash *zf = &ftl->zns->zones[zone];
    uint64_t spp = ftl->secs_per_pg, w = zf->written;
    uint64_t done = zns_program_pages(ftl, zone, w / spp, (w + n) / spp, now_ns);
    zf->written = w + n;
    zf->zrwa_hi = max_u64(zf->zrwa_hi, zf->written);
    if (zf->written == ftl->geo.zone_cap_sectors) {
        zns_zrwa_drop(ftl, zone);
    }
    return done;
}

int zns_zrwa_write(struct ftl *ftl, uint64_t zone, uint64_t off, uint64_t nlb,
                   uint64_t now_ns, uint64_t *done_ns)
{
    const struct ftl_geometry *g = &ftl->geo;
    struct zone_flash *zf = &ftl->zns->zones[zone];
    uint64_t w = zf->written, end = off + nlb;
    if (nlb == 0 || nlb > g->zone_cap_sectors || off < w || end > w + 2 * g->zrwa_sectors ||
        end > g->zone_cap_sectors) {
        return FTL_E_INVAL;     /* admission would have refused it */
    }
    uint64_t n = zrwa_implicit_commit(w, end, g->zrwa_sectors, g->zrwa_fg_sectors,
                                      g->zone_cap_sectors);
    bool rewrite = off < zf->zrwa_hi;
    uint64_t done = now_ns + zrwa_xfer_ns(ftl, nlb);
    if (n) {
        done = max_u64(done, commit(ftl, zone, n, now_ns));
        ftl->ctr.zrwa_commit_pages_implicit += n / ftl->secs_per_pg;
    }
    if (zf->zrwa) {
        zf->zrwa_hi = max_u64(zf->zrwa_hi, end);
    }
    ftl->ctr.zrwa_writes++;
    ftl->ctr.zrwa_overwrites += rewrite;
    ftl->ctr.zone_write_cmds++;
    *done_ns = done;
    return FTL_OK;
}

uint64_t zns_zrwa_read(const struct ftl *ftl, uint64_t zone, uint64_t lo, uint64_t hi,
                       uint64_t now_ns)
{
    const struct zone_flash *zf = &ftl->zns->zones[zone];
    if (!zf->zrwa) {
        return now_ns;
    }
    uint64_t a = max_u64(lo, zf->written), b = hi < zf->zrwa_hi ? hi : zf->zrwa_hi;
    return a < b ? now_ns + zrwa_xfer_ns(ftl, b - a) : now_ns;
}

int zns_zrwa_flush(struct ftl *ftl, uint64_t elba, uint64_t now_ns, uint64_t *done_ns)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (elba >= g->zoned_sectors) {
        return FTL_E_INVAL;
    }
    uint64_t zone = elba / g->zone_sectors, off = elba - zone * g->zone_sectors;
    struct zone_flash *zf = &ftl->zns->zones[zone];
    if (!zf->zrwa || off < zf->written || off >= zf->written + g->zrwa_sectors ||
        off >= g->zone_cap_sectors || (off - zf->written + 1) % g->zrwa_fg_sectors) {
        return FTL_E_INVAL;     /* admission would have refused it */
    }
    uint64_t n = off - zf->written + 1;
    *done_ns = commit(ftl, zone, n, now_ns);
    ftl->ctr.zrwa_commit_pages_explicit += n / ftl->secs_per_pg;
    return FTL_OK;
}

void zns_zrwa_open(struct ftl *ftl, uint64_t zone)
{
    struct zone_flash *zf = &ftl->zns->zones[zone];
    if (!zf->zrwa && zf->written == 0) {
        zf->zrwa = true;
        zf->zrwa_hi = 0;
    }
}

/* Finish commits the window up to its high mark, the last page whole (the zone is full:
 * nothing follows it). */
uint64_t zns_zrwa_finish(struct ftl *ftl, uint64_t zone, uint64_t now_ns)
{
    struct zone_flash *zf = &ftl->zns->zones[zone];
    if (!zf->zrwa) {
        return now_ns;
    }
    uint64_t spp = ftl->secs_per_pg;
    uint64_t end = (zf->zrwa_hi + spp - 1) / spp * spp;
    uint64_t n = end - zf->written;
    uint64_t done = commit(ftl, zone, n, now_ns);
    ftl->ctr.zrwa_commit_pages_explicit += n / spp;
    zns_zrwa_drop(ftl, zone);
    return done;
}

void zns_zrwa_drop(struct ftl *ftl, uint64_t zone)
{
    struct zone_flash *zf = &ftl->zns->zones[zone];
    zf->zrwa = false;
    zf->zrwa_hi = 0;
}

uint64_t zns_zrwa_power_cut(struct ftl *ftl, bool plp)
{
    uint64_t lost = 0;
    if (!ftl->zns || plp) {
        return 0;
    }
    for (uint64_t zone = 0; zone < ftl->cfg.zones; zone++) {
        struct zone_flash *zf = &ftl->zns->zones[zone];
        if (zf->zrwa) {
            lost += zf->zrwa_hi - zf->written;
            zf->zrwa_hi = zf->written;
        }
    }
    return lost;
}

int zns_zrwa_check(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint64_t held = 0;
    for (uint64_t zone = 0; zone < ftl->cfg.zones; zone++) {
        const struct zone_flash *zf = &ftl->zns->zones[zone];
        if (!zf->zrwa) {
            if (zf->zrwa_hi) {
                return ftl_error(err, errlen, "zone %llu: no ZRWA but a window high mark %llu",
                                 (unsigned long long)zone, (unsigned long long)zf->zrwa_hi);
            }
            continue;
        }
        held++;
        if (zf->written % g->zrwa_fg_sectors || zf->written >= g->zone_cap_sectors ||
            zf->zrwa_hi < zf->written || zf->zrwa_hi - zf->written > g->zrwa_sectors) {
            return ftl_error(err, errlen, "zone %llu: ZRWA with %llu sectors committed and "
                             "its window up to %llu (ZRWAS %llu, ZRWAFG %llu, cap %llu)",
                             (unsigned long long)zone, (unsigned long long)zf->written,
                             (unsigned long long)zf->zrwa_hi,
                             (unsigned long long)g->zrwa_sectors,
                             (unsigned long long)g->zrwa_fg_sectors,
                             (unsigned long long)g->zone_cap_sectors);
        }
    }
    if (held > ftl->cfg.zrwa_zones) {
        return ftl_error(err, errlen, "%llu zones hold a ZRWA on flash, zrwa_zones is %llu",
                         (unsigned long long)held, (unsigned long long)ftl->cfg.zrwa_zones);
    }
    return 0;
}
