/*
 * Per-LPN host write counts, exact up to UINT32_MAX in two bytes per logical page.
 *
 * A count below WC_OVERFLOW lives in the 16-bit array write_count16. A page written
 * WC_OVERFLOW (65535) times or more is marked WC_OVERFLOW there and its exact count is
 * kept in a small open-addressing hash table (linear probing, at most half full, doubled
 * when needed), so the table costs memory only for pages written that often. Entries are
 * never removed: one left behind when a count drops back below WC_OVERFLOW (a write that
 * found no free page is undone) is ignored, as the array no longer points to it, and is
 * reused if the count climbs again.
 */
#include "place/write_count.h"

#include <stdlib.h>

#define WC_MIN_SLOTS 64u

static uint32_t wc_slot_index(uint32_t lpn, uint32_t mask)
{
    return (uint32_t)(((uint64_t)lpn * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

/* The slot holding lpn, or the empty slot where it would go. */
static struct wc_slot *wc_probe(struct wc_slot *slots, uint32_t nslots, uint32_t lpn)
{
    uint32_t mask = nslots - 1;
    for (uint32_t i = wc_slot_index(lpn, mask);; i = (i + 1) & mask) {
        if (slots[i].lpn_plus1 == lpn + 1 || slots[i].lpn_plus1 == 0) {
            return &slots[i];
        }
    }
}

const struct wc_slot *wc_overflow_find(const struct ftl *ftl, uint32_t lpn)
{
    if (ftl->wc_nslots == 0) {
        return NULL;
    }
    const struct wc_slot *s = wc_probe(ftl->wc_slots, ftl->wc_nslots, lpn);
    return s->lpn_plus1 ? s : NULL;
}

uint32_t wc_overflow_get(const struct ftl *ftl, uint32_t lpn)
{
    const struct wc_slot *s = wc_overflow_find(ftl, lpn);
    /* A marked page without an entry is an inconsistency ftl_check reports; the marker
     * is still a true lower bound. */
    return s ? s->count : WC_OVERFLOW;
}

static bool wc_grow(struct ftl *ftl)
{
    uint32_t nslots = ftl->wc_nslots ? ftl->wc_nslots * 2 : WC_MIN_SLOTS;
    if (nslots < ftl->wc_nslots) {
        return false;   /* cannot happen below 2^31 entries (logical pages < 2^32) */
    }
    struct wc_slot *slots = calloc(nslots, sizeof(*slots));
    if (!slots) {
        return false;
    }
    for (uint32_t i = 0; i < ftl->wc_nslots; i++) {
        if (ftl->wc_slots[i].lpn_plus1) {
            *wc_probe(slots, nslots, ftl->wc_slots[i].lpn_plus1 - 1) = ftl->wc_slots[i];
        }
    }
    free(ftl->wc_slots);
    ftl->wc_slots = slots;
    ftl->wc_nslots = nslots;
    return true;
}

bool wc_overflow_set(struct ftl *ftl, uint32_t lpn, uint32_t count)
{
    struct wc_slot *s = ftl->wc_nslots ? wc_probe(ftl->wc_slots, ftl->wc_nslots, lpn) : NULL;
    if (!s || s->lpn_plus1 == 0) {
        if ((uint64_t)(ftl->wc_used + 1) * 2 > ftl->wc_nslots) {
            if (!wc_grow(ftl)) {
                return false;
            }
        }
        s = wc_probe(ftl->wc_slots, ftl->wc_nslots, lpn);
        s->lpn_plus1 = lpn + 1;
        ftl->wc_used++;
    }
    s->count = count;
    ftl->write_count16[lpn] = WC_OVERFLOW;
    return true;
}
