/*
 * The zone state machine of the NVMe Zoned Namespace Command Set (revision 1.1 section
 * numbers below): one state byte, write pointer and reset count per zone in flat arrays,
 * the open / active resource counts, and a FIFO of the implicitly opened zones so the
 * controller can close the one opened longest ago when a zone needs an open resource
 * (2.1.1.4.1: "The controller may transition zones in the ZSIO:Implicitly Opened state to
 * the ZSC:Closed state for resource management purposes").
 *
 * Every entry point checks everything first and changes state only once it knows it will
 * succeed, so an error leaves the zones as they were. Zone Management Send, which changes
 * zones through the same transition (zone_transition.h), is zone_mgmt.c.
 */
#include "zns/zone_state.h"

#include <stdio.h>
#include <stdlib.h>

#include "femu_ftl/ftl.h"
#include "zns/zone_state_tables.h"
#include "zns/zone_transition.h"

static uint64_t zone_start(const struct zone_state *zs, uint64_t zone)
{
    return zone * zs->p.zone_sectors;
}

/* ---- the implicitly-open FIFO ---- */

static void imp_append(struct zone_state *zs, uint32_t z)
{
    zs->imp_prev[z] = zs->imp_tail;
    zs->imp_next[z] = NO_ZONE;
    if (zs->imp_tail == NO_ZONE) {
        zs->imp_head = z;
    } else {
        zs->imp_next[zs->imp_tail] = z;
    }
    zs->imp_tail = z;
}

static void imp_remove(struct zone_state *zs, uint32_t z)
{
    uint32_t prev = zs->imp_prev[z], next = zs->imp_next[z];
    if (prev == NO_ZONE) {
        zs->imp_head = next;
    } else {
        zs->imp_next[prev] = next;
    }
    if (next == NO_ZONE) {
        zs->imp_tail = prev;
    } else {
        zs->imp_prev[next] = prev;
    }
    zs->imp_prev[z] = zs->imp_next[z] = NO_ZONE;
}

/*
 * The one place a zone changes state: the resource counts follow from the states left and
 * entered (2.1.1.4.1 a-g: active = implicitly / explicitly open + closed, open = the two
 * open states), so no transition can forget one.
 */
void zone_set_state(struct zone_state *zs, uint64_t zone, uint8_t to)
{
    uint8_t from = zs->state[zone];
    if (from == to) {
        return;
    }
    zs->counts[from]--;
    zs->counts[to]++;
    if (zone_is_open(from)) {
        zs->open--;
    }
    if (zone_is_open(to)) {
        zs->open++;
    }
    if (zone_is_active(from)) {
        zs->active--;
    }
    if (zone_is_active(to)) {
        zs->active++;
    }
    if (!zone_is_active(to)) {
        zone_drop_zrwa(zs, zone);   /* full, reset, finished: the ZRWA is freed */
    }
    if (zs->imp_prev) {
        if (from == FTL_ZONE_IMPLICIT_OPEN) {
            imp_remove(zs, (uint32_t)zone);
        }
        if (to == FTL_ZONE_IMPLICIT_OPEN) {
            imp_append(zs, (uint32_t)zone);
        }
    }
    zs->state[zone] = to;
}

/* ---- life ---- */

static bool params_valid(const struct zone_state_params *p)
{
    if (!p || p->zones == 0 || p->zones >= NO_ZONE || p->zone_sectors == 0 ||
        p->cap_sectors == 0 || p->cap_sectors > p->zone_sectors ||
        p->zones > UINT64_MAX / p->zone_sectors) {
        return false;
    }
    if (p->zrwa_resources &&
        (p->zrwa_fg_sectors == 0 || p->zrwa_sectors == 0 ||
         p->zrwa_sectors % p->zrwa_fg_sectors || p->zrwa_sectors > p->cap_sectors)) {
        return false;
    }
    return !(p->max_open && p->max_active && p->max_open > p->max_active);
}

