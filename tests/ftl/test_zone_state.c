/*
 * The zone state machine (zone_state.c) against the NVMe Zoned Namespace Command Set:
 * every write / append / read status, every Zone Management Send row and its Select All
 * form, the open and active limits with the implicit close, the wear rule, Copy admission,
 * and a randomized run checking after every operation that the counts stay consistent,
 * that an error changes nothing and that a success changes only what it reports.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "femu_ftl/ftl.h"
#include "rng.h"
#include "zns/zone_state.h"

enum { EMPTY = FTL_ZONE_EMPTY, IOPEN = FTL_ZONE_IMPLICIT_OPEN,
       EOPEN = FTL_ZONE_EXPLICIT_OPEN, CLOSED = FTL_ZONE_CLOSED, RONLY = FTL_ZONE_READ_ONLY,
       FULL = FTL_ZONE_FULL, OFFLINE = FTL_ZONE_OFFLINE };
#define CLOSE FTL_ZONE_ACTION_CLOSE
#define FINISH FTL_ZONE_ACTION_FINISH
#define OPEN FTL_ZONE_ACTION_OPEN
#define RESET FTL_ZONE_ACTION_RESET
#define OFFLINE_ZONE FTL_ZONE_ACTION_OFFLINE

static struct zone_state *make(uint64_t zones, uint64_t zsz, uint64_t cap, uint32_t max_open,
                               uint32_t max_active, uint64_t reset_limit)
{
    struct zone_state_params p = { .zones = zones, .zone_sectors = zsz, .cap_sectors = cap,
                                   .max_open = max_open, .max_active = max_active,
                                   .reset_limit = reset_limit };
    struct zone_state *zs = zone_state_create(&p);
    if (!zs) {
        fprintf(stderr, "zone_state_create failed\n");
        exit(1);
    }
    return zs;
}

static struct ftl_zone_info info(const struct zone_state *zs, uint64_t zone)
{
    struct ftl_zone_info i;
    zone_state_get(zs, zone, &i);
    return i;
}

static uint8_t state_of(const struct zone_state *zs, uint64_t zone)
{
    return info(zs, zone).state;
}

static uint64_t wp_of(const struct zone_state *zs, uint64_t zone)
{
    return info(zs, zone).wp;
}

static int write_at(struct zone_state *zs, uint64_t slba, uint64_t nlb)
{
    uint64_t assigned = UINT64_MAX;
    int rc = zone_state_write(zs, slba, nlb, false, &assigned);
    if (rc == FTL_OK && assigned != slba) {
        fprintf(stderr, "    write at %llu assigned %llu\n", (unsigned long long)slba,
                (unsigned long long)assigned);
        return 99;
    }
    return rc;
}

/* Single-zone action; *n (when given) gets the count of changed zones. */
static int mgmt(struct zone_state *zs, uint64_t slba, enum ftl_zone_action a, size_t *n)
{
    uint64_t zones[64];
    size_t ignored;
    return zone_state_mgmt(zs, slba, a, false, zones, n ? n : &ignored);
}

#define CHECK_ZS(zs) do { \
        char zs_err_[256] = ""; \
        if (!check_record(zone_state_check((zs), zs_err_, sizeof(zs_err_)) == 0, \
                          __FILE__, __LINE__, "zone_state_check")) \
            fprintf(stderr, "    %s\n", zs_err_); \
    } while (0)

/* ---- a copy of everything observable, to prove an error changed nothing ---- */

struct snapshot {
    uint64_t zones;
    struct ftl_zone_info *info;
    uint64_t *resets;
    uint32_t open, active;
};

static void snap_take(const struct zone_state *zs, uint64_t zones, struct snapshot *s)
{
    s->zones = zones;
    for (uint64_t z = 0; z < zones; z++) {
        s->info[z] = info(zs, z);
        s->resets[z] = zone_state_resets(zs, z);
    }
    s->open = zone_state_open(zs);
    s->active = zone_state_active(zs);
}

static bool zone_same(const struct snapshot *s, const struct zone_state *zs, uint64_t z)
{
    struct ftl_zone_info i = info(zs, z);
    return i.state == s->info[z].state && i.wp == s->info[z].wp;
}

static bool snap_unchanged(const struct snapshot *s, const struct zone_state *zs)
{
    for (uint64_t z = 0; z < s->zones; z++) {
        if (!zone_same(s, zs, z) || zone_state_resets(zs, z) != s->resets[z]) {
            return false;
        }
    }
    return s->open == zone_state_open(zs) && s->active == zone_state_active(zs);
}

static void snap_alloc(struct snapshot *s, uint64_t zones)
{
    s->info = calloc(zones, sizeof(*s->info));
    s->resets = calloc(zones, sizeof(*s->resets));
}

static void snap_free(struct snapshot *s)
{
    free(s->info);
    free(s->resets);
}

/* ---- creation ---- */

static void test_create(void)
{
    struct zone_state_params bad[] = {
        { .zones = 0, .zone_sectors = 8, .cap_sectors = 8 },
        { .zones = 4, .zone_sectors = 0, .cap_sectors = 0 },
        { .zones = 4, .zone_sectors = 8, .cap_sectors = 0 },
        { .zones = 4, .zone_sectors = 8, .cap_sectors = 9 },
        { .zones = 4, .zone_sectors = 8, .cap_sectors = 8, .max_open = 3, .max_active = 2 },
        { .zones = 3, .zone_sectors = UINT64_MAX / 2, .cap_sectors = 1 },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(zone_state_create(&bad[i]) == NULL);
    }
    CHECK(zone_state_create(NULL) == NULL);
    struct zone_state *zs = make(4, 8, 6, 0, 3, 0);    /* open limit from active alone */
    uint64_t counts[FTL_ZONE_STATES];
    zone_state_counts(zs, counts);
    CHECK_EQ_U64(counts[EMPTY], 4);
    CHECK_EQ_U64(zone_state_open(zs), 0);
    CHECK_EQ_U64(zone_state_active(zs), 0);
    struct ftl_zone_info i = info(zs, 3);
    CHECK_EQ_U64(i.start, 24);
    CHECK_EQ_U64(i.cap, 6);
    CHECK_EQ_U64(i.wp, 24);
    CHECK_EQ_U64(i.state, EMPTY);
    CHECK_EQ_U64(zone_state_resets(zs, 3), 0);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
    zone_state_destroy(NULL);
}

/* ---- writes ---- */

