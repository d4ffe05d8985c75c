/*
 * A small hash table from LPN to an entry index, for the CMT (dftl.c), the write buffer
 * (write_buffer.c) and the read cache (rcache/): they hold a few thousand LPNs out of
 * millions, and a per-LPN array would cost 4 bytes a logical page and a cache miss on
 * every lookup, where this table (twice the entries, open addressing, linear probing)
 * stays in cache.
 */
#ifndef FEMU_FTL_LPN_TABLE_H
#define FEMU_FTL_LPN_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define LPN_TABLE_NONE UINT32_MAX

struct lpn_table {
    uint32_t *keys;     /* [size] lpn + 1, 0: empty */
    uint32_t *values;   /* [size] */
    uint32_t mask;      /* size - 1, size a power of two */
    uint32_t shift;     /* 32 - log2(size) */
    uint32_t count;
};

/* Room for `entries` LPNs at most half full. false when out of memory. */
static inline bool lpn_table_init(struct lpn_table *t, uint32_t entries)
{
    uint32_t bits = 1;
    while (bits < 31 && (UINT32_C(1) << bits) < 2 * (uint64_t)entries) {
        bits++;
    }
    uint32_t size = UINT32_C(1) << bits;
    t->keys = calloc(size, sizeof(uint32_t));
    t->values = calloc(size, sizeof(uint32_t));
    t->mask = size - 1;
    t->shift = 32 - bits;
    t->count = 0;
    return t->keys && t->values;
}

static inline void lpn_table_free(struct lpn_table *t)
{
    free(t->keys);
    free(t->values);
}

static inline size_t lpn_table_bytes(const struct lpn_table *t)
{
    return ((size_t)t->mask + 1) * 2 * sizeof(uint32_t);
}

/* Fibonacci hashing: the top bits of lpn x 2^32 / golden ratio. */
static inline uint32_t lpn_table_home(const struct lpn_table *t, uint32_t lpn)
{
    return (uint32_t)((lpn * UINT32_C(2654435769)) >> t->shift) & t->mask;
}

/* The slot holding lpn, or the empty slot where it would go. */
static inline uint32_t lpn_table_slot(const struct lpn_table *t, uint32_t lpn)
{
    uint32_t i = lpn_table_home(t, lpn);
    while (t->keys[i] && t->keys[i] != lpn + 1) {
        i = (i + 1) & t->mask;
    }
    return i;
}

/* lpn's value, or LPN_TABLE_NONE. */
static inline uint32_t lpn_table_get(const struct lpn_table *t, uint32_t lpn)
{
    uint32_t i = lpn_table_slot(t, lpn);
    return t->keys[i] ? t->values[i] : LPN_TABLE_NONE;
}

/* Set lpn's value; the caller never holds more LPNs than the table was made for. */
static inline void lpn_table_put(struct lpn_table *t, uint32_t lpn, uint32_t value)
{
    uint32_t i = lpn_table_slot(t, lpn);
    t->count += t->keys[i] == 0;
    t->keys[i] = lpn + 1;
    t->values[i] = value;
}

/* Remove lpn (if present), moving later entries of its probe run back into the hole so
 * every lookup still finds its key before an empty slot. */
static inline void lpn_table_del(struct lpn_table *t, uint32_t lpn)
{
    uint32_t hole = lpn_table_slot(t, lpn);
    if (!t->keys[hole]) {
        return;
    }
    t->count--;
    for (uint32_t i = (hole + 1) & t->mask; t->keys[i]; i = (i + 1) & t->mask) {
        uint32_t home = lpn_table_home(t, t->keys[i] - 1);
        /* the entry at i may fill the hole unless its home lies in (hole, i] */
        bool stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
        if (!stays) {
            t->keys[hole] = t->keys[i];
            t->values[hole] = t->values[i];
            hole = i;
        }
    }
    t->keys[hole] = 0;
}

#endif
