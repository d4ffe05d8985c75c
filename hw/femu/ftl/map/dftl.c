/*
 * DFTL (Gupta, Kim and Urgaonkar, ASPLOS'09): the page map lives on flash in translation
 * pages, each holding entries_per_tpage 4-byte entries; a global translation directory
 * (GTD) in RAM says where each translation page is; a cached mapping table (CMT) of
 * cmt_entries entries, LRU, holds the entries in use.
 *
 * The FTL's own L2P stays the truth about where data is: this module models what a
 * device with only the CMT and GTD in DRAM pays for it, in flash operations and time.
 *
 * - A lookup that misses reads the entry's translation page (if it was ever written) on
 *   the LUN holding it. A full CMT first evicts its LRU entry; a dirty one writes its
 *   translation page back: read the old copy, program the new one at the map write
 *   pointer (MAP_WP, lines of its own). The write-back carries every dirty cached entry
 *   of that page, so they all turn clean: each translation page has a generation, an
 *   entry is dirty while the generation it was dirtied in is the page's current one, and
 *   a write-back moves the generation on (O(1), whatever the number of entries).
 * - Mapping changes without a host lookup (GC moved a page, trim or format unmapped it)
 *   dirty a cached entry, else queue the entry's translation page; dftl_write_pending
 *   rewrites each queued page once (GC batches a whole step's moves that way).
 * - Translation pages are pages like any other to GC: a map line's victim is collected
 *   into the map write pointer and the GTD follows (map GC, counted apart).
 */
#include "map/dftl.h"

#include <stdlib.h>

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "flash/geometry.h"
#include "flash/p2l.h"
#include "flash/timing.h"
#include "map/dftl_tables.h"
#include "map/page_map.h"
#include "map/write_pointers.h"

#define NO_SLOT LRU_NONE   /* = LPN_TABLE_NONE */

int dftl_init(struct ftl *ftl)
{
    const struct ftl_geometry *g = &ftl->geo;
    struct dftl *d = calloc(1, sizeof(*d));
    if (!d) {
        return FTL_E_NOMEM;
    }
    ftl->dftl = d;
    d->ept = (uint32_t)g->entries_per_tpage;
    d->ntp = (uint32_t)g->translation_pages;
    /* More slots than logical pages could never fill. */
    d->nslots = (uint32_t)(ftl->cfg.cmt_entries < g->logical_pages ? ftl->cfg.cmt_entries
                                                                     : g->logical_pages);
    d->gtd_plus1 = calloc(d->ntp, sizeof(uint32_t));
    d->tp_gen = calloc(d->ntp, sizeof(uint32_t));
    d->pending = calloc(d->ntp, sizeof(uint32_t));
    d->pending_bits = calloc((d->ntp + 63) / 64, sizeof(uint64_t));
    d->slots = calloc(d->nslots, sizeof(struct cmt_slot));
    bool table = lpn_table_init(&d->where, d->nslots);
    if (!d->gtd_plus1 || !d->tp_gen || !d->pending || !d->pending_bits || !table ||
        !d->slots) {
        return FTL_E_NOMEM;     /* ftl_destroy frees what was allocated */
    }
    lru_init(&d->order, d->slots, sizeof(struct cmt_slot), offsetof(struct cmt_slot, link));
    return FTL_OK;
}

void dftl_free(struct ftl *ftl)
{
    struct dftl *d = ftl->dftl;
    free(d->gtd_plus1);
    free(d->tp_gen);
    free(d->pending);
    free(d->pending_bits);
    lpn_table_free(&d->where);
    free(d->slots);
    free(d);
    ftl->dftl = NULL;
}

size_t dftl_metadata_bytes(const struct ftl *ftl)
{
    const struct dftl *d = ftl->dftl;
    return sizeof(*d) + (size_t)d->ntp * 3 * sizeof(uint32_t) + (d->ntp + 63) / 64 * 8 +
           lpn_table_bytes(&d->where) + d->nslots * sizeof(struct cmt_slot);
}

void dftl_tpage_bind(struct ftl *ftl, uint32_t tvpn, uint32_t ppa)
{
    ftl->dftl->gtd_plus1[tvpn] = ppa + 1;
}

/* The CMT slot holding lpn's entry, or NO_SLOT. */
static uint32_t slot_of(const struct dftl *d, uint32_t lpn)
{
    return lpn_table_get(&d->where, lpn);
}

static bool slot_dirty(const struct dftl *d, const struct cmt_slot *s)
{
    return s->dirty && s->gen == d->tp_gen[s->lpn / d->ept];
}

static void slot_set_dirty(struct dftl *d, struct cmt_slot *s)
{
    s->dirty = true;
    s->gen = d->tp_gen[s->lpn / d->ept];
}

/* ---- translation page write-back ---- */

static void pending_clear(struct dftl *d, uint32_t tvpn)
{
    d->pending_bits[tvpn / 64] &= ~(UINT64_C(1) << (tvpn % 64));
}

/*
 * Read-modify-write of translation page tvpn: read the copy on flash (none the first
 * time), program the new one at the map write pointer. Every dirty cached entry of the
 * page is in it, so they all turn clean. Returns when the program ends.
 */
static uint64_t tpage_write_back(struct ftl *ftl, uint32_t tvpn, uint64_t now_ns)
{
    struct dftl *d = ftl->dftl;
    uint32_t old = d->gtd_plus1[tvpn] - 1;
    uint64_t ready = now_ns;
    uint32_t ppa;

    if (old != UINT32_MAX) {
        ready = nand_read(ftl, ppa_lun(ftl, old), now_ns);
        ftl->ctr.map_reads++;
    }
    if (!wp_place(ftl, MAP_WP, true, (uint32_t)(ftl->geo.logical_pages + tvpn), &ppa,
                  now_ns)) {
        return ready;   /* no page anywhere: only on an inconsistent geometry */
    }
    dftl_tpage_bind(ftl, tvpn, ppa);
    if (old != UINT32_MAX) {
        map_invalidate(ftl, old);
    }
    ftl->ctr.map_writes++;
    d->tp_gen[tvpn]++;
    pending_clear(d, tvpn);
    return nand_program(ftl, ppa_lun(ftl, ppa), ready);
}