static void test_write_statuses(void)
{
    /* 4 zones of 8 sectors, 6 writable */
    struct zone_state *zs = make(4, 8, 6, 0, 0, 0);
    struct snapshot s;
    snap_alloc(&s, 4);
    snap_take(zs, 4, &s);
    CHECK_EQ_U64(write_at(zs, 0, 0), FTL_E_INVAL);
    CHECK_EQ_U64(write_at(zs, 32, 1), FTL_E_RANGE);
    CHECK_EQ_U64(write_at(zs, 31, 2), FTL_E_RANGE);
    CHECK_EQ_U64(write_at(zs, UINT64_MAX, 1), FTL_E_RANGE);
    CHECK_EQ_U64(write_at(zs, 8, UINT64_MAX), FTL_E_RANGE);
    CHECK_EQ_U64(write_at(zs, UINT64_MAX - 3, 8), FTL_E_RANGE);
    CHECK_EQ_U64(write_at(zs, 1, 1), FTL_E_ZONE_INVALID_WRITE);  /* ahead of the wp */
    CHECK_EQ_U64(write_at(zs, 0, 7), FTL_E_ZONE_BOUNDARY);       /* past the capacity */
    CHECK_EQ_U64(write_at(zs, 0, 9), FTL_E_ZONE_BOUNDARY);       /* into the next zone */
    CHECK_EQ_U64(write_at(zs, 6, 1), FTL_E_ZONE_INVALID_WRITE);  /* beyond the capacity */
    CHECK(snap_unchanged(&s, zs));

    CHECK_EQ_U64(write_at(zs, 0, 2), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), IOPEN);
    CHECK_EQ_U64(wp_of(zs, 0), 2);
    CHECK_EQ_U64(zone_state_open(zs), 1);
    CHECK_EQ_U64(zone_state_active(zs), 1);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_E_ZONE_INVALID_WRITE);  /* behind the wp */
    CHECK_EQ_U64(write_at(zs, 2, 5), FTL_E_ZONE_BOUNDARY);
    /* a write ending exactly at the capacity fills the zone and frees its resources */
    CHECK_EQ_U64(write_at(zs, 2, 4), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), FULL);
    CHECK_EQ_U64(wp_of(zs, 0), 6);
    CHECK_EQ_U64(zone_state_open(zs), 0);
    CHECK_EQ_U64(zone_state_active(zs), 0);
    CHECK_EQ_U64(write_at(zs, 6, 1), FTL_E_ZONE_FULL);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_E_ZONE_FULL);
    /* one write filling an empty zone at once: empty -> full */
    CHECK_EQ_U64(write_at(zs, 8, 6), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 1), FULL);
    /* the last zone, to the end of its capacity */
    CHECK_EQ_U64(write_at(zs, 24, 6), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 3), FULL);
    CHECK_ZS(zs);
    snap_free(&s);
    zone_state_destroy(zs);

    /* capacity == size: a write crossing into the next zone is a boundary error */
    zs = make(2, 4, 4, 0, 0, 0);
    CHECK_EQ_U64(write_at(zs, 0, 3), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 3, 2), FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64(write_at(zs, 3, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), FULL);
    CHECK_EQ_U64(wp_of(zs, 0), 4);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

static void test_write_on_states(void)
{
    struct zone_state *zs = make(4, 8, 8, 0, 0, 1);    /* one reset wears a zone out */
    /* closed -> implicitly open on write */
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(mgmt(zs, 0, CLOSE, NULL), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    CHECK_EQ_U64(zone_state_open(zs), 0);
    CHECK_EQ_U64(zone_state_active(zs), 1);
    CHECK_EQ_U64(write_at(zs, 1, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), IOPEN);
    CHECK_EQ_U64(zone_state_open(zs), 1);
    /* explicitly open stays explicitly open */
    CHECK_EQ_U64(mgmt(zs, 8, OPEN, NULL), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 8, 2), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 1), EOPEN);
    CHECK_EQ_U64(write_at(zs, 10, 6), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 1), FULL);
    /* read only and offline */
    CHECK_EQ_U64(write_at(zs, 16, 1), FTL_OK);
    CHECK_EQ_U64(mgmt(zs, 16, RESET, NULL), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 2), RONLY);
    CHECK_EQ_U64(write_at(zs, 16, 1), FTL_E_ZONE_READ_ONLY);
    CHECK_EQ_U64(zone_state_write(zs, 16, 1, true, NULL), FTL_E_ZONE_READ_ONLY);
    CHECK_EQ_U64(mgmt(zs, 16, OFFLINE_ZONE, NULL), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 16, 1), FTL_E_ZONE_OFFLINE);
    CHECK_EQ_U64(zone_state_write(zs, 16, 1, true, NULL), FTL_E_ZONE_OFFLINE);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

