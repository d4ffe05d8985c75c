/*
 * The DRAM read cache (read_cache_pages > 0): which logical pages a host read finds in
 * the device's DRAM, under one of four replacement policies (read_cache_policy). It keeps
 * no data, only which pages are resident (and, for 2q and arc, the keys of pages evicted
 * lately: ghosts), so it needs nothing of the FTL; core/ftl.c decides when a read asks it
 * and when a write, trim, format, Copy or power cut makes it forget. Every access is O(1):
 * a hash table (base/lpn_table.h) from LPN to an entry, and intrusive lists by index
 * (base/lru_list.h); clock's hand is amortized O(1) (read_cache_policies.c).
 */
#ifndef FEMU_FTL_RCACHE_READ_CACHE_H
#define FEMU_FTL_RCACHE_READ_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/config.h"

#define RCACHE_NONE UINT32_MAX

struct rcache;

/* A cache of `pages` pages (> 0) under `policy`; NULL when out of memory. */
struct rcache *rcache_create(enum ftl_read_cache_policy policy, uint32_t pages);
void rcache_destroy(struct rcache *rc);
/* Bytes it holds (the index: entries and hash table; the modelled data is not kept). */
size_t rcache_bytes(const struct rcache *rc);

/* A host read of lpn: true, and the policy's hit bookkeeping done, when lpn is resident;
 * false (nothing changed) when not. */
bool rcache_lookup(struct rcache *rc, uint32_t lpn);
/* lpn (not resident) was read from flash after a miss: it becomes resident. Returns the
 * LPN evicted to make room, or RCACHE_NONE. */
uint32_t rcache_insert(struct rcache *rc, uint32_t lpn);
/* lpn's data changed or went away (write, trim, format, Copy): a resident copy is
 * forgotten (its slot free, no ghost made); a ghost key stays, being only history. */
void rcache_drop(struct rcache *rc, uint32_t lpn);
/* rcache_drop of every LPN in [start, end), in O(min(end - start, capacity)). */
void rcache_drop_range(struct rcache *rc, uint64_t start, uint64_t end);
/* Everything forgotten, ghosts and adaptive state too (a power cut: DRAM is gone). */
void rcache_clear(struct rcache *rc);

/* Whether lpn is resident (no bookkeeping: for checks and tests). */
bool rcache_holds(const struct rcache *rc, uint32_t lpn);
/* Resident pages now. */
uint32_t rcache_resident(const struct rcache *rc);
/* arc: the adaptive target size p of T1 (0 for the other policies). */
uint32_t rcache_arc_target(const struct rcache *rc);
/* Each resident LPN, in no particular order. */
void rcache_for_each(const struct rcache *rc, void (*fn)(void *ctx, uint32_t lpn),
                     void *ctx);
/* Its lists, counts and hash table agree with each other and with its policy's bounds:
 * 0, else -1 with the first disagreement in err. O(capacity). */
int rcache_check(const struct rcache *rc, char *err, size_t errlen);

#endif