struct zone_state *zone_state_create(const struct zone_state_params *p)
{
    if (!params_valid(p)) {
        return NULL;
    }
    struct zone_state *zs = calloc(1, sizeof(*zs));
    if (!zs) {
        return NULL;
    }
    zs->p = *p;
    zs->sectors = p->zones * p->zone_sectors;
    size_t n = (size_t)p->zones;
    zs->state = malloc(n);
    zs->written = calloc(n, sizeof(*zs->written));
    zs->resets = calloc(n, sizeof(*zs->resets));
    bool ok = zs->state && zs->written && zs->resets;
    if (ok && p->max_open) {
        zs->imp_prev = calloc(n, sizeof(*zs->imp_prev));
        zs->imp_next = calloc(n, sizeof(*zs->imp_next));
        ok = zs->imp_prev && zs->imp_next;
    }
    if (ok && p->zrwa_resources) {
        zs->zrwa = calloc(n, 1);
        ok = zs->zrwa != NULL;
    }
    if (!ok) {
        zone_state_destroy(zs);
        return NULL;
    }
    for (size_t z = 0; z < n; z++) {
        zs->state[z] = FTL_ZONE_EMPTY;
        if (zs->imp_prev) {
            zs->imp_prev[z] = zs->imp_next[z] = NO_ZONE;
        }
    }
    zs->imp_head = zs->imp_tail = NO_ZONE;
    zs->counts[FTL_ZONE_EMPTY] = p->zones;
    return zs;
}

void zone_state_destroy(struct zone_state *zs)
{
    if (!zs) {
        return;
    }
    free(zs->state);
    free(zs->written);
    free(zs->resets);
    free(zs->imp_prev);
    free(zs->imp_next);
    free(zs->zrwa);
    free(zs);
}

/* ---- queries ---- */

void zone_state_get(const struct zone_state *zs, uint64_t zone, struct ftl_zone_info *out)
{
    if (zone >= zs->p.zones) {
        *out = (struct ftl_zone_info){ 0 };
        return;
    }
    uint64_t start = zone_start(zs, zone);
    *out = (struct ftl_zone_info){ .start = start, .cap = zs->p.cap_sectors,
                                   .wp = start + zs->written[zone],
                                   .state = zs->state[zone],
                                   .zrwa = zone_has_zrwa(zs, zone) };
}

void zone_state_counts(const struct zone_state *zs, uint64_t counts[FTL_ZONE_STATES])
{
    for (int s = 0; s < FTL_ZONE_STATES; s++) {
        counts[s] = zs->counts[s];
    }
}

uint32_t zone_state_open(const struct zone_state *zs)
{
    return zs->open;
}

uint32_t zone_state_active(const struct zone_state *zs)
{
    return zs->active;
}

uint64_t zone_state_resets(const struct zone_state *zs, uint64_t zone)
{
    return zone < zs->p.zones ? zs->resets[zone] : 0;
}

/* ---- resources ---- */

/*
 * Whether a zone in state `from` may enter an open state (2.1.1.4.1): from empty it needs
 * an active and an open resource, from closed an open one. When the open resources are
 * all taken, *victim is the implicitly open zone to close for room (else NO_ZONE). Checks
 * active first: closing a zone frees no active resource, and with max_active ==
 * max_open a full open count is a full active count, which the spec reports as Too Many
 * Active Zones.
 */
int zone_plan_open(const struct zone_state *zs, uint8_t from, uint32_t *victim)
{
    *victim = NO_ZONE;
    if (zone_is_open(from)) {
        return FTL_OK;
    }
    if (from == FTL_ZONE_EMPTY && zs->p.max_active && zs->active >= zs->p.max_active) {
        return FTL_E_TOO_MANY_ACTIVE;
    }
    if (zs->p.max_open && zs->open >= zs->p.max_open) {
        if (zs->imp_head == NO_ZONE) {
            return FTL_E_TOO_MANY_OPEN;
        }
        *victim = zs->imp_head;
    }
    return FTL_OK;
}

void zone_close_victim(struct zone_state *zs, uint32_t victim)
{
    if (victim != NO_ZONE) {
        zone_set_state(zs, victim, FTL_ZONE_CLOSED);
    }
}

/* ---- writes and reads ---- */