static void test_append(void)
{
    struct zone_state *zs = make(3, 8, 6, 0, 0, 0);
    uint64_t a = 0;
    CHECK_EQ_U64(zone_state_write(zs, 8, 0, true, &a), FTL_E_INVAL);
    CHECK_EQ_U64(zone_state_write(zs, 9, 1, true, &a), FTL_E_INVAL);   /* not a zone start */
    CHECK_EQ_U64(zone_state_write(zs, 24, 1, true, &a), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_write(zs, UINT64_MAX, 1, true, &a), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_write(zs, 8, 7, true, &a), FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64(zone_state_write(zs, 8, UINT64_MAX, true, &a), FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64(state_of(zs, 1), EMPTY);
    /* each append lands at the write pointer and reports it */
    CHECK_EQ_U64(zone_state_write(zs, 8, 2, true, &a), FTL_OK);
    CHECK_EQ_U64(a, 8);
    CHECK_EQ_U64(zone_state_write(zs, 8, 1, true, &a), FTL_OK);
    CHECK_EQ_U64(a, 10);
    CHECK_EQ_U64(state_of(zs, 1), IOPEN);
    CHECK_EQ_U64(wp_of(zs, 1), 11);
    CHECK_EQ_U64(zone_state_write(zs, 8, 4, true, &a), FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64(a, 10);    /* untouched on error */
    CHECK_EQ_U64(zone_state_write(zs, 8, 3, true, &a), FTL_OK);
    CHECK_EQ_U64(a, 11);
    CHECK_EQ_U64(state_of(zs, 1), FULL);
    CHECK_EQ_U64(zone_state_write(zs, 8, 1, true, &a), FTL_E_ZONE_FULL);
    /* a plain write and an append interleave on one write pointer */
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(zone_state_write(zs, 0, 1, true, &a), FTL_OK);
    CHECK_EQ_U64(a, 1);
    CHECK_EQ_U64(write_at(zs, 2, 1), FTL_OK);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

/* ---- resources ---- */

static void test_implicit_close(void)
{
    struct zone_state *zs = make(8, 4, 4, 2, 0, 0);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 4, 1), FTL_OK);
    CHECK_EQ_U64(zone_state_open(zs), 2);
    /* a third zone closes the one implicitly opened longest ago (zone 0) */
    CHECK_EQ_U64(write_at(zs, 8, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    CHECK_EQ_U64(wp_of(zs, 0), 1);
    CHECK_EQ_U64(state_of(zs, 1), IOPEN);
    CHECK_EQ_U64(state_of(zs, 2), IOPEN);
    CHECK_EQ_U64(zone_state_open(zs), 2);
    CHECK_EQ_U64(zone_state_active(zs), 3);
    /* writing an open zone again does not make it younger: zone 1 goes next */
    CHECK_EQ_U64(write_at(zs, 5, 1), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 12, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 1), CLOSED);
    CHECK_EQ_U64(state_of(zs, 2), IOPEN);
    CHECK_EQ_U64(state_of(zs, 3), IOPEN);
    /* a closed zone reopened by a write needs an open resource too: zone 2 goes */
    CHECK_EQ_U64(write_at(zs, 1, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), IOPEN);
    CHECK_EQ_U64(state_of(zs, 2), CLOSED);
    /* explicitly open zones are never closed for room */
    CHECK_EQ_U64(mgmt(zs, 16, OPEN, NULL), FTL_OK);    /* closes zone 3 */
    CHECK_EQ_U64(state_of(zs, 3), CLOSED);
    CHECK_EQ_U64(mgmt(zs, 20, OPEN, NULL), FTL_OK);    /* closes zone 0 */
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    struct snapshot s;
    snap_alloc(&s, 8);
    snap_take(zs, 8, &s);
    CHECK_EQ_U64(write_at(zs, 24, 1), FTL_E_TOO_MANY_OPEN);
    CHECK_EQ_U64(write_at(zs, 2, 1), FTL_E_TOO_MANY_OPEN);          /* closed zone 0 */
    CHECK_EQ_U64(zone_state_write(zs, 24, 1, true, NULL), FTL_E_TOO_MANY_OPEN);
    CHECK_EQ_U64(mgmt(zs, 24, OPEN, NULL), FTL_E_TOO_MANY_OPEN);
    CHECK_EQ_U64(mgmt(zs, 0, OPEN, NULL), FTL_E_TOO_MANY_OPEN);
    CHECK(snap_unchanged(&s, zs));
    /* writes into the explicitly open zones still work */
    CHECK_EQ_U64(write_at(zs, 16, 1), FTL_OK);
    CHECK_ZS(zs);
    snap_free(&s);
    zone_state_destroy(zs);

    /* Open Zone closes an implicitly open zone for room, and reports both, in order */
    zs = make(4, 4, 4, 1, 0, 0);
    uint64_t changed[4];
    size_t n = 0;
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(zone_state_mgmt(zs, 4, OPEN, false, changed, &n), FTL_OK);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(changed[0], 0);
    CHECK_EQ_U64(changed[1], 1);
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    CHECK_EQ_U64(state_of(zs, 1), EOPEN);
    CHECK_EQ_U64(mgmt(zs, 4, CLOSE, NULL), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 12, 1), FTL_OK);
    CHECK_EQ_U64(zone_state_mgmt(zs, 8, OPEN, false, changed, &n), FTL_OK);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(changed[0], 2);
    CHECK_EQ_U64(changed[1], 3);
    CHECK_EQ_U64(state_of(zs, 3), CLOSED);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

static void test_too_many_active(void)
{
    /* max_active > max_open: the active limit answers Too Many Active Zones */
    struct zone_state *zs = make(6, 4, 4, 1, 2, 0);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 4, 1), FTL_OK);      /* closes zone 0 */
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    CHECK_EQ_U64(zone_state_active(zs), 2);
    struct snapshot s;
    snap_alloc(&s, 6);
    snap_take(zs, 6, &s);
    CHECK_EQ_U64(write_at(zs, 8, 1), FTL_E_TOO_MANY_ACTIVE);
    CHECK_EQ_U64(zone_state_write(zs, 8, 1, true, NULL), FTL_E_TOO_MANY_ACTIVE);
    CHECK_EQ_U64(mgmt(zs, 8, OPEN, NULL), FTL_E_TOO_MANY_ACTIVE);
    CHECK(snap_unchanged(&s, zs));
    snap_free(&s);
    /* a closed zone needs no active resource: it reopens, closing zone 1 */
    CHECK_EQ_U64(write_at(zs, 1, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), IOPEN);
    CHECK_EQ_U64(state_of(zs, 1), CLOSED);
    /* finishing an empty zone takes no resource (2.1.1.4.1 g) */
    CHECK_EQ_U64(mgmt(zs, 20, FINISH, NULL), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 5), FULL);
    CHECK_EQ_U64(wp_of(zs, 5), 24);
    CHECK_EQ_U64(zone_state_active(zs), 2);
    /* a full zone frees its active resource */
    CHECK_EQ_U64(mgmt(zs, 4, FINISH, NULL), FTL_OK);
    CHECK_EQ_U64(zone_state_active(zs), 1);
    CHECK_EQ_U64(write_at(zs, 8, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    CHECK_EQ_U64(state_of(zs, 2), IOPEN);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    /* equal limits: a full open count is a full active count -> Too Many Active Zones */
    zs = make(4, 4, 4, 2, 2, 0);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(mgmt(zs, 4, OPEN, NULL), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 8, 1), FTL_E_TOO_MANY_ACTIVE);
    CHECK_EQ_U64(mgmt(zs, 8, OPEN, NULL), FTL_E_TOO_MANY_ACTIVE);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    /* an active limit alone bounds the open zones too */
    zs = make(4, 4, 4, 0, 1, 0);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 4, 1), FTL_E_TOO_MANY_ACTIVE);
    CHECK_EQ_U64(mgmt(zs, 0, CLOSE, NULL), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 4, 1), FTL_E_TOO_MANY_ACTIVE);    /* closed is still active */
    CHECK_EQ_U64(mgmt(zs, 0, RESET, NULL), FTL_OK);
    CHECK_EQ_U64(write_at(zs, 4, 1), FTL_OK);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

/* ---- Zone Management Send, one zone ---- */

