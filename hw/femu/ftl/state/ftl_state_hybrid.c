/*
 * The hybrid mappings (mapping=block|bast|fast, map/hybrid_tables.h), section HYBR:
 *   u32 version; u32 scheme, pages per block, LBNs, units, log blocks (refused unless this
 *   FTL's); u32 next_pool; per LBN its data unit (NO_LINE: none); per unit its owner (u32),
 *   next offset (u32), role (u8) and in-order flag (u8); BAST's log blocks in use from the
 *   least recently written (u32 count, units); FAST's sequential log (u32) and random logs
 *   oldest first (u32 count, units).
 * Derived, not saved: BAST's log of each LBN (its unit of role BAST_LOG and that owner),
 * the LRU links and logs_used (from the order), the FIFO's ring position (it restarts at
 * slot 0). Every field is range-checked here, each unit's role against its line state
 * (FLIN, loaded before) and each table against the units, before anything indexes with
 * them; ftl_check() then holds the tables to the page map.
 */
#include "state/ftl_state_section.h"

#include <stddef.h>
#include <stdlib.h>

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "map/hybrid_tables.h"

#define HYBRID_HEAD_BYTES (4 + 6 * 4)       /* version, the five sizes, next_pool */
#define HYBRID_UNIT_BYTES (2 * 4 + 2)

/* The section of nlbn logical blocks, nunits units and at most `logs` log blocks in use. */
static uint64_t hybrid_bytes(uint64_t nlbn, uint64_t nunits, uint64_t logs)
{
    return HYBRID_HEAD_BYTES + 4 * nlbn + HYBRID_UNIT_BYTES * nunits + 4 + 2 * 4 + 4 * logs;
}

static uint64_t hybrid_max_bytes(const struct ftl *ftl)
{
    const struct hybrid *h = ftl->hybrid;
    return hybrid_bytes(h->nlbn, h->nunits, h->log_blocks);
}

/* Without a hybrid mapping the most a hybrid mapping of this flash could save: such a
 * file's section passes the headers, so its configuration is what refuses it (one line
 * naming mapping), as a page-mapped file restored under a hybrid mapping is. */
size_t ftl_state_hybrid_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    uint64_t ppb = ftl->cfg.pgs_per_blk ? ftl->cfg.pgs_per_blk : 1;
    uint64_t max = ftl->hybrid ? hybrid_max_bytes(ftl)
                 : hybrid_bytes((ftl->geo.logical_pages + ppb - 1) / ppb, ftl->geo.blocks,
                                ftl->cfg.log_blocks);
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_HYBR, max };
    return 1;
}

static void put_sizes(struct state_buf *b, const struct hybrid *h)
{
    state_buf_u32(b, h->scheme);
    state_buf_u32(b, h->ppb);
    state_buf_u32(b, h->nlbn);
    state_buf_u32(b, h->nunits);
    state_buf_u32(b, h->log_blocks);
}

int ftl_state_save_hybrid(const struct ftl *ftl, struct state_writer *w, char *err,
                          size_t errlen)
{
    const struct hybrid *h = ftl->hybrid;
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_HYBRID_VERSION);
    put_sizes(&b, h);
    state_buf_u32(&b, h->next_pool);
    for (uint32_t lbn = 0; lbn < h->nlbn; lbn++) {
        state_buf_u32(&b, h->data[lbn]);
    }
    for (uint32_t u = 0; u < h->nunits; u++) {
        state_buf_u32(&b, h->units[u].owner);
        state_buf_u32(&b, h->units[u].next);
        state_buf_u8(&b, h->units[u].role);
        state_buf_u8(&b, h->units[u].in_order);
    }
    state_buf_u32(&b, h->log ? h->logs_used : 0);
    for (uint32_t u = h->log ? h->log_lru.lru : LRU_NONE; u != LRU_NONE;
         u = h->units[u].link.newer) {
        state_buf_u32(&b, u);
    }
    state_buf_u32(&b, h->sw);
    state_buf_u32(&b, h->rw_count);
    for (uint32_t i = 0; i < h->rw_count; i++) {
        state_buf_u32(&b, h->rw[(h->rw_head + i) % h->rw_cap]);
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_HYBR, err, errlen);
}

/* Unit u as read: its role fits the scheme and its line state, its owner the role, its
 * next offset the block. */