int zone_state_write(struct zone_state *zs, uint64_t slba, uint64_t nlb, bool append,
                     uint64_t *assigned)
{
    if (nlb == 0) {
        return FTL_E_INVAL;
    }
    if (slba >= zs->sectors) {
        return FTL_E_RANGE;
    }
    uint64_t zone = slba / zs->p.zone_sectors;
    uint64_t start = zone_start(zs, zone);
    if (append ? slba != start : nlb > zs->sectors - slba) {
        return append ? FTL_E_INVAL : FTL_E_RANGE;
    }
    uint8_t st = zs->state[zone];
    switch (st) {
    case FTL_ZONE_FULL:
        return FTL_E_ZONE_FULL;
    case FTL_ZONE_READ_ONLY:
        return FTL_E_ZONE_READ_ONLY;
    case FTL_ZONE_OFFLINE:
        return FTL_E_ZONE_OFFLINE;
    default:
        break;
    }
    if (zone_has_zrwa(zs, zone)) {
        return zrwa_admit_write(zs, zone, slba, nlb, append, assigned);
    }
    uint64_t wp = start + zs->written[zone];
    if (!append && slba != wp) {
        return FTL_E_ZONE_INVALID_WRITE;
    }
    /* also catches a write running into the next zone: cap <= zone size */
    if (nlb > zs->p.cap_sectors - zs->written[zone]) {
        return FTL_E_ZONE_BOUNDARY;
    }
    uint32_t victim;
    int rc = zone_plan_open(zs, st, &victim);
    if (rc != FTL_OK) {
        return rc;
    }
    zone_close_victim(zs, victim);
    if (st == FTL_ZONE_EMPTY || st == FTL_ZONE_CLOSED) {
        zone_set_state(zs, zone, FTL_ZONE_IMPLICIT_OPEN);
    }
    zs->written[zone] += nlb;
    if (zs->written[zone] == zs->p.cap_sectors) {
        zone_set_state(zs, zone, FTL_ZONE_FULL);
    }
    if (assigned) {
        *assigned = wp;
    }
    return FTL_OK;
}

static int range_check(const struct zone_state *zs, uint64_t slba, uint64_t nlb)
{
    if (nlb == 0) {
        return FTL_E_INVAL;
    }
    if (slba >= zs->sectors || nlb > zs->sectors - slba) {
        return FTL_E_RANGE;
    }
    return FTL_OK;
}

/* A read of an in-range [slba, slba + nlb): Zone Is Offline when it touches an offline
 * zone (2.1.1.2.1.2); it may cross zones (we report Read Across Zone Boundaries). */
static int offline_check(const struct zone_state *zs, uint64_t slba, uint64_t nlb)
{
    if (zs->counts[FTL_ZONE_OFFLINE] == 0) {
        return FTL_OK;
    }
    uint64_t last = (slba + nlb - 1) / zs->p.zone_sectors;
    for (uint64_t z = slba / zs->p.zone_sectors; z <= last; z++) {
        if (zs->state[z] == FTL_ZONE_OFFLINE) {
            return FTL_E_ZONE_OFFLINE;
        }
    }
    return FTL_OK;
}

int zone_state_read(const struct zone_state *zs, uint64_t slba, uint64_t nlb)
{
    int rc = range_check(zs, slba, nlb);
    return rc != FTL_OK ? rc : offline_check(zs, slba, nlb);
}

int zone_state_copy(struct zone_state *zs, const struct ftl_range *src, uint32_t nsrc,
                    uint64_t dest)
{
    if (!src || nsrc == 0) {
        return FTL_E_INVAL;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < nsrc; i++) {
        int rc = range_check(zs, src[i].slba, src[i].nlb);
        if (rc == FTL_OK) {
            rc = offline_check(zs, src[i].slba, src[i].nlb);
        }
        if (rc != FTL_OK) {
            return rc;
        }
        /* saturate: a total past the namespace is out of range at any destination */
        total = src[i].nlb > zs->sectors - total ? zs->sectors + 1 : total + src[i].nlb;
    }
    if (total > zs->sectors) {
        return FTL_E_RANGE;
    }
    /* Copy's flash side has no ZRWA path: a Copy into a ZRWA zone is refused (our limit,
     * docs/zns.md) */
    if (dest < zs->sectors && zone_has_zrwa(zs, dest / zs->p.zone_sectors)) {
        return FTL_E_ZONE_INVALID_OP;
    }
    return zone_state_write(zs, dest, total, false, NULL);
}

/* ---- consistency ---- */

/* Whether a zone in state st may have `written` sectors below its write pointer. */
static bool written_valid(const struct zone_state *zs, uint8_t st, uint64_t written,
                          bool zrwa)
{
    uint64_t cap = zs->p.cap_sectors;
    switch (st) {
    case FTL_ZONE_EMPTY:
    case FTL_ZONE_READ_ONLY:
    case FTL_ZONE_OFFLINE:
        return written == 0;
    case FTL_ZONE_IMPLICIT_OPEN:    /* opened by writing at least one sector (a ZRWA
                                     * zone's may all be in the window) */
        return (written >= 1 || zrwa) && written < cap;
    case FTL_ZONE_EXPLICIT_OPEN:
    case FTL_ZONE_CLOSED:
        return written < cap;
    case FTL_ZONE_FULL:
        return written == cap;
    }
    return false;   /* not a state */
}