/* Make room in a full CMT: drop the LRU entry, writing its page back if it is dirty.
 * Returns when the slot is free (now_ns without a write-back). */
static uint64_t cmt_evict(struct ftl *ftl, uint32_t *freed, uint64_t now_ns)
{
    struct dftl *d = ftl->dftl;
    uint32_t i = d->order.lru;
    struct cmt_slot *s = &d->slots[i];
    uint64_t done = now_ns;

    if (slot_dirty(d, s)) {
        done = tpage_write_back(ftl, s->lpn / d->ept, now_ns);
        ftl->ctr.cmt_writebacks++;
    }
    lru_unlink(&d->order, i);
    lpn_table_del(&d->where, s->lpn);
    *freed = i;
    return done;
}

uint64_t dftl_lookup(struct ftl *ftl, uint32_t lpn, bool update, uint64_t now_ns)
{
    struct dftl *d = ftl->dftl;
    uint32_t i = slot_of(d, lpn);

    if (i != NO_SLOT) {
        ftl->ctr.cmt_hits++;
        lru_touch(&d->order, i);
        if (update) {
            slot_set_dirty(d, &d->slots[i]);
        }
        return now_ns;
    }
    ftl->ctr.cmt_misses++;
    uint64_t ready = now_ns;
    if (d->used < d->nslots) {
        i = d->used++;
    } else {
        ready = cmt_evict(ftl, &i, now_ns);
    }
    /* The entry comes from its translation page, if that was ever written; a page never
     * written back holds no mapping, so there is nothing to read. */
    uint32_t tp = d->gtd_plus1[lpn / d->ept] - 1;
    if (tp != UINT32_MAX) {
        ready = max_u64(ready, nand_read(ftl, ppa_lun(ftl, tp), now_ns));
        ftl->ctr.map_reads++;
    }
    d->slots[i] = (struct cmt_slot){ .lpn = lpn };
    if (update) {
        slot_set_dirty(d, &d->slots[i]);
    }
    lpn_table_put(&d->where, lpn, i);
    lru_push_mru(&d->order, i);
    return ready;
}

void dftl_note_update(struct ftl *ftl, uint32_t lpn)
{
    struct dftl *d = ftl->dftl;
    uint32_t i = slot_of(d, lpn);
    uint32_t tvpn = lpn / d->ept;

    if (i != NO_SLOT) {
        slot_set_dirty(d, &d->slots[i]);    /* written back with the entry, later */
        return;
    }
    if (!(d->pending_bits[tvpn / 64] >> (tvpn % 64) & 1)) {
        d->pending_bits[tvpn / 64] |= UINT64_C(1) << (tvpn % 64);
        d->pending[d->npending++] = tvpn;
    }
}

uint64_t dftl_write_pending(struct ftl *ftl, bool gc, uint64_t now_ns)
{
    struct dftl *d = ftl->dftl;
    uint64_t done = now_ns;

    /* A write-back never queues another page, so the list only shrinks here. */
    for (uint32_t k = 0; k < d->npending; k++) {
        uint32_t tvpn = d->pending[k];
        if (d->pending_bits[tvpn / 64] >> (tvpn % 64) & 1) {
            done = max_u64(done, tpage_write_back(ftl, tvpn, now_ns));
            if (gc) {
                ftl->ctr.gc_map_updates++;
            }
        }
    }
    d->npending = 0;
    return done;
}

uint64_t dftl_written_tpages(const struct ftl *ftl)
{
    const struct dftl *d = ftl->dftl;
    uint64_t n = 0;
    for (uint32_t t = 0; t < d->ntp; t++) {
        n += d->gtd_plus1[t] != 0;
    }
    return n;
}

int dftl_check(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct dftl *d = ftl->dftl;
    uint64_t logical = ftl->geo.logical_pages;

    for (uint32_t t = 0; t < d->ntp; t++) {
        uint32_t ppa = d->gtd_plus1[t] - 1;
        if (ppa != UINT32_MAX &&
            (ppa >= ftl->geo.phys_pages || p2l_get(ftl, ppa) != logical + t)) {
            return ftl_error(err, errlen, "GTD[%u] = %u but that page holds %u", t, ppa,
                             ppa < ftl->geo.phys_pages ? p2l_get(ftl, ppa) : 0);
        }
    }
    if (d->npending) {
        return ftl_error(err, errlen, "%u translation pages still queued", d->npending);
    }
    uint32_t n = 0, newer = NO_SLOT;
    for (uint32_t i = d->order.mru; i != NO_SLOT; i = d->slots[i].link.older) {
        const struct cmt_slot *s = &d->slots[i];
        if (++n > d->used || i >= d->used || s->link.newer != newer || s->lpn >= logical ||
            slot_of(d, s->lpn) != i) {
            return ftl_error(err, errlen, "CMT list broken at slot %u", i);
        }
        newer = i;
    }
    if (n != d->used || newer != d->order.lru) {
        return ftl_error(err, errlen, "CMT holds %u entries in its list, count says %u", n,
                         d->used);
    }
    if (d->where.count != d->used) {
        return ftl_error(err, errlen, "%u LPNs name a CMT slot, %u slots used", d->where.count,
                         d->used);
    }
    return 0;
}
