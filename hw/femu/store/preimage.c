/*
 * Pre-images for power loss (preimage.h): an open-addressing table keyed by LPN, linear
 * probing, deletion by shifting the probe run back (no tombstones, so a table that sees
 * millions of pages come and go never degrades). Each entry owns one page of bytes.
 */
#include "preimage.h"

#include <stdlib.h>
#include <string.h>

#define PREIMAGE_MIN_SLOTS 64u

struct preimage_entry {
    bool used;
    uint64_t lpn;
    uint64_t valid;         /* bit i: sector i's bytes are kept */
    uint8_t *data;          /* the page: sectors_per_page * sector_bytes */
};

struct preimage_table {
    uint32_t sector_bytes, spp;
    struct preimage_entry *slots;
    size_t nslots, count;   /* nslots a power of two, count <= nslots / 2 */
};

static size_t slot_of(const struct preimage_table *t, uint64_t lpn)
{
    return (size_t)((lpn * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (t->nslots - 1);
}

struct preimage_table *preimage_create(uint32_t sector_bytes, uint32_t sectors_per_page)
{
    if (!sector_bytes || sector_bytes > (1u << 16) || !sectors_per_page ||
        sectors_per_page > 64) {
        return NULL;
    }
    struct preimage_table *t = calloc(1, sizeof(*t));
    if (!t) {
        return NULL;
    }
    t->sector_bytes = sector_bytes;
    t->spp = sectors_per_page;
    t->nslots = PREIMAGE_MIN_SLOTS;
    t->slots = calloc(t->nslots, sizeof(*t->slots));
    if (!t->slots) {
        free(t);
        return NULL;
    }
    return t;
}

void preimage_clear(struct preimage_table *t)
{
    for (size_t i = 0; i < t->nslots; i++) {
        free(t->slots[i].data);
        t->slots[i] = (struct preimage_entry){ 0 };
    }
    t->count = 0;
}

void preimage_destroy(struct preimage_table *t)
{
    if (t) {
        preimage_clear(t);
        free(t->slots);
        free(t);
    }
}

size_t preimage_count(const struct preimage_table *t)
{
    return t->count;
}

static struct preimage_entry *find(const struct preimage_table *t, uint64_t lpn)
{
    for (size_t i = slot_of(t, lpn);; i = (i + 1) & (t->nslots - 1)) {
        struct preimage_entry *e = &t->slots[i];
        if (!e->used) {
            return NULL;
        }
        if (e->lpn == lpn) {
            return e;
        }
    }
}

/* Place an entry known to be absent (the table has room). */
static void place(struct preimage_table *t, struct preimage_entry e)
{
    size_t i = slot_of(t, e.lpn);
    while (t->slots[i].used) {
        i = (i + 1) & (t->nslots - 1);
    }
    t->slots[i] = e;
}

/* Rebuild into nslots slots, keeping the entries keep() accepts (NULL: all). */
static bool rebuild(struct preimage_table *t, size_t nslots,
                    uint64_t (*keep)(void *ctx, uint64_t lpn), void *ctx)
{
    struct preimage_entry *old = t->slots;
    size_t oldn = t->nslots;
    struct preimage_entry *slots = calloc(nslots, sizeof(*slots));
    if (!slots) {
        return false;
    }
    t->slots = slots;
    t->nslots = nslots;
    t->count = 0;
    for (size_t i = 0; i < oldn; i++) {
        if (!old[i].used) {
            continue;
        }
        if (keep && !keep(ctx, old[i].lpn)) {
            free(old[i].data);
            continue;
        }
        place(t, old[i]);
        t->count++;
    }
    free(old);
    return true;
}

void preimage_drop(struct preimage_table *t, uint64_t lpn)
{
    struct preimage_entry *e = find(t, lpn);
    if (!e) {
        return;
    }
    free(e->data);
    size_t hole = (size_t)(e - t->slots);
    *e = (struct preimage_entry){ 0 };
    t->count--;
    /* Shift back each later entry of the run that may sit in the hole: one whose home
     * slot does not lie cyclically in (hole, i]. */
    for (size_t i = (hole + 1) & (t->nslots - 1); t->slots[i].used;
         i = (i + 1) & (t->nslots - 1)) {
        size_t home = slot_of(t, t->slots[i].lpn);
        bool stays = hole < i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (!stays) {
            t->slots[hole] = t->slots[i];
            t->slots[i] = (struct preimage_entry){ 0 };
            hole = i;
        }
    }
}

void preimage_prune(struct preimage_table *t, uint64_t (*buffered)(void *ctx, uint64_t lpn),
                    void *ctx)
{
    if (!rebuild(t, t->nslots, buffered, ctx)) {
        /* no memory for a new array: drop one by one instead */
        for (size_t i = 0; i < t->nslots;) {
            if (t->slots[i].used && !buffered(ctx, t->slots[i].lpn)) {
                preimage_drop(t, t->slots[i].lpn);   /* may shift another entry here */
            } else {
                i++;
            }
        }
    }
}

static struct preimage_entry *find_or_add(struct preimage_table *t, uint64_t lpn)
{
    struct preimage_entry *e = find(t, lpn);
    if (e) {
        return e;
    }
    if ((t->count + 1) * 2 > t->nslots && !rebuild(t, t->nslots * 2, NULL, NULL)) {
        return NULL;
    }
    uint8_t *data = malloc((size_t)t->spp * t->sector_bytes);
    if (!data) {
        return NULL;
    }
    place(t, (struct preimage_entry){ .used = true, .lpn = lpn, .data = data });
    t->count++;
    return find(t, lpn);
}

bool preimage_save(struct preimage_table *t, uint64_t lpn, bool fresh, uint64_t mask,
                   const uint8_t *src, uint32_t first)
{
    struct preimage_entry *e = find_or_add(t, lpn);
    if (!e) {
        preimage_drop(t, lpn);
        return false;
    }
    if (fresh) {
        e->valid = 0;
    }
    for (uint32_t s = first; s < t->spp; s++) {
        if (mask >> s & 1) {
            memcpy(e->data + (size_t)s * t->sector_bytes,
                   src + (size_t)(s - first) * t->sector_bytes, t->sector_bytes);
            e->valid |= UINT64_C(1) << s;
        }
    }
    return true;
}

const uint8_t *preimage_sector(const struct preimage_table *t, uint64_t lpn, uint32_t sector)
{
    const struct preimage_entry *e = find(t, lpn);
    if (!e || sector >= t->spp || !(e->valid >> sector & 1)) {
        return NULL;
    }
    return e->data + (size_t)sector * t->sector_bytes;
}
