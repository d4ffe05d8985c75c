/*
 * Zone Random Write Areas in the zone state machine (NVMe Zoned Namespace Command Set 1.1:
 * the ZRWA, Open Zone's ZRWAA, Flush Explicit ZRWA Range). A zone holding a ZRWA keeps
 * its committed write pointer in `written` as every zone does; the window above it,
 * [written, written + ZRWAS), takes writes anywhere and rewrites, and moves only when
 * LBAs are committed: implicitly, by a write reaching past it, or explicitly. What the
 * window holds is the flash side's business (zns.c); admission only needs the pointer.
 *
 * As in the rest of the machine, everything is checked before anything changes.
 */
#include "zns/zone_state.h"

#include "femu_ftl/ftl.h"
#include "zns/zone_state_tables.h"
#include "zns/zone_transition.h"

bool zone_has_zrwa(const struct zone_state *zs, uint64_t zone)
{
    return zs->zrwa && zs->zrwa[zone];
}

void zone_drop_zrwa(struct zone_state *zs, uint64_t zone)
{
    if (zone_has_zrwa(zs, zone)) {
        zs->zrwa[zone] = 0;
        zs->zrwa_used--;
    }
}

uint32_t zone_state_zrwa_used(const struct zone_state *zs)
{
    return zs->zrwa_used;
}

uint64_t zrwa_implicit_commit(uint64_t w, uint64_t end, uint64_t zrwas, uint64_t fg,
                              uint64_t cap)
{
    if (end <= w + zrwas) {
        return 0;
    }
    uint64_t past = end - (w + zrwas);
    uint64_t n = (past + fg - 1) / fg * fg;
    return n < cap - w ? n : cap - w;
}

/* Commits n sectors of the zone's window: the zone is full, and frees its ZRWA, when
 * they reach the capacity. */
static void commit(struct zone_state *zs, uint64_t zone, uint64_t n)
{
    zs->written[zone] += n;
    if (zs->written[zone] == zs->p.cap_sectors) {
        zone_set_state(zs, zone, FTL_ZONE_FULL);
    }
}

/* A closed zone is opened implicitly to take a write or a flush (a ZRWA zone is never
 * empty: it was opened). */
static int open_for_io(struct zone_state *zs, uint64_t zone, uint32_t *victim)
{
    uint8_t st = zs->state[zone];
    int rc = zone_plan_open(zs, st, victim);
    if (rc != FTL_OK) {
        return rc;
    }
    zone_close_victim(zs, *victim);
    if (st == FTL_ZONE_CLOSED) {
        zone_set_state(zs, zone, FTL_ZONE_IMPLICIT_OPEN);
    }
    return FTL_OK;
}

int zrwa_admit_write(struct zone_state *zs, uint64_t zone, uint64_t slba, uint64_t nlb,
                     bool append, uint64_t *assigned)
{
    if (append) {
        return FTL_E_ZONE_INVALID_OP;   /* no write pointer to append at: the window */
    }
    uint64_t w = zs->written[zone], zrwas = zs->p.zrwa_sectors;
    uint64_t off = slba - zone * zs->p.zone_sectors, end = off + nlb;
    if (off < w || end > w + 2 * zrwas) {
        return FTL_E_ZONE_INVALID_WRITE;
    }
    if (end > zs->p.cap_sectors) {
        return FTL_E_ZONE_BOUNDARY;
    }
    uint32_t victim;
    int rc = open_for_io(zs, zone, &victim);
    if (rc != FTL_OK) {
        return rc;
    }
    commit(zs, zone, zrwa_implicit_commit(w, end, zrwas, zs->p.zrwa_fg_sectors,
                                          zs->p.cap_sectors));
    if (assigned) {
        *assigned = slba;
    }
    return FTL_OK;
}

int zrwa_admit_open(struct zone_state *zs, uint64_t zone, bool *changed, uint32_t *victim)
{
    uint8_t st = zs->state[zone];
    *changed = false;
    *victim = NO_ZONE;
    if (zone_has_zrwa(zs, zone)) {      /* it has its resource: a plain Open */
        if (st == FTL_ZONE_EXPLICIT_OPEN) {
            return FTL_OK;
        }
    } else if (st != FTL_ZONE_EMPTY) {
        return FTL_E_ZONE_TRANSITION;   /* a ZRWA starts at the zone start */
    }
    int rc = zone_plan_open(zs, st, victim);
    if (rc != FTL_OK) {
        return rc;
    }
    if (!zone_has_zrwa(zs, zone)) {
        if (zs->zrwa_used >= zs->p.zrwa_resources) {
            *victim = NO_ZONE;
            return FTL_E_ZRWA_UNAVAILABLE;
        }
        zs->zrwa[zone] = 1;
        zs->zrwa_used++;
    }
    zone_close_victim(zs, *victim);
    zone_set_state(zs, zone, FTL_ZONE_EXPLICIT_OPEN);
    *changed = true;
    return FTL_OK;
}

int zrwa_admit_flush(struct zone_state *zs, uint64_t elba, bool *changed, uint32_t *victim)
{
    uint64_t zone = elba / zs->p.zone_sectors;
    *changed = false;
    *victim = NO_ZONE;
    if (!zone_has_zrwa(zs, zone)) {
        return FTL_E_INVAL;
    }
    uint64_t w = zs->written[zone], off = elba - zone * zs->p.zone_sectors;
    if (off < w || off >= w + zs->p.zrwa_sectors || off >= zs->p.cap_sectors) {
        return FTL_E_ZONE_BOUNDARY;
    }
    uint64_t n = off - w + 1;
    if (n % zs->p.zrwa_fg_sectors) {
        return FTL_E_INVAL;
    }
    uint8_t st = zs->state[zone];
    int rc = open_for_io(zs, zone, victim);
    if (rc != FTL_OK) {
        return rc;
    }
    commit(zs, zone, n);
    *changed = zs->state[zone] != st;
    return FTL_OK;
}