static int check_unit(const struct ftl *ftl, struct state_reader *r, uint32_t u,
                      uint8_t in_order, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_HYBR;
    const struct hybrid *h = ftl->hybrid;
    const struct hybrid_unit *x = &h->units[u];
    bool owned = hybrid_role_has_owner(x->role);
    if (!hybrid_role_allowed(h->scheme, x->role)) {
        return state_section_error(r, tag, err, errlen, "unit %u: role %u is not one of "
                                   "mapping %u's", u, x->role, h->scheme);
    }
    if ((x->role != HYBRID_NONE) != (ftl->lines[u].state == LINE_MAPPED)) {
        return state_section_error(r, tag, err, errlen, "unit %u: role %u, but its line "
                                   "state is %u", u, x->role, ftl->lines[u].state);
    }
    if (owned ? x->owner >= h->nlbn : x->owner != NO_LBN) {
        return state_section_error(r, tag, err, errlen, "unit %u: owner %u (role %u, %u "
                                   "logical blocks)", u, x->owner, x->role, h->nlbn);
    }
    if (x->next > h->ppb || in_order > 1) {
        return state_section_error(r, tag, err, errlen, "unit %u: next offset %u of %u "
                                   "pages, in-order flag %u", u, x->next, h->ppb, in_order);
    }
    return 0;
}

/* The data units, then the units, each checked, and each LBN's data and BAST log from
 * the units: a unit serves one LBN in one role. */
static int get_tables(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                      char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_HYBR;
    struct hybrid *h = ftl->hybrid;
    for (uint32_t lbn = 0; lbn < h->nlbn; lbn++) {
        h->data[lbn] = state_cur_u32(c);
        if (h->data[lbn] != NO_LINE && h->data[lbn] >= h->nunits) {
            return state_section_error(r, tag, err, errlen, "data[%u]: unit %u of %u", lbn,
                                       h->data[lbn], h->nunits);
        }
        if (h->log) {
            h->log[lbn] = NO_LINE;
        }
    }
    for (uint32_t u = 0; u < h->nunits; u++) {
        struct hybrid_unit *x = &h->units[u];
        x->owner = state_cur_u32(c);
        x->next = state_cur_u32(c);
        x->role = state_cur_u8(c);
        uint8_t in_order = state_cur_u8(c);
        x->in_order = in_order == 1;
        x->link = (struct lru_link){ LRU_NONE, LRU_NONE };
        if (c->overrun || check_unit(ftl, r, u, in_order, err, errlen)) {
            return c->overrun ? state_section_error(r, tag, err, errlen, "cut in unit %u",
                                                    u) : -1;
        }
        if (x->role == HYBRID_BAST_LOG) {
            if (h->log[x->owner] != NO_LINE) {
                return state_section_error(r, tag, err, errlen, "unit %u: a second log "
                                           "block of LBN %u (unit %u)", u, x->owner,
                                           h->log[x->owner]);
            }
            h->log[x->owner] = u;
        }
        if (x->role == HYBRID_DATA && h->data[x->owner] != u) {
            return state_section_error(r, tag, err, errlen, "unit %u: a data block of LBN "
                                       "%u, whose data[] is unit %u", u, x->owner,
                                       h->data[x->owner]);
        }
    }
    for (uint32_t lbn = 0; lbn < h->nlbn; lbn++) {
        uint32_t u = h->data[lbn];
        if (u != NO_LINE && (h->units[u].role != HYBRID_DATA || h->units[u].owner != lbn)) {
            return state_section_error(r, tag, err, errlen, "data[%u]: unit %u has role %u "
                                       "and owner %u", lbn, u, h->units[u].role,
                                       h->units[u].owner);
        }
    }
    return 0;
}

/* Whether u may be the next entry of a list of role's units (seen: those listed so far). */
static bool list_entry_ok(const struct hybrid *h, uint32_t u, uint8_t role, const bool *seen)
{
    return u < h->nunits && h->units[u].role == role && !seen[u];
}