#define CHECK_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int check_imp_fifo(const struct zone_state *zs, char *err, size_t errlen)
{
    uint64_t n = 0;
    uint32_t prev = NO_ZONE;
    for (uint32_t z = zs->imp_head; z != NO_ZONE; z = zs->imp_next[z]) {
        if (z >= zs->p.zones || n >= zs->p.zones) {
            CHECK_FAIL("implicitly-open FIFO is broken at zone %u", z);
        }
        if (zs->state[z] != FTL_ZONE_IMPLICIT_OPEN || zs->imp_prev[z] != prev) {
            CHECK_FAIL("implicitly-open FIFO holds zone %u in state 0x%x (prev %u)", z,
                       zs->state[z], zs->imp_prev[z]);
        }
        prev = z;
        n++;
    }
    if (prev != zs->imp_tail || n != zs->counts[FTL_ZONE_IMPLICIT_OPEN]) {
        CHECK_FAIL("implicitly-open FIFO has %llu zones ending at %u, state counts %llu "
                   "ending at %u", (unsigned long long)n, prev,
                   (unsigned long long)zs->counts[FTL_ZONE_IMPLICIT_OPEN], zs->imp_tail);
    }
    return 0;
}

int zone_state_check(const struct zone_state *zs, char *err, size_t errlen)
{
    uint64_t counts[FTL_ZONE_STATES] = { 0 };
    uint64_t open = 0, active = 0, zrwa = 0;
    for (uint64_t z = 0; z < zs->p.zones; z++) {
        uint8_t st = zs->state[z];
        if (!written_valid(zs, st, zs->written[z], zone_has_zrwa(zs, z))) {
            CHECK_FAIL("zone %llu in state 0x%x has %llu of %llu sectors written",
                       (unsigned long long)z, st, (unsigned long long)zs->written[z],
                       (unsigned long long)zs->p.cap_sectors);
        }
        if (zone_has_zrwa(zs, z)) {
            zrwa++;
            if (!zone_is_active(st) || zs->written[z] % zs->p.zrwa_fg_sectors) {
                CHECK_FAIL("zone %llu holds a ZRWA in state 0x%x with %llu sectors "
                           "committed", (unsigned long long)z, st,
                           (unsigned long long)zs->written[z]);
            }
        }
        counts[st]++;
        open += zone_is_open(st);
        active += zone_is_active(st);
    }
    for (int s = 0; s < FTL_ZONE_STATES; s++) {
        if (counts[s] != zs->counts[s]) {
            CHECK_FAIL("%llu zones in state 0x%x, counted %llu",
                       (unsigned long long)counts[s], s, (unsigned long long)zs->counts[s]);
        }
    }
    if (open != zs->open || active != zs->active) {
        CHECK_FAIL("open %llu active %llu, counted open %u active %u",
                   (unsigned long long)open, (unsigned long long)active, zs->open,
                   zs->active);
    }
    if ((zs->p.max_open && open > zs->p.max_open) ||
        (zs->p.max_active && active > zs->p.max_active)) {
        CHECK_FAIL("open %llu active %llu past the limits %u / %u", (unsigned long long)open,
                   (unsigned long long)active, zs->p.max_open, zs->p.max_active);
    }
    if (zrwa != zs->zrwa_used || zrwa > zs->p.zrwa_resources) {
        CHECK_FAIL("%llu zones hold a ZRWA, counted %u of %u", (unsigned long long)zrwa,
                   zs->zrwa_used, zs->p.zrwa_resources);
    }
    return zs->imp_prev ? check_imp_fifo(zs, err, errlen) : 0;
}

/* ---- Zone Random Write Areas: the zone's own record and a write in its window ---- */

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
void zone_zrwa_commit(struct zone_state *zs, uint64_t zone, uint64_t n)
{
    zs->written[zone] += n;
    if (zs->written[zone] == zs->p.cap_sectors) {
        zone_set_state(zs, zone, FTL_ZONE_FULL);
    }
}

/* A closed zone is opened implicitly to take a write or a flush (a ZRWA zone is never
 * empty: it was opened). */
int zone_open_for_io(struct zone_state *zs, uint64_t zone, uint32_t *victim)
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
    int rc = zone_open_for_io(zs, zone, &victim);
    if (rc != FTL_OK) {
        return rc;
    }
    zone_zrwa_commit(zs, zone, zrwa_implicit_commit(w, end, zrwas, zs->p.zrwa_fg_sectors,
                                          zs->p.cap_sectors));
    if (assigned) {
        *assigned = slba;
    }
    return FTL_OK;
}
