/*
 * Zone Management Send (NVMe Zoned Namespace Command Set revision 1.1, 3.4.3.1): open,
 * close, finish, reset and offline, of one zone or of every zone Select All picks, each
 * through the state machine's one transition (zone_transition.h), noting the zones it
 * changed. As everywhere in the machine, a command checks first and changes state only
 * once it knows it will succeed.
 */
#include "zns/zone_state.h"

#include "femu_ftl/ftl.h"
#include "zns/zone_state_tables.h"
#include "zns/zone_transition.h"

/* The zones one command changed, noted in increasing order; zones may be NULL (count only). */
struct changed {
    uint64_t *zones;
    size_t n;
};

static void note_changed(struct changed *c, uint64_t zone)
{
    if (c->zones) {
        c->zones[c->n] = zone;
    }
    c->n++;
}

/* 3.4.3.1.4, plus the wear rule: the reset that brings the zone's erases to reset_limit
 * leaves it read only (entered "by mechanisms outside the scope", 2.1.1.3). */
static void reset_zone(struct zone_state *zs, uint64_t zone)
{
    if (zs->resets[zone] < UINT64_MAX) {
        zs->resets[zone]++;
    }
    zs->written[zone] = 0;
    bool worn = zs->p.reset_limit && zs->resets[zone] >= zs->p.reset_limit;
    zone_set_state(zs, zone, worn ? FTL_ZONE_READ_ONLY : FTL_ZONE_EMPTY);
}

static void finish_zone(struct zone_state *zs, uint64_t zone)
{
    zs->written[zone] = zs->p.cap_sectors;
    zone_set_state(zs, zone, FTL_ZONE_FULL);
}

/*
 * One zone. Read-only and offline zones answer Invalid Zone State Transition to open,
 * close, finish and reset, as 3.4.3.1.1-4 say (Zone Is Read Only / Offline are the write
 * statuses). Close leaves an unwritten zone closed, not empty: 2.1.1.3.2-3 and 3.4.3.1.1
 * name ZSC:Closed as the only target (ZBC's close-to-empty rule is not in ZNS).
 */
static int mgmt_one(struct zone_state *zs, uint64_t zone, enum ftl_zone_action action,
                    struct changed *c)
{
    uint8_t st = zs->state[zone];
    bool writable = st == FTL_ZONE_EMPTY || zone_is_active(st);
    switch (action) {
    case FTL_ZONE_ACTION_OPEN: {
        if (st == FTL_ZONE_EXPLICIT_OPEN) {
            return FTL_OK;
        }
        if (!writable) {
            return FTL_E_ZONE_TRANSITION;
        }
        uint32_t victim;
        int rc = zone_plan_open(zs, st, &victim);
        if (rc != FTL_OK) {
            return rc;
        }
        zone_close_victim(zs, victim);
        zone_set_state(zs, zone, FTL_ZONE_EXPLICIT_OPEN);
        if (victim != NO_ZONE && victim < zone) {
            note_changed(c, victim);
        }
        note_changed(c, zone);
        if (victim != NO_ZONE && victim > zone) {
            note_changed(c, victim);
        }
        return FTL_OK;
    }
    case FTL_ZONE_ACTION_CLOSE:
        if (st == FTL_ZONE_CLOSED) {
            return FTL_OK;
        }
        if (!zone_is_open(st)) {
            return FTL_E_ZONE_TRANSITION;
        }
        zone_set_state(zs, zone, FTL_ZONE_CLOSED);
        note_changed(c, zone);
        return FTL_OK;
    case FTL_ZONE_ACTION_FINISH:
        /* from empty too, without resources: 2.1.1.4.1 g */
        if (st == FTL_ZONE_FULL) {
            return FTL_OK;
        }
        if (!writable) {
            return FTL_E_ZONE_TRANSITION;
        }
        finish_zone(zs, zone);
        note_changed(c, zone);
        return FTL_OK;
    case FTL_ZONE_ACTION_RESET:
        if (st == FTL_ZONE_EMPTY) {
            return FTL_OK;
        }
        if (!zone_is_active(st) && st != FTL_ZONE_FULL) {
            return FTL_E_ZONE_TRANSITION;
        }
        reset_zone(zs, zone);
        note_changed(c, zone);
        return FTL_OK;
    case FTL_ZONE_ACTION_OFFLINE:
        if (st == FTL_ZONE_OFFLINE) {
            return FTL_OK;
        }
        if (st != FTL_ZONE_READ_ONLY) {
            return FTL_E_ZONE_TRANSITION;
        }
        zone_set_state(zs, zone, FTL_ZONE_OFFLINE);
        note_changed(c, zone);
        return FTL_OK;
    case FTL_ZONE_ACTION_OPEN_ZRWA:
    case FTL_ZONE_ACTION_ZRWA_FLUSH:
        break;      /* mgmt_zrwa's */
    }
    return FTL_E_INVAL;
}

