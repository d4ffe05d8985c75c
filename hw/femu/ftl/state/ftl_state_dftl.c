/*
 * DFTL (DFTL): the cached mapping table, its entries from the least recently used to the
 * most, each with whether it is dirty (its translation page must be written back when it
 * is evicted).
 *
 * Derived, not saved:
 *   - the directory (GTD): where each translation page is, which the P2L (FP2L) already
 *     says: the one page holding LPN logical_pages + t is translation page t;
 *   - write-back generations: only whether a cached entry's generation is its page's
 *     current one matters (dirty), so a restore starts every page at generation 0 and
 *     marks the dirty entries with it;
 *   - the CMT's slot numbers and hash table: any slots hold the same order (a full CMT
 *     reuses the slot it evicts; a filling one takes the next of [0, used));
 *   - the rewrite queue: empty between requests (dftl_check).
 * DFTL keeps no time of its own.
 */

#include "state/ftl_state_section.h"

#include "femu_ftl/error.h"
#include "flash/p2l.h"
#include "map/dftl_tables.h"

#define CMT_RECORD_BYTES (4 + 1)
#define CMT_HEADER_BYTES (4 + 3 * 4)    /* version, ntp, nslots, used */

int ftl_state_save_dftl(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen)
{
    const struct dftl *d = ftl->dftl;
    struct state_buf b = { 0 };

    if (d->npending) {
        return ftl_error(err, errlen, "section DFTL: %u translation pages still queued",
                         d->npending);
    }
    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    state_buf_u32(&b, d->ntp);
    state_buf_u32(&b, d->nslots);
    state_buf_u32(&b, d->used);
    for (uint32_t i = d->order.lru; i != LRU_NONE; i = d->slots[i].link.newer) {
        const struct cmt_slot *s = &d->slots[i];
        state_buf_u32(&b, s->lpn);
        state_buf_u8(&b, s->dirty && s->gen == d->tp_gen[s->lpn / d->ept]);
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_DFTL, err, errlen);
}

/* The GTD from the P2L (checked by ftl_state_load_maps): each translation page once. */
static int load_directory(struct ftl *ftl, struct state_reader *r, char *err,
                          size_t errlen)
{
    struct dftl *d = ftl->dftl;
    uint64_t logical = ftl->geo.logical_pages;

    for (uint64_t ppa = 0; ppa < ftl->geo.phys_pages; ppa++) {
        uint32_t lpn = p2l_get(ftl, ppa);
        if (lpn < logical || lpn >= logical + d->ntp) {
            continue;   /* data, erased or stale */
        }
        uint32_t t = (uint32_t)(lpn - logical);
        if (d->gtd_plus1[t]) {
            return state_section_error(r, STATE_TAG_FTL_P2L, err, errlen, "translation "
                                       "page %u on pages %u and %llu", t,
                                       d->gtd_plus1[t] - 1, (unsigned long long)ppa);
        }
        d->gtd_plus1[t] = (uint32_t)ppa + 1;
    }
    return 0;
}

/* The CMT, LRU first: each entry an LPN that exists, cached once. */
static int load_cmt(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                    uint32_t used, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_DFTL;
    struct dftl *d = ftl->dftl;

    for (uint32_t i = 0; i < used; i++) {
        uint32_t lpn = state_cur_u32(c);
        uint8_t dirty = state_cur_u8(c);
        if (lpn >= ftl->geo.logical_pages || dirty > 1 ||
            lpn_table_get(&d->where, lpn) != LPN_TABLE_NONE) {
            return state_section_error(r, tag, err, errlen, "CMT entry %u (LPN %u, dirty "
                                       "%u) out of range or cached twice", i, lpn, dirty);
        }
        /* every generation starts at 0: a dirty entry is one of the current one */
        d->slots[i] = (struct cmt_slot){ .lpn = lpn, .gen = 0, .dirty = dirty };
        lpn_table_put(&d->where, lpn, i);
        lru_push_mru(&d->order, i);
        d->used = i + 1;
    }
    return 0;
}

static uint64_t dftl_max_bytes(const struct ftl *ftl)
{
    return CMT_HEADER_BYTES + (uint64_t)ftl->dftl->nslots * CMT_RECORD_BYTES;
}

size_t ftl_state_dftl_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_DFTL, dftl_max_bytes(ftl) };
    return 1;
}

int ftl_state_load_dftl(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_DFTL;
    struct dftl *d = ftl->dftl;
    struct state_cursor c;

    if (state_section_open(r, tag, 0, dftl_max_bytes(ftl), &c, err, errlen)) {
        return -1;
    }
    uint32_t ntp = state_cur_u32(&c), nslots = state_cur_u32(&c), used = state_cur_u32(&c);
    int rc = 0;
    if (c.overrun || ntp != d->ntp || nslots != d->nslots) {
        rc = state_section_error(r, tag, err, errlen, "%u translation pages and %u CMT "
                                 "entries, this FTL has %u and %u", ntp, nslots, d->ntp,
                                 d->nslots);
    } else if (used > d->nslots || c.len - c.pos != (uint64_t)used * CMT_RECORD_BYTES) {
        rc = state_section_error(r, tag, err, errlen, "%u CMT entries in %zu bytes, room "
                                 "for %u", used, c.len - c.pos, d->nslots);
    }
    if (rc == 0) {
        rc = load_cmt(ftl, r, &c, used, err, errlen);
    }
    state_cursor_free(&c);
    return rc ? rc : load_directory(ftl, r, err, errlen);
}
