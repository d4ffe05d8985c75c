/*
 * The zoned namespace (ZONE): per zone its state, admission's write pointer (sectors
 * written), its resets and the flash record (sectors that reached the device), then the
 * implicitly opened zones oldest first, the order in which max_open closes them. From
 * layout 9 each zone's record also says whether it holds a ZRWA and where its window's
 * data ends (the window's content is data, which the backend keeps, not the FTL).
 *
 * Derived, not saved: the zones per state and the open / active counts (from the states),
 * the FIFO's links (from its order), the engine's changed-zones list (scratch). Zones
 * keep no time of their own.
 */

#include "state/ftl_state_section.h"

#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "zns/zns_tables.h"
#include "zns/zone_state_tables.h"

#define ZONE_RECORD_BYTES (1 + 3 * 8)
/* layout FTL_STATE_LAYOUT_ZRWA on: and a ZRWA byte (bit 0 admission's, bit 1 the flash
 * side's) and the flash side's window high mark */
#define ZONE_RECORD_BYTES_ZRWA (ZONE_RECORD_BYTES + 1 + 8)
#define ZONE_HEADER_BYTES (4 + 3 * 8 + 4)   /* version, geometry, FIFO length */

static void put_geometry(struct state_buf *b, const struct zone_state *zs)
{
    state_buf_u64(b, zs->p.zones);
    state_buf_u64(b, zs->p.zone_sectors);
    state_buf_u64(b, zs->p.cap_sectors);
}

int ftl_state_save_zns(const struct ftl *ftl, struct state_writer *w, char *err,
                       size_t errlen)
{
    const struct zns *z = ftl->zns;
    const struct zone_state *zs = z->state;
    struct state_buf b = { 0 };

    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    put_geometry(&b, zs);
    for (uint64_t i = 0; i < zs->p.zones; i++) {
        state_buf_u8(&b, zs->state[i]);
        state_buf_u64(&b, zs->written[i]);
        state_buf_u64(&b, zs->resets[i]);
        state_buf_u64(&b, z->zones[i].written);
        state_buf_u8(&b, (uint8_t)((zs->zrwa && zs->zrwa[i] ? 1 : 0) |
                                   (z->zones[i].zrwa ? 2 : 0)));
        state_buf_u64(&b, z->zones[i].zrwa_hi);
    }
    uint32_t nimp = 0;
    for (uint32_t i = zs->imp_prev ? zs->imp_head : NO_ZONE; i != NO_ZONE;
         i = zs->imp_next[i]) {
        nimp++;
    }
    state_buf_u32(&b, nimp);
    for (uint32_t i = zs->imp_prev ? zs->imp_head : NO_ZONE; i != NO_ZONE;
         i = zs->imp_next[i]) {
        state_buf_u32(&b, i);
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_ZONE, err, errlen);
}

static bool state_known(uint8_t st)
{
    switch (st) {
    case FTL_ZONE_EMPTY:
    case FTL_ZONE_IMPLICIT_OPEN:
    case FTL_ZONE_EXPLICIT_OPEN:
    case FTL_ZONE_CLOSED:
    case FTL_ZONE_READ_ONLY:
    case FTL_ZONE_FULL:
    case FTL_ZONE_OFFLINE:
        return true;
    }
    return false;
}

static bool state_open(uint8_t st)
{
    return st == FTL_ZONE_IMPLICIT_OPEN || st == FTL_ZONE_EXPLICIT_OPEN;
}

/*
 * A zone only leaves the writable states through the reset that wears it out (resets
 * reaching reset_limit makes it read only, and only a read-only zone goes offline), and
 * a worn zone is never reset again: so it is read only or offline exactly when worn.
 * zone_state_check() does not know the reset counts; the restore checks this here.
 */
static bool wear_agrees(const struct zone_state *zs, uint8_t st, uint64_t resets)
{
    bool worn = zs->p.reset_limit && resets >= zs->p.reset_limit;
    return worn == (st == FTL_ZONE_READ_ONLY || st == FTL_ZONE_OFFLINE);
}

/* The zones' records; states, counts and the open / active figures follow. */
static int load_zrwa(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                     uint64_t i, char *err, size_t errlen);

static int load_zones(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                      bool zrwa, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_ZONE;
    struct zone_state *zs = ftl->zns->state;
    uint64_t cap = zs->p.cap_sectors;

    for (int s = 0; s < FTL_ZONE_STATES; s++) {
        zs->counts[s] = 0;
    }
    zs->open = zs->active = 0;
    zs->zrwa_used = 0;
    for (uint64_t i = 0; i < zs->p.zones; i++) {
        uint8_t st = state_cur_u8(c);
        uint64_t written = state_cur_u64(c), resets = state_cur_u64(c);
        uint64_t flash = state_cur_u64(c);
        if (!state_known(st)) {
            return state_section_error(r, tag, err, errlen, "zone %llu: state 0x%x is not "
                                       "a zone state", (unsigned long long)i, st);
        }
        if (written > cap || flash > cap) {
            return state_section_error(r, tag, err, errlen, "zone %llu: %llu sectors "
                                       "written, %llu on flash, past its capacity %llu",
                                       (unsigned long long)i, (unsigned long long)written,
                                       (unsigned long long)flash, (unsigned long long)cap);
        }
        if (!wear_agrees(zs, st, resets)) {
            return state_section_error(r, tag, err, errlen, "zone %llu: %s after %llu "
                                       "resets of %llu", (unsigned long long)i,
                                       ftl_zone_state_name(st), (unsigned long long)resets,
                                       (unsigned long long)zs->p.reset_limit);
        }
        zs->state[i] = st;
        zs->written[i] = written;
        zs->resets[i] = resets;
        ftl->zns->zones[i].written = flash;
        zs->counts[st]++;
        zs->open += state_open(st);
        zs->active += state_open(st) || st == FTL_ZONE_CLOSED;
        if (zrwa && load_zrwa(ftl, r, c, i, err, errlen)) {
            return -1;
        }
    }
    return 0;
}