/* Puts zone 1 of a fresh zs (reset_limit 2) in state st, with 2 sectors written where a
 * write pointer means something. */
static void put_in_state(struct zone_state *zs, uint8_t st)
{
    const uint64_t s = 8;   /* zone 1's start */
    switch (st) {
    case EMPTY:
        break;
    case IOPEN:
        write_at(zs, s, 2);
        break;
    case EOPEN:
        mgmt(zs, s, OPEN, NULL);
        write_at(zs, s, 2);
        break;
    case CLOSED:
        write_at(zs, s, 2);
        mgmt(zs, s, CLOSE, NULL);
        break;
    case FULL:
        write_at(zs, s, 2);
        mgmt(zs, s, FINISH, NULL);
        break;
    case RONLY:
    case OFFLINE:
        for (int i = 0; i < 2; i++) {
            write_at(zs, s, 1);
            mgmt(zs, s, RESET, NULL);
        }
        if (st == OFFLINE) {
            mgmt(zs, s, OFFLINE_ZONE, NULL);
        }
        break;
    }
}

struct row {
    uint8_t action, from;
    int rc;
    uint8_t to;     /* the state after */
};

/* 3.4.3.1.1-5 of the ZNS command set, revision 1.1. */
static const struct row mgmt_rows[] = {
    { OPEN, EMPTY, FTL_OK, EOPEN },
    { OPEN, IOPEN, FTL_OK, EOPEN },
    { OPEN, EOPEN, FTL_OK, EOPEN },
    { OPEN, CLOSED, FTL_OK, EOPEN },
    { OPEN, FULL, FTL_E_ZONE_TRANSITION, FULL },
    { OPEN, RONLY, FTL_E_ZONE_TRANSITION, RONLY },
    { OPEN, OFFLINE, FTL_E_ZONE_TRANSITION, OFFLINE },
    { CLOSE, EMPTY, FTL_E_ZONE_TRANSITION, EMPTY },
    { CLOSE, IOPEN, FTL_OK, CLOSED },
    { CLOSE, EOPEN, FTL_OK, CLOSED },
    { CLOSE, CLOSED, FTL_OK, CLOSED },
    { CLOSE, FULL, FTL_E_ZONE_TRANSITION, FULL },
    { CLOSE, RONLY, FTL_E_ZONE_TRANSITION, RONLY },
    { CLOSE, OFFLINE, FTL_E_ZONE_TRANSITION, OFFLINE },
    { FINISH, EMPTY, FTL_OK, FULL },
    { FINISH, IOPEN, FTL_OK, FULL },
    { FINISH, EOPEN, FTL_OK, FULL },
    { FINISH, CLOSED, FTL_OK, FULL },
    { FINISH, FULL, FTL_OK, FULL },
    { FINISH, RONLY, FTL_E_ZONE_TRANSITION, RONLY },
    { FINISH, OFFLINE, FTL_E_ZONE_TRANSITION, OFFLINE },
    { RESET, EMPTY, FTL_OK, EMPTY },
    { RESET, IOPEN, FTL_OK, EMPTY },
    { RESET, EOPEN, FTL_OK, EMPTY },
    { RESET, CLOSED, FTL_OK, EMPTY },
    { RESET, FULL, FTL_OK, EMPTY },
    { RESET, RONLY, FTL_E_ZONE_TRANSITION, RONLY },
    { RESET, OFFLINE, FTL_E_ZONE_TRANSITION, OFFLINE },
    { OFFLINE_ZONE, EMPTY, FTL_E_ZONE_TRANSITION, EMPTY },
    { OFFLINE_ZONE, IOPEN, FTL_E_ZONE_TRANSITION, IOPEN },
    { OFFLINE_ZONE, EOPEN, FTL_E_ZONE_TRANSITION, EOPEN },
    { OFFLINE_ZONE, CLOSED, FTL_E_ZONE_TRANSITION, CLOSED },
    { OFFLINE_ZONE, FULL, FTL_E_ZONE_TRANSITION, FULL },
    { OFFLINE_ZONE, RONLY, FTL_OK, OFFLINE },
    { OFFLINE_ZONE, OFFLINE, FTL_OK, OFFLINE },
};

static bool open_state(uint8_t st)
{
    return st == IOPEN || st == EOPEN;
}

static bool active_state(uint8_t st)
{
    return open_state(st) || st == CLOSED;
}

static void test_mgmt_rows(void)
{
    for (size_t r = 0; r < sizeof(mgmt_rows) / sizeof(mgmt_rows[0]); r++) {
        const struct row *row = &mgmt_rows[r];
        struct zone_state *zs = make(3, 8, 6, 0, 0, 2);
        put_in_state(zs, row->from);
        if (!check_record(state_of(zs, 1) == row->from, __FILE__, __LINE__, "setup")) {
            fprintf(stderr, "    row %zu: zone in 0x%x, wanted 0x%x\n", r, state_of(zs, 1),
                    row->from);
        }
        uint64_t wp_before = wp_of(zs, 1), resets_before = zone_state_resets(zs, 1);
        uint64_t changed[3] = { 99, 99, 99 };
        size_t n = 99;
        int rc = zone_state_mgmt(zs, 8, (enum ftl_zone_action)row->action, false, changed, &n);
        uint8_t to = state_of(zs, 1);
        if (!check_record(rc == row->rc && to == row->to, __FILE__, __LINE__, "mgmt row")) {
            fprintf(stderr, "    row %zu: action %u from 0x%x gave %d -> 0x%x, wanted %d "
                    "-> 0x%x\n", r, row->action, row->from, rc, to, row->rc, row->to);
        }
        /* the changed list: this zone, exactly when its state or wp moved */
        bool moved = to != row->from || wp_of(zs, 1) != wp_before;
        CHECK_EQ_U64(n, moved ? 1 : 0);
        if (moved) {
            CHECK_EQ_U64(changed[0], 1);
        }
        /* the write pointer each target state implies */
        if (rc == FTL_OK && row->from != to) {
            uint64_t want = to == FULL ? 8 + 6 : to == EMPTY ? 8 : wp_before;
            CHECK_EQ_U64(wp_of(zs, 1), want);
        }
        bool reset = rc == FTL_OK && row->action == RESET && row->from != EMPTY;
        CHECK_EQ_U64(zone_state_resets(zs, 1), resets_before + (reset ? 1 : 0));
        CHECK_EQ_U64(zone_state_open(zs), open_state(to) ? 1 : 0);
        CHECK_EQ_U64(zone_state_active(zs), active_state(to) ? 1 : 0);
        CHECK_ZS(zs);
        zone_state_destroy(zs);
    }
}

