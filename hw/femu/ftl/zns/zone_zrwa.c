/*
 * Zone Random Write Areas' actions in the zone state machine (NVMe Zoned Namespace Command
 * Set 1.1: Open Zone's ZRWAA, Flush Explicit ZRWA Range), for Zone Management Send
 * (zone_mgmt.c). A zone holding a ZRWA keeps its committed write pointer in `written` as
 * every zone does; the window above it, [written, written + ZRWAS), takes writes anywhere
 * and rewrites (zone_state.c admits those), and moves only when LBAs are committed:
 * implicitly, by a write reaching past it, or explicitly here. What the window holds is
 * the flash side's business (zns_zrwa.c); admission only needs the pointer.
 *
 * As in the rest of the machine, everything is checked before anything changes.
 */
#include "zns/zone_state.h"

#include "femu_ftl/ftl.h"
#include "zns/zone_state_tables.h"
#include "zns/zone_transition.h"

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
    int rc = zone_open_for_io(zs, zone, victim);
    if (rc != FTL_OK) {
        return rc;
    }
    zone_zrwa_commit(zs, zone, n);
    *changed = zs->state[zone] != st;
    return FTL_OK;
}
