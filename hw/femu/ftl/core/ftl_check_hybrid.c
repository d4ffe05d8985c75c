/*
 * ftl_check()'s hybrid part (ftl_check_hybrid.h). The page map is checked by ftl_check
 * itself; here the tables of map/hybrid_tables.h are held to it and to the units' states:
 *   - a unit has a role exactly when it is LINE_MAPPED, a role its scheme uses, an owner
 *     LBN exactly when the role has one, and a next offset within the block: the pages
 *     below it programmed (skipped ones count invalid), none at or past it;
 *   - a data block's valid page at offset o holds LPN owner * ppb + o, as does a FAST
 *     sequential log's (always in order) and an in-order BAST log's; a BAST log holds
 *     only its owner's pages;
 *   - each LBN's data (and BAST log) entry names a unit of that role and owner, and every
 *     such unit is its owner's entry: no unit serves twice;
 *   - BAST's LRU list and FAST's random-log FIFO hold exactly the units of their role,
 *     once each, well linked, within the log-block budget (FAST's SW counts in it);
 *   - no valid page lies outside the units the tables own.
 */
#include "core/ftl_check_hybrid.h"

#include <stdlib.h>

#include "femu_ftl/error.h"
#include "flash/p2l.h"
#include "map/hybrid_tables.h"

static const char *role_name(uint8_t role)
{
    switch (role) {
    case HYBRID_NONE: return "no role";
    case HYBRID_DATA: return "data block";
    case HYBRID_BAST_LOG: return "BAST log";
    case HYBRID_FAST_SW: return "FAST sequential log";
    case HYBRID_FAST_RW: return "FAST random log";
    default: return "unknown role";
    }
}

/* The LPN a unit's valid page at offset off must hold, or NO_LBN when any LPN of the
 * owner (BAST log written out of order) or any at all (FAST random log) may be there. */
static uint32_t expected_lpn(const struct hybrid *h, const struct hybrid_unit *x,
                             uint32_t off)
{
    bool placed = x->role == HYBRID_DATA || x->role == HYBRID_FAST_SW ||
                  (x->role == HYBRID_BAST_LOG && x->in_order);
    return placed ? x->owner * h->ppb + off : NO_LBN;
}

/* Unit u's pages against its role, owner and next offset. */
static int check_unit_pages(const struct ftl *ftl, uint32_t u, char *err, size_t errlen)
{
    const struct hybrid *h = ftl->hybrid;
    const struct hybrid_unit *x = &h->units[u];
    for (uint32_t off = 0; off < h->ppb; off++) {
        uint32_t lpn = p2l_get(ftl, (uint64_t)u * h->ppb + off);
        if ((lpn == P2L_FREE) != (off >= x->next)) {
            return ftl_error(err, errlen, "hybrid unit %u (%s of LBN %u): page %u is %s, its "
                             "next offset is %u", u, role_name(x->role), x->owner, off,
                             lpn == P2L_FREE ? "unprogrammed" : "programmed", x->next);
        }
        if (lpn >= ftl->geo.logical_pages) {
            continue;       /* erased or invalid */
        }
        uint32_t want = expected_lpn(h, x, off);
        bool owned = x->role == HYBRID_FAST_RW || lpn / h->ppb == x->owner;
        if (!owned || (want != NO_LBN && lpn != want)) {
            return ftl_error(err, errlen, "hybrid unit %u (%s of LBN %u%s): page %u holds "
                             "LPN %u of LBN %u", u, role_name(x->role), x->owner,
                             x->role == HYBRID_BAST_LOG && x->in_order ? ", in order" : "",
                             off, lpn, lpn / h->ppb);
        }
    }
    return 0;
}

/* Unit u's role, owner and next offset against its scheme and line state. */
static int check_unit(const struct ftl *ftl, uint32_t u, char *err, size_t errlen)
{
    const struct hybrid *h = ftl->hybrid;
    const struct hybrid_unit *x = &h->units[u];
    uint8_t state = ftl->lines[u].state;
    if (!hybrid_role_allowed(h->scheme, x->role)) {
        return ftl_error(err, errlen, "hybrid unit %u: role %u (%s) under this mapping", u,
                         x->role, role_name(x->role));
    }
    if ((x->role != HYBRID_NONE) != (state == LINE_MAPPED)) {
        return ftl_error(err, errlen, "hybrid unit %u: %s but line state %u", u,
                         role_name(x->role), state);
    }
    if (state != LINE_MAPPED) {
        /* the tables own every valid page: none elsewhere */
        if (ftl->lines[u].valid) {
            return ftl_error(err, errlen, "hybrid unit %u (state %u, not the map's) holds "
                             "%u valid pages", u, state, ftl->lines[u].valid);
        }
        return 0;
    }
    if (x->role == HYBRID_FAST_SW && !x->in_order) {
        /* it only ever takes its LBN's next offset: written in order from 0 */
        return ftl_error(err, errlen, "hybrid unit %u (FAST sequential log of LBN %u): not "
                         "in order", u, x->owner);
    }
    bool owner_ok = hybrid_role_has_owner(x->role) ? x->owner < h->nlbn : x->owner == NO_LBN;
    if (!owner_ok || x->next > h->ppb) {
        return ftl_error(err, errlen, "hybrid unit %u (%s): owner %u of %u LBNs, next offset "
                         "%u of %u pages", u, role_name(x->role), x->owner, h->nlbn, x->next,
                         h->ppb);
    }
    return check_unit_pages(ftl, u, err, errlen);
}