/* Close keeps an unwritten zone closed and active (ZNS 2.1.1.3.3), unlike ZBC. */
static void test_close_unwritten(void)
{
    struct zone_state *zs = make(2, 8, 8, 0, 0, 0);
    CHECK_EQ_U64(mgmt(zs, 0, OPEN, NULL), FTL_OK);
    CHECK_EQ_U64(zone_state_active(zs), 1);
    CHECK_EQ_U64(mgmt(zs, 0, CLOSE, NULL), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), CLOSED);
    CHECK_EQ_U64(wp_of(zs, 0), 0);
    CHECK_EQ_U64(zone_state_open(zs), 0);
    CHECK_EQ_U64(zone_state_active(zs), 1);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), IOPEN);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

static void test_mgmt_addressing(void)
{
    struct zone_state *zs = make(4, 8, 8, 0, 0, 0);
    uint64_t changed[4];
    size_t n = 99;
    CHECK_EQ_U64(zone_state_mgmt(zs, 32, OPEN, false, changed, &n), FTL_E_RANGE);
    CHECK_EQ_U64(n, 0);
    CHECK_EQ_U64(mgmt(zs, UINT64_MAX, OPEN, NULL), FTL_E_RANGE);
    CHECK_EQ_U64(mgmt(zs, 9, OPEN, NULL), FTL_E_INVAL);
    CHECK_EQ_U64(mgmt(zs, 31, RESET, NULL), FTL_E_INVAL);
    CHECK_EQ_U64(mgmt(zs, 0, (enum ftl_zone_action)0, NULL), FTL_E_INVAL);
    CHECK_EQ_U64(mgmt(zs, 0, (enum ftl_zone_action)6, NULL), FTL_E_INVAL);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, (enum ftl_zone_action)0x10, true, changed, &n),
                 FTL_E_INVAL);
    /* select all ignores slba; zones and nzones may be NULL */
    CHECK_EQ_U64(zone_state_mgmt(zs, UINT64_MAX, FINISH, true, NULL, &n), FTL_OK);
    CHECK_EQ_U64(n, 0);
    CHECK_EQ_U64(zone_state_mgmt(zs, 24, OPEN, false, NULL, NULL), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 3), EOPEN);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

/* ---- Zone Management Send, Select All ---- */

/* 8 zones: empty, implicitly open, explicitly open, closed, full, read only, offline,
 * closed (unwritten). reset_limit 2 makes the read only ones. */
static struct zone_state *mixed(uint32_t max_open)
{
    struct zone_state *zs = make(8, 4, 4, max_open, 0, 2);
    for (int i = 0; i < 2; i++) {
        write_at(zs, 20, 1);
        mgmt(zs, 20, RESET, NULL);
        write_at(zs, 24, 1);
        mgmt(zs, 24, RESET, NULL);
    }
    mgmt(zs, 24, OFFLINE_ZONE, NULL);
    write_at(zs, 12, 1);
    mgmt(zs, 12, CLOSE, NULL);
    mgmt(zs, 28, OPEN, NULL);
    mgmt(zs, 28, CLOSE, NULL);
    write_at(zs, 16, 3);
    mgmt(zs, 16, FINISH, NULL);
    mgmt(zs, 8, OPEN, NULL);
    write_at(zs, 8, 1);
    write_at(zs, 4, 2);
    static const uint8_t want[8] = { EMPTY, IOPEN, EOPEN, CLOSED, FULL, RONLY, OFFLINE,
                                     CLOSED };
    for (uint64_t z = 0; z < 8; z++) {
        CHECK_EQ_U64(state_of(zs, z), want[z]);
    }
    return zs;
}

static void check_changed(const uint64_t *got, size_t n, const uint64_t *want, size_t nwant)
{
    CHECK_EQ_U64(n, nwant);
    for (size_t i = 0; i < n && i < nwant; i++) {
        CHECK_EQ_U64(got[i], want[i]);
    }
}

static void test_select_all(void)
{
    uint64_t changed[8];
    size_t n;

    struct zone_state *zs = mixed(0);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, OPEN, true, changed, &n), FTL_OK);
    check_changed(changed, n, (const uint64_t[]){ 3, 7 }, 2);
    CHECK_EQ_U64(state_of(zs, 3), EOPEN);
    CHECK_EQ_U64(state_of(zs, 7), EOPEN);
    CHECK_EQ_U64(state_of(zs, 1), IOPEN);   /* only closed zones are opened */
    CHECK_EQ_U64(state_of(zs, 0), EMPTY);
    CHECK_EQ_U64(zone_state_open(zs), 4);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    zs = mixed(0);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, CLOSE, true, changed, &n), FTL_OK);
    check_changed(changed, n, (const uint64_t[]){ 1, 2 }, 2);
    CHECK_EQ_U64(state_of(zs, 1), CLOSED);
    CHECK_EQ_U64(state_of(zs, 2), CLOSED);
    CHECK_EQ_U64(zone_state_open(zs), 0);
    CHECK_EQ_U64(zone_state_active(zs), 4);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    zs = mixed(0);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, FINISH, true, changed, &n), FTL_OK);
    check_changed(changed, n, (const uint64_t[]){ 1, 2, 3, 7 }, 4);
    CHECK_EQ_U64(state_of(zs, 0), EMPTY);   /* empty zones are not finished by select all */
    for (uint64_t z = 1; z <= 4; z++) {
        CHECK_EQ_U64(state_of(zs, z), FULL);
        CHECK_EQ_U64(wp_of(zs, z), z * 4 + 4);
    }
    CHECK_EQ_U64(zone_state_active(zs), 0);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    zs = mixed(0);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, RESET, true, changed, &n), FTL_OK);
    check_changed(changed, n, (const uint64_t[]){ 1, 2, 3, 4, 7 }, 5);
    for (uint64_t z = 0; z <= 4; z++) {
        CHECK_EQ_U64(state_of(zs, z), EMPTY);
        CHECK_EQ_U64(wp_of(zs, z), z * 4);
    }
    CHECK_EQ_U64(state_of(zs, 5), RONLY);
    CHECK_EQ_U64(state_of(zs, 6), OFFLINE);
    CHECK_EQ_U64(state_of(zs, 7), EMPTY);
    CHECK_EQ_U64(zone_state_resets(zs, 0), 0);
    CHECK_EQ_U64(zone_state_resets(zs, 4), 1);
    CHECK_EQ_U64(zone_state_active(zs), 0);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    zs = mixed(0);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, OFFLINE_ZONE, true, changed, &n), FTL_OK);
    check_changed(changed, n, (const uint64_t[]){ 5 }, 1);
    CHECK_EQ_U64(state_of(zs, 5), OFFLINE);
    CHECK_ZS(zs);
    /* again: nothing left to act on is not an error */
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, OFFLINE_ZONE, true, changed, &n), FTL_OK);
    CHECK_EQ_U64(n, 0);
    zone_state_destroy(zs);

    /* open all with too few open resources for every closed zone: nothing opens */
    zs = mixed(3);
    struct snapshot s;
    snap_alloc(&s, 8);
    snap_take(zs, 8, &s);
    n = 99;
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, OPEN, true, changed, &n), FTL_E_TOO_MANY_OPEN);
    CHECK_EQ_U64(n, 0);
    CHECK(snap_unchanged(&s, zs));
    /* with one closed zone fewer, they fit exactly */
    CHECK_EQ_U64(mgmt(zs, 28, FINISH, NULL), FTL_OK);
    CHECK_EQ_U64(zone_state_mgmt(zs, 0, OPEN, true, changed, &n), FTL_OK);
    check_changed(changed, n, (const uint64_t[]){ 3 }, 1);
    CHECK_EQ_U64(zone_state_open(zs), 3);
    CHECK_ZS(zs);
    snap_free(&s);
    zone_state_destroy(zs);
}