/* BAST's log blocks in use, least recently written first: every log block once. */
static int get_log_lru(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                       bool *seen, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_HYBR;
    struct hybrid *h = ftl->hybrid;
    uint32_t n = state_cur_u32(c), logs = hybrid_units_with_role(h, HYBRID_BAST_LOG);
    if (c->overrun || n != logs || n > h->log_blocks) {
        return state_section_error(r, tag, err, errlen, "log LRU of %u units, %u are log "
                                   "blocks, log_blocks %u", n, logs, h->log_blocks);
    }
    lru_init(&h->log_lru, h->units, sizeof(*h->units), offsetof(struct hybrid_unit, link));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = state_cur_u32(c);
        if (c->overrun || !list_entry_ok(h, u, HYBRID_BAST_LOG, seen)) {
            return state_section_error(r, tag, err, errlen, "log LRU entry %u (unit %u): "
                                       "not a log block, or listed twice", i, u);
        }
        seen[u] = true;
        lru_push_mru(&h->log_lru, u);
    }
    h->logs_used = n;
    return 0;
}

/* FAST's sequential log and random logs oldest first: every random log once, within the
 * budget with the SW. */
static int get_fast_logs(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                         bool *seen, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_HYBR;
    struct hybrid *h = ftl->hybrid;
    uint32_t sw = state_cur_u32(c), sws = hybrid_units_with_role(h, HYBRID_FAST_SW);
    if (c->overrun || (sw == NO_LINE ? sws != 0
                       : sws != 1 || sw >= h->nunits || h->units[sw].role != HYBRID_FAST_SW)) {
        return state_section_error(r, tag, err, errlen, "sequential log unit %u, %u units "
                                   "are sequential logs", sw, sws);
    }
    uint32_t n = state_cur_u32(c), rws = hybrid_units_with_role(h, HYBRID_FAST_RW);
    if (c->overrun || n != rws || n > h->rw_cap) {
        return state_section_error(r, tag, err, errlen, "random log FIFO of %u units, %u are "
                                   "random logs, room for %u", n, rws, h->rw_cap);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = state_cur_u32(c);
        if (c->overrun || !list_entry_ok(h, u, HYBRID_FAST_RW, seen)) {
            return state_section_error(r, tag, err, errlen, "random log FIFO entry %u (unit "
                                       "%u): not a random log, or listed twice", i, u);
        }
        seen[u] = true;
        h->rw[i] = u;
    }
    h->sw = sw;
    h->rw_head = 0;
    h->rw_count = n;
    return 0;
}

/* The five sizes as this FTL's, and next_pool within its pools. */
static int check_head(const struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                      char *err, size_t errlen)
{
    const struct hybrid *h = ftl->hybrid;
    uint32_t got[5];
    for (int i = 0; i < 5; i++) {
        got[i] = state_cur_u32(c);
    }
    uint32_t pool = state_cur_u32(c);
    if (c->overrun || got[0] != h->scheme || got[1] != h->ppb || got[2] != h->nlbn ||
        got[3] != h->nunits || got[4] != h->log_blocks) {
        return state_section_error(r, STATE_TAG_FTL_HYBR, err, errlen, "mapping %u, %u pages "
                                   "per block, %u logical blocks, %u units, %u log blocks; "
                                   "this FTL has %u, %u, %u, %u, %u", got[0], got[1], got[2],
                                   got[3], got[4], h->scheme, h->ppb, h->nlbn, h->nunits,
                                   h->log_blocks);
    }
    if (pool >= ftl->npools) {
        return state_section_error(r, STATE_TAG_FTL_HYBR, err, errlen, "next_pool %u of %u "
                                   "pools", pool, ftl->npools);
    }
    ftl->hybrid->next_pool = pool;
    return 0;
}

int ftl_state_load_hybrid(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_HYBR;
    struct state_cursor c;
    uint32_t version;
    if (state_section_open_range(r, tag, 0, hybrid_max_bytes(ftl), FTL_STATE_HYBRID_VERSION,
                                 FTL_STATE_HYBRID_VERSION, &c, &version, err, errlen)) {
        return -1;
    }
    bool *seen = calloc(ftl->hybrid->nunits, sizeof(bool));
    int rc = seen ? 0 : ftl_error(err, errlen, "out of memory loading section HYBR");
    rc = rc ? rc : check_head(ftl, r, &c, err, errlen);
    rc = rc ? rc : get_tables(ftl, r, &c, err, errlen);
    rc = rc ? rc : get_log_lru(ftl, r, &c, seen, err, errlen);
    rc = rc ? rc : get_fast_logs(ftl, r, &c, seen, err, errlen);
    if (rc == 0 && c.pos != c.len) {
        rc = state_section_error(r, tag, err, errlen, "%zu bytes after the tables",
                                 c.len - c.pos);
    }
    free(seen);
    state_cursor_free(&c);
    return rc;
}