/* Table entry table[lbn] (NO_LINE or a unit) names a unit of role owned by lbn. */
static int check_entry(const struct hybrid *h, const char *table, const uint32_t *entries,
                       uint32_t lbn, uint8_t role, char *err, size_t errlen)
{
    uint32_t u = entries[lbn];
    if (u == NO_LINE) {
        return 0;
    }
    if (u >= h->nunits || h->units[u].role != role || h->units[u].owner != lbn) {
        return ftl_error(err, errlen, "hybrid %s[%u] = unit %u, not a %s of LBN %u", table,
                         lbn, u, role_name(role), lbn);
    }
    return 0;
}

/* Each LBN's entries, and each unit of an owning role its owner's entry. */
static int check_entries(const struct hybrid *h, char *err, size_t errlen)
{
    for (uint32_t lbn = 0; lbn < h->nlbn; lbn++) {
        if (check_entry(h, "data", h->data, lbn, HYBRID_DATA, err, errlen) ||
            (h->log && check_entry(h, "log", h->log, lbn, HYBRID_BAST_LOG, err, errlen))) {
            return -1;
        }
    }
    for (uint32_t u = 0; u < h->nunits; u++) {
        const struct hybrid_unit *x = &h->units[u];
        uint32_t named = x->role == HYBRID_DATA ? h->data[x->owner]
                       : x->role == HYBRID_BAST_LOG ? h->log[x->owner]
                       : x->role == HYBRID_FAST_SW ? h->sw : u;
        if (named != u) {
            return ftl_error(err, errlen, "hybrid unit %u is a %s of LBN %u, which names "
                             "unit %u", u, role_name(x->role), x->owner, named);
        }
    }
    return 0;
}

/* BAST: the log blocks in use, from the least recently written, each once, linked both
 * ways; as many as logs_used, no more than the budget. */
static int check_bast(const struct hybrid *h, char *err, size_t errlen)
{
    uint32_t count = 0, prev = LRU_NONE;
    uint32_t logs = hybrid_units_with_role(h, HYBRID_BAST_LOG);
    for (uint32_t u = h->log_lru.lru; u != LRU_NONE; u = h->units[u].link.newer) {
        if (u >= h->nunits || h->units[u].role != HYBRID_BAST_LOG ||
            h->units[u].link.older != prev || ++count > logs) {
            return ftl_error(err, errlen, "hybrid BAST log LRU broken at entry %u (unit %u)",
                             count, u);
        }
        prev = u;
    }
    if (prev != h->log_lru.mru || count != logs || count != h->logs_used ||
        count > h->log_blocks) {
        return ftl_error(err, errlen, "hybrid BAST log LRU holds %u units, %u are log "
                         "blocks, logs_used %u, log_blocks %u", count, logs, h->logs_used,
                         h->log_blocks);
    }
    return 0;
}

/* FAST: the random logs in FIFO order, each once; with the SW within the budget. */
static int check_fast(const struct hybrid *h, char *err, size_t errlen)
{
    uint32_t rws = hybrid_units_with_role(h, HYBRID_FAST_RW);
    uint32_t sws = hybrid_units_with_role(h, HYBRID_FAST_SW);
    if (h->rw_cap + 1 != h->log_blocks || h->rw_count > h->rw_cap ||
        (h->rw_cap && h->rw_head >= h->rw_cap)) {
        return ftl_error(err, errlen, "hybrid FAST random logs: %u from slot %u of %u, "
                         "log_blocks %u", h->rw_count, h->rw_head, h->rw_cap, h->log_blocks);
    }
    for (uint32_t i = 0; i < h->rw_count; i++) {
        uint32_t u = h->rw[(h->rw_head + i) % h->rw_cap];
        bool twice = false;
        for (uint32_t k = 0; k < i && !twice; k++) {
            twice = h->rw[(h->rw_head + k) % h->rw_cap] == u;
        }
        if (u >= h->nunits || h->units[u].role != HYBRID_FAST_RW || twice) {
            return ftl_error(err, errlen, "hybrid FAST random log FIFO entry %u (unit %u) is "
                             "wrong", i, u);
        }
    }
    if (rws != h->rw_count || sws != (h->sw != NO_LINE)) {
        return ftl_error(err, errlen, "hybrid FAST: %u random logs, the FIFO holds %u; %u "
                         "sequential logs, SW unit %u", rws, h->rw_count, sws, h->sw);
    }
    return 0;
}

int ftl_check_hybrid(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct hybrid *h = ftl->hybrid;
    uint64_t lbns = (ftl->geo.logical_pages + h->ppb - 1) / h->ppb;
    bool bast = h->scheme == FTL_MAPPING_BAST, fast = h->scheme == FTL_MAPPING_FAST;
    if (h->scheme != ftl->cfg.mapping || h->ppb != ftl->pgs_per_line || h->nlbn != lbns ||
        h->nunits != ftl->nunits || h->log_blocks != (bast || fast ? ftl->cfg.log_blocks : 0) ||
        h->next_pool >= ftl->npools || bast != (h->log != NULL) || fast != (h->rw != NULL) ||
        (!fast && (h->sw != NO_LINE || h->rw_count)) || (!bast && h->logs_used)) {
        return ftl_error(err, errlen, "hybrid tables: scheme %u, %u pages per block, %u LBNs, "
                         "%u units, %u log blocks, pool %u do not fit this FTL", h->scheme,
                         h->ppb, h->nlbn, h->nunits, h->log_blocks, h->next_pool);
    }
    for (uint32_t u = 0; u < h->nunits; u++) {
        if (check_unit(ftl, u, err, errlen)) {
            return -1;
        }
    }
    if (check_entries(h, err, errlen) || (bast && check_bast(h, err, errlen)) ||
        (fast && check_fast(h, err, errlen))) {
        return -1;
    }
    return 0;
}