/* ---- wear ---- */

static void test_wear(void)
{
    struct zone_state *zs = make(2, 4, 4, 0, 0, 3);
    for (uint64_t r = 1; r <= 2; r++) {
        CHECK_EQ_U64(write_at(zs, 0, 4), FTL_OK);
        CHECK_EQ_U64(mgmt(zs, 0, RESET, NULL), FTL_OK);
        CHECK_EQ_U64(state_of(zs, 0), EMPTY);
        CHECK_EQ_U64(zone_state_resets(zs, 0), r);
    }
    /* resetting an empty zone erases nothing and does not count */
    CHECK_EQ_U64(mgmt(zs, 0, RESET, NULL), FTL_OK);
    CHECK_EQ_U64(zone_state_resets(zs, 0), 2);
    /* the third reset wears the zone out */
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_OK);
    size_t n;
    CHECK_EQ_U64(mgmt(zs, 0, RESET, &n), FTL_OK);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(zone_state_resets(zs, 0), 3);
    CHECK_EQ_U64(state_of(zs, 0), RONLY);
    CHECK_EQ_U64(wp_of(zs, 0), 0);
    CHECK_EQ_U64(zone_state_active(zs), 0);
    CHECK_EQ_U64(write_at(zs, 0, 1), FTL_E_ZONE_READ_ONLY);
    CHECK_EQ_U64(zone_state_read(zs, 0, 4), FTL_OK);
    CHECK_EQ_U64(mgmt(zs, 0, RESET, NULL), FTL_E_ZONE_TRANSITION);
    CHECK_EQ_U64(zone_state_resets(zs, 0), 3);
    CHECK_EQ_U64(mgmt(zs, 0, OFFLINE_ZONE, NULL), FTL_OK);
    CHECK_EQ_U64(zone_state_read(zs, 0, 4), FTL_E_ZONE_OFFLINE);
    /* the other zone wears independently, here through select all */
    for (int r = 0; r < 3; r++) {
        CHECK_EQ_U64(write_at(zs, 4, 1), FTL_OK);
        CHECK_EQ_U64(zone_state_mgmt(zs, 0, RESET, true, NULL, &n), FTL_OK);
        CHECK_EQ_U64(n, 1);
    }
    CHECK_EQ_U64(state_of(zs, 1), RONLY);
    uint64_t counts[FTL_ZONE_STATES];
    zone_state_counts(zs, counts);
    CHECK_EQ_U64(counts[RONLY], 1);
    CHECK_EQ_U64(counts[OFFLINE], 1);
    CHECK_ZS(zs);
    zone_state_destroy(zs);

    /* reset_limit 0: never worn */
    zs = make(1, 4, 4, 0, 0, 0);
    for (int r = 0; r < 100; r++) {
        write_at(zs, 0, 1);
        mgmt(zs, 0, RESET, NULL);
    }
    CHECK_EQ_U64(state_of(zs, 0), EMPTY);
    CHECK_EQ_U64(zone_state_resets(zs, 0), 100);
    zone_state_destroy(zs);
}

/* ---- reads and copies ---- */

static void test_read(void)
{
    struct zone_state *zs = make(4, 4, 3, 0, 0, 1);
    CHECK_EQ_U64(zone_state_read(zs, 0, 0), FTL_E_INVAL);
    CHECK_EQ_U64(zone_state_read(zs, 16, 1), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_read(zs, 15, 2), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_read(zs, 1, UINT64_MAX), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_read(zs, UINT64_MAX, 1), FTL_E_RANGE);
    /* unwritten sectors, sectors past the capacity and several zones read fine */
    CHECK_EQ_U64(zone_state_read(zs, 0, 16), FTL_OK);
    CHECK_EQ_U64(zone_state_read(zs, 3, 1), FTL_OK);
    /* zone 2 offline: any read touching it fails, its neighbours read */
    write_at(zs, 8, 1);
    mgmt(zs, 8, RESET, NULL);
    CHECK_EQ_U64(zone_state_read(zs, 8, 1), FTL_OK);    /* read only */
    mgmt(zs, 8, OFFLINE_ZONE, NULL);
    CHECK_EQ_U64(state_of(zs, 2), OFFLINE);
    CHECK_EQ_U64(zone_state_read(zs, 10, 1), FTL_E_ZONE_OFFLINE);
    CHECK_EQ_U64(zone_state_read(zs, 7, 2), FTL_E_ZONE_OFFLINE);
    CHECK_EQ_U64(zone_state_read(zs, 11, 2), FTL_E_ZONE_OFFLINE);
    CHECK_EQ_U64(zone_state_read(zs, 0, 16), FTL_E_ZONE_OFFLINE);
    CHECK_EQ_U64(zone_state_read(zs, 0, 8), FTL_OK);
    CHECK_EQ_U64(zone_state_read(zs, 12, 4), FTL_OK);
    CHECK_EQ_U64(zone_state_read(zs, 16, 1), FTL_E_RANGE);  /* range before offline */
    zone_state_destroy(zs);
}