/* Whether Select All applies `action` to a zone in state st (3.4.3.1.1-5). */
static bool selected(enum ftl_zone_action action, uint8_t st)
{
    switch (action) {
    case FTL_ZONE_ACTION_OPEN:
        return st == FTL_ZONE_CLOSED;
    case FTL_ZONE_ACTION_CLOSE:
        return zone_is_open(st);
    case FTL_ZONE_ACTION_FINISH:
        return zone_is_active(st);
    case FTL_ZONE_ACTION_RESET:
        return zone_is_active(st) || st == FTL_ZONE_FULL;
    case FTL_ZONE_ACTION_OFFLINE:
        return st == FTL_ZONE_READ_ONLY;
    case FTL_ZONE_ACTION_OPEN_ZRWA:
    case FTL_ZONE_ACTION_ZRWA_FLUSH:
        break;      /* Select All is refused for them before */
    }
    return false;
}

/*
 * Select All. Only opening needs resources: every closed zone takes an open one (no
 * active one, it has it), and when they do not all fit nothing is opened (3.4.3.1.3).
 * Closing implicitly open zones to make room would only make more closed zones to open.
 */
static int mgmt_all(struct zone_state *zs, enum ftl_zone_action action, struct changed *c)
{
    if (action == FTL_ZONE_ACTION_OPEN && zs->p.max_open &&
        zs->counts[FTL_ZONE_CLOSED] > (uint64_t)(zs->p.max_open - zs->open)) {
        return FTL_E_TOO_MANY_OPEN;
    }
    for (uint64_t z = 0; z < zs->p.zones; z++) {
        uint8_t st = zs->state[z];
        if (!selected(action, st)) {
            continue;
        }
        switch (action) {
        case FTL_ZONE_ACTION_OPEN:
            zone_set_state(zs, z, FTL_ZONE_EXPLICIT_OPEN);
            break;
        case FTL_ZONE_ACTION_CLOSE:
            zone_set_state(zs, z, FTL_ZONE_CLOSED);
            break;
        case FTL_ZONE_ACTION_FINISH:
            finish_zone(zs, z);
            break;
        case FTL_ZONE_ACTION_RESET:
            reset_zone(zs, z);
            break;
        case FTL_ZONE_ACTION_OFFLINE:
            zone_set_state(zs, z, FTL_ZONE_OFFLINE);
            break;
        case FTL_ZONE_ACTION_OPEN_ZRWA:
        case FTL_ZONE_ACTION_ZRWA_FLUSH:
            break;
        }
        note_changed(c, z);
    }
    return FTL_OK;
}

static bool action_valid(enum ftl_zone_action action)
{
    return action >= FTL_ZONE_ACTION_CLOSE && action <= FTL_ZONE_ACTION_OFFLINE;
}

static bool action_is_zrwa(enum ftl_zone_action action)
{
    return action == FTL_ZONE_ACTION_OPEN_ZRWA || action == FTL_ZONE_ACTION_ZRWA_FLUSH;
}

/* Open with ZRWAA or an explicit flush (zone_zrwa.c) of one zone: the zone and a victim
 * closed for room noted in increasing order, as Open notes them. */
static int mgmt_zrwa(struct zone_state *zs, uint64_t slba, enum ftl_zone_action action,
                     struct changed *c)
{
    bool changed;
    uint32_t victim;
    uint64_t zone = slba / zs->p.zone_sectors;
    int rc;
    if (action == FTL_ZONE_ACTION_OPEN_ZRWA) {
        if (slba % zs->p.zone_sectors != 0) {
            return FTL_E_INVAL;
        }
        rc = zrwa_admit_open(zs, zone, &changed, &victim);
    } else {
        rc = zrwa_admit_flush(zs, slba, &changed, &victim);
    }
    if (rc != FTL_OK) {
        return rc;
    }
    if (victim != NO_ZONE && victim < zone) {
        note_changed(c, victim);
    }
    if (changed) {
        note_changed(c, zone);
    }
    if (victim != NO_ZONE && victim > zone) {
        note_changed(c, victim);
    }
    return FTL_OK;
}

int zone_state_mgmt(struct zone_state *zs, uint64_t slba, enum ftl_zone_action action,
                    bool all, uint64_t *zones, size_t *nzones)
{
    struct changed c = { .zones = zones, .n = 0 };
    int rc;
    if (action_is_zrwa(action)) {
        /* no ZRWA configured, or Select All (not defined for either): Invalid Field */
        rc = !zs->zrwa || all ? FTL_E_INVAL : slba >= zs->sectors ? FTL_E_RANGE :
             mgmt_zrwa(zs, slba, action, &c);
    } else if (!action_valid(action)) {
        rc = FTL_E_INVAL;
    } else if (all) {
        rc = mgmt_all(zs, action, &c);
    } else if (slba >= zs->sectors) {
        rc = FTL_E_RANGE;
    } else if (slba % zs->p.zone_sectors != 0) {
        rc = FTL_E_INVAL;
    } else {
        rc = mgmt_one(zs, slba / zs->p.zone_sectors, action, &c);
    }
    if (nzones) {
        *nzones = rc == FTL_OK ? c.n : 0;
    }
    return rc;
}