/* Zone i's ZRWA byte and window end (its state and write pointers loaded): held only in
 * a configuration with ZRWAs, by an active zone on a ZRWAFG boundary; the rest is
 * ftl_check's (zone_state_check, zns_zrwa_check) after the load. */
static int load_zrwa(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                     uint64_t i, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_ZONE;
    struct zone_state *zs = ftl->zns->state;
    struct zone_flash *zf = &ftl->zns->zones[i];
    uint8_t flags = state_cur_u8(c);
    uint64_t hi = state_cur_u64(c);
    bool adm = flags & 1, flash = flags & 2;
    uint8_t st = zs->state[i];
    if (flags > 3 || ((adm || flash) && !zs->zrwa) ||
        (adm && !(state_open(st) || st == FTL_ZONE_CLOSED)) ||
        (flash ? hi < zf->written || hi - zf->written > zs->p.zrwa_sectors : hi != 0) ||
        (flash && zf->written % zs->p.zrwa_fg_sectors)) {
        return state_section_error(r, tag, err, errlen, "zone %llu: ZRWA flags 0x%x and "
                                   "window end %llu do not fit its state %s, %llu sectors "
                                   "on flash and this configuration's ZRWAs",
                                   (unsigned long long)i, flags, (unsigned long long)hi,
                                   ftl_zone_state_name(st), (unsigned long long)zf->written);
    }
    if (adm) {
        if (zs->zrwa_used >= zs->p.zrwa_resources) {
            return state_section_error(r, tag, err, errlen, "zone %llu: more ZRWAs than "
                                       "zrwa_zones (%u)", (unsigned long long)i,
                                       zs->p.zrwa_resources);
        }
        zs->zrwa[i] = 1;
        zs->zrwa_used++;
    } else if (zs->zrwa) {
        zs->zrwa[i] = 0;
    }
    zf->zrwa = flash;
    zf->zrwa_hi = hi;
    return 0;
}

/* The implicitly-open FIFO, oldest first: every implicitly open zone once. */
static int load_fifo(struct zone_state *zs, struct state_reader *r, struct state_cursor *c,
                     char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_ZONE;
    uint32_t nimp = state_cur_u32(c);
    uint64_t want = zs->imp_prev ? zs->counts[FTL_ZONE_IMPLICIT_OPEN] : 0;

    if (nimp != want || c->len - c->pos != 4 * (uint64_t)nimp) {
        return state_section_error(r, tag, err, errlen, "%u implicitly open zones listed "
                                   "in %zu bytes, the states give %llu", nimp,
                                   c->len - c->pos, (unsigned long long)want);
    }
    zs->imp_head = zs->imp_tail = NO_ZONE;
    for (uint64_t i = 0; zs->imp_prev && i < zs->p.zones; i++) {
        zs->imp_prev[i] = zs->imp_next[i] = NO_ZONE;
    }
    for (uint32_t k = 0; k < nimp; k++) {
        uint32_t z = state_cur_u32(c);
        /* a zone already listed has a predecessor, or is the head */
        if (z >= zs->p.zones || zs->state[z] != FTL_ZONE_IMPLICIT_OPEN ||
            zs->imp_prev[z] != NO_ZONE || z == zs->imp_head) {
            return state_section_error(r, tag, err, errlen, "implicitly-open list entry %u "
                                       "(zone %u) is not an implicitly open zone listed "
                                       "once", k, z);
        }
        zs->imp_prev[z] = zs->imp_tail;
        if (zs->imp_tail == NO_ZONE) {
            zs->imp_head = z;
        } else {
            zs->imp_next[zs->imp_tail] = z;
        }
        zs->imp_tail = z;
    }
    return 0;
}

static uint64_t zns_max_bytes(const struct ftl *ftl)
{
    return ZONE_HEADER_BYTES + ftl->zns->state->p.zones * (ZONE_RECORD_BYTES_ZRWA + 4);
}

size_t ftl_state_zns_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_ZONE, zns_max_bytes(ftl) };
    return 1;
}

int ftl_state_load_zns(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_ZONE;
    struct zone_state *zs = ftl->zns->state;
    uint64_t zones = zs->p.zones;
    struct state_cursor c;
    uint32_t version;

    if (state_section_open_version(r, tag, 0, zns_max_bytes(ftl), &c, &version, err,
                                   errlen)) {
        return -1;
    }
    bool zrwa = version >= FTL_STATE_LAYOUT_ZRWA;
    uint64_t record = zrwa ? ZONE_RECORD_BYTES_ZRWA : ZONE_RECORD_BYTES;
    int rc = 0;
    if (c.len < ZONE_HEADER_BYTES + zones * record) {
        rc = state_section_error(r, tag, err, errlen, "%zu bytes, too short for %llu zones",
                                 c.len, (unsigned long long)zones);
    }
    struct state_buf mine = { 0 };
    put_geometry(&mine, zs);
    if (rc == 0 && (mine.failed || memcmp(c.p + c.pos, mine.p, mine.len) != 0)) {
        rc = state_section_error(r, tag, err, errlen, "another zone geometry");
    }
    free(mine.p);
    c.pos += 3 * 8;
    if (rc == 0) {
        rc = load_zones(ftl, r, &c, zrwa, err, errlen);
    }
    if (rc == 0) {
        rc = load_fifo(zs, r, &c, err, errlen);
    }
    state_cursor_free(&c);
    return rc;
}