static void test_copy(void)
{
    struct zone_state *zs = make(4, 8, 8, 0, 0, 1);
    write_at(zs, 0, 6);
    struct snapshot s;
    snap_alloc(&s, 4);
    snap_take(zs, 4, &s);
    struct ftl_range r[3] = { { 0, 2 }, { 4, 1 }, { 2, 1 } };
    CHECK_EQ_U64(zone_state_copy(zs, r, 0, 8), FTL_E_INVAL);
    CHECK_EQ_U64(zone_state_copy(zs, NULL, 1, 8), FTL_E_INVAL);
    struct ftl_range zero[2] = { { 0, 1 }, { 1, 0 } };
    CHECK_EQ_U64(zone_state_copy(zs, zero, 2, 8), FTL_E_INVAL);
    struct ftl_range out[2] = { { 0, 1 }, { 30, 3 } };
    CHECK_EQ_U64(zone_state_copy(zs, out, 2, 8), FTL_E_RANGE);
    struct ftl_range huge[1] = { { UINT64_MAX, 2 } };
    CHECK_EQ_U64(zone_state_copy(zs, huge, 1, 8), FTL_E_RANGE);
    /* the destination as a write of the summed length */
    CHECK_EQ_U64(zone_state_copy(zs, r, 3, 9), FTL_E_ZONE_INVALID_WRITE);
    CHECK_EQ_U64(zone_state_copy(zs, r, 3, 4), FTL_E_ZONE_INVALID_WRITE);
    CHECK_EQ_U64(zone_state_copy(zs, r, 3, 32), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_copy(zs, r, 3, 30), FTL_E_RANGE);
    struct ftl_range big[2] = { { 0, 8 }, { 8, 1 } };
    CHECK_EQ_U64(zone_state_copy(zs, big, 2, 16), FTL_E_ZONE_BOUNDARY);
    CHECK(snap_unchanged(&s, zs));
    CHECK_EQ_U64(zone_state_copy(zs, r, 3, 8), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 1), IOPEN);
    CHECK_EQ_U64(wp_of(zs, 1), 12);
    /* the source may be the destination's own zone, below its write pointer */
    struct ftl_range own[1] = { { 0, 2 } };
    CHECK_EQ_U64(zone_state_copy(zs, own, 1, 6), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), FULL);
    /* an offline source zone */
    write_at(zs, 24, 1);
    mgmt(zs, 24, RESET, NULL);
    mgmt(zs, 24, OFFLINE_ZONE, NULL);
    struct ftl_range off[2] = { { 8, 1 }, { 23, 2 } };
    snap_take(zs, 4, &s);
    CHECK_EQ_U64(zone_state_copy(zs, off, 2, 12), FTL_E_ZONE_OFFLINE);
    CHECK_EQ_U64(zone_state_copy(zs, r, 3, 24), FTL_E_ZONE_OFFLINE);  /* offline dest */
    CHECK(snap_unchanged(&s, zs));
    CHECK_ZS(zs);
    snap_free(&s);
    zone_state_destroy(zs);

    /* summed lengths past 2^64: out of range, not wrapped to a small write */
    zs = make(2, UINT64_MAX / 2, UINT64_MAX / 2, 0, 0, 0);
    struct ftl_range wrap[3] = { { 0, UINT64_MAX / 2 }, { 0, UINT64_MAX / 2 },
                                 { 0, UINT64_MAX / 2 } };
    CHECK_EQ_U64(zone_state_copy(zs, wrap, 3, 0), FTL_E_RANGE);
    CHECK_EQ_U64(zone_state_copy(zs, wrap, 2, 0), FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64(zone_state_copy(zs, wrap, 1, 0), FTL_OK);
    CHECK_EQ_U64(state_of(zs, 0), FULL);
    CHECK_ZS(zs);
    zone_state_destroy(zs);
}

/* ---- randomized ---- */

/* The test's own record of the implicitly open zones, oldest first, kept from the state
 * changes it observes, to check that an implicit close always picks the oldest. */
struct fifo {
    uint64_t *z;
    size_t n;
};

static void fifo_remove(struct fifo *f, uint64_t zone)
{
    for (size_t i = 0; i < f->n; i++) {
        if (f->z[i] == zone) {
            for (size_t j = i + 1; j < f->n; j++) {
                f->z[j - 1] = f->z[j];
            }
            f->n--;
            return;
        }
    }
}

struct run_stats {
    uint64_t ops, errors, bad_error, bad_success, bad_check, implicit_closes;
    uint64_t by_status[16];     /* by -status */
};

/* One random operation: its status (1000: an append or write reported the wrong LBA),
 * and for Zone Management Send the zones it lists. */
static int random_op(struct zone_state *zs, struct rng *rng, const struct zone_state_params *p,
                     const struct snapshot *before, uint64_t *changed, size_t *nchanged,
                     bool *mgmt_op, bool *closing)
{
    uint64_t sectors = p->zones * p->zone_sectors;
    uint64_t zone = rng_below(rng, p->zones);
    uint64_t nlb = rng_below(rng, 4) == 0 ? rng_below(rng, p->zone_sectors * 2 + 2)
                                          : 1 + rng_below(rng, 3);
    uint64_t op = rng_below(rng, 6);
    /* mostly the address the command wants (the write pointer for writes and copies, the
     * zone start for appends and zone actions), else anywhere, else hostile */
    uint64_t slba = op <= 1 || op == 4 ? before->info[zone].wp : zone * p->zone_sectors;
    uint64_t pick = rng_below(rng, 10);
    if (pick == 8) {
        slba = rng_below(rng, sectors + 4);
    } else if (pick == 9) {
        slba = UINT64_MAX - rng_below(rng, 4);
    }
    *mgmt_op = *closing = false;
    *nchanged = 0;
    switch (op) {
    case 0:
    case 1: {
        uint64_t a = 0;
        int rc = zone_state_write(zs, slba, nlb, false, &a);
        return rc == FTL_OK && a != slba ? 1000 : rc;
    }
    case 2: {
        uint64_t a = 0;
        int rc = zone_state_write(zs, slba, nlb, true, &a);
        return rc == FTL_OK && a != before->info[slba / p->zone_sectors].wp ? 1000 : rc;
    }
    case 3:
        return zone_state_read(zs, slba, nlb);
    case 4: {
        struct ftl_range r[3];
        uint32_t n = rng_below(rng, 20) == 0 ? 0 : 1 + (uint32_t)rng_below(rng, 3);
        for (uint32_t i = 0; i < n; i++) {
            r[i].slba = rng_below(rng, sectors + 1);
            r[i].nlb = rng_below(rng, 20) == 0 ? 0 : 1 + rng_below(rng, 2);
        }
        return zone_state_copy(zs, r, n, slba);
    }
    default: {
        *mgmt_op = true;
        /* resets half the time, so zones keep filling; 6 is no action: Invalid Field */
        uint64_t r = rng_below(rng, 12);
        enum ftl_zone_action a = (enum ftl_zone_action)(r < 6 ? FTL_ZONE_ACTION_RESET
                                                              : r - 5);
        *closing = a == FTL_ZONE_ACTION_CLOSE;
        return zone_state_mgmt(zs, slba, a, rng_below(rng, 4) == 0, changed, nchanged);
    }
    }
}

static void run_random(uint64_t seed, uint64_t ops, struct run_stats *st)
{
    struct rng rng;
    rng_seed(&rng, seed);
    struct zone_state_params p = { .zones = 1 + rng_below(&rng, 12),
                                   .zone_sectors = 1 + rng_below(&rng, 12) };
    p.cap_sectors = 1 + rng_below(&rng, p.zone_sectors);
    p.max_open = (uint32_t)rng_below(&rng, 5);
    p.max_active = rng_below(&rng, 3) == 0 ? 0 : p.max_open + (uint32_t)rng_below(&rng, 3);
    /* zones wear out over the run, but not all at once */
    p.reset_limit = rng_below(&rng, 3) == 0 ? 0 : 1 + rng_below(&rng, 100);
    struct zone_state *zs = zone_state_create(&p);
    if (!zs) {
        st->bad_check++;
        return;
    }
    struct snapshot before, after;
    snap_alloc(&before, p.zones);
    snap_alloc(&after, p.zones);
    uint64_t *changed = calloc(p.zones, sizeof(uint64_t));
    struct fifo imp = { calloc(p.zones, sizeof(uint64_t)), 0 };
    char err[256];
    for (uint64_t i = 0; i < ops; i++) {
        snap_take(zs, p.zones, &before);
        size_t nchanged = 0;
        bool mgmt_op, closing;
        int rc = random_op(zs, &rng, &p, &before, changed, &nchanged, &mgmt_op, &closing);
        st->ops++;
        if (zone_state_check(zs, err, sizeof(err)) != 0 && st->bad_check++ == 0) {
            fprintf(stderr, "    seed %llu op %llu: %s\n", (unsigned long long)seed,
                    (unsigned long long)i, err);
        }
        snap_take(zs, p.zones, &after);
        if (rc != FTL_OK) {
            st->errors++;
            st->by_status[rc < 0 && rc > -16 ? -rc : 0]++;
            if ((rc == 1000 || !snap_unchanged(&before, zs) || nchanged != 0) &&
                st->bad_error++ == 0) {
                fprintf(stderr, "    seed %llu op %llu: status %d changed state\n",
                        (unsigned long long)seed, (unsigned long long)i, rc);
            }
            continue;
        }
        /* a success: mgmt lists exactly the zones that moved, increasing; an implicit
         * close (a zone going from IOPEN to CLOSED but not by Close) takes the oldest */
        size_t listed = 0;
        bool ok = true;
        for (uint64_t z = 0; z < p.zones; z++) {
            bool moved = after.info[z].state != before.info[z].state ||
                         after.info[z].wp != before.info[z].wp;
            if (mgmt_op) {
                bool in_list = listed < nchanged && changed[listed] == z;
                ok &= in_list == moved;
                listed += in_list;
            }
            if (before.info[z].state == IOPEN && after.info[z].state == CLOSED && !closing) {
                st->implicit_closes++;
                ok &= imp.n > 0 && imp.z[0] == z;
            }
        }
        ok &= !mgmt_op || listed == nchanged;
        if (!ok && st->bad_success++ == 0) {
            fprintf(stderr, "    seed %llu op %llu: a success changed unlisted zones or "
                    "closed a younger implicitly open zone\n", (unsigned long long)seed,
                    (unsigned long long)i);
        }
        /* keep the FIFO: leavers out first, then newcomers in zone order (one op opens
         * at most one zone implicitly) */
        for (uint64_t z = 0; z < p.zones; z++) {
            if (before.info[z].state == IOPEN && after.info[z].state != IOPEN) {
                fifo_remove(&imp, z);
            }
        }
        for (uint64_t z = 0; z < p.zones; z++) {
            if (before.info[z].state != IOPEN && after.info[z].state == IOPEN) {
                imp.z[imp.n++] = z;
            }
        }
    }
    free(changed);
    free(imp.z);
    snap_free(&before);
    snap_free(&after);
    zone_state_destroy(zs);
}

static void test_random(void)
{
    struct run_stats st = { 0 };
    for (uint64_t seed = 1; seed <= 200; seed++) {
        run_random(seed, 2000, &st);
    }
    CHECK_EQ_U64(st.bad_check, 0);
    CHECK_EQ_U64(st.bad_error, 0);
    CHECK_EQ_U64(st.bad_success, 0);
    /* the run exercised both outcomes and the implicit close */
    CHECK(st.errors > st.ops / 10);
    CHECK(st.ops - st.errors > st.ops / 10);
    CHECK(st.implicit_closes > 100);
    static const int statuses[] = { FTL_E_RANGE, FTL_E_INVAL, FTL_E_ZONE_BOUNDARY,
                                    FTL_E_ZONE_FULL, FTL_E_ZONE_READ_ONLY,
                                    FTL_E_ZONE_OFFLINE, FTL_E_ZONE_INVALID_WRITE,
                                    FTL_E_TOO_MANY_ACTIVE, FTL_E_TOO_MANY_OPEN,
                                    FTL_E_ZONE_TRANSITION };
    uint64_t listed = 0;
    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        if (!check_record(st.by_status[-statuses[i]] > 0, __FILE__, __LINE__, "status seen"))
            fprintf(stderr, "    never saw status %d\n", statuses[i]);
        listed += st.by_status[-statuses[i]];
    }
    CHECK_EQ_U64(listed, st.errors);    /* and no other */
}

int main(void)
{
    test_create();
    test_write_statuses();
    test_write_on_states();
    test_append();
    test_implicit_close();
    test_too_many_active();
    test_mgmt_rows();
    test_close_unwritten();
    test_mgmt_addressing();
    test_select_all();
    test_wear();
    test_read();
    test_copy();
    test_random();
    return check_summary();
}
