/*
 * Key-value stores of the FTL: the NVMe Key Value Command Set's namespaces (CSI 01h), each
 * a store over its own range of the FTL's conventional sectors (the range a namespace
 * gets, as an NVM namespace does).
 *
 * The KV layer is a host of the page FTL inside the library: it keeps a log of values in
 * the range's logical pages (small values share a page, large ones span pages) and a hash
 * index whose pages also live there, cached in DRAM (kv_index_cache_pages); it reads and
 * writes those logical pages through the FTL's own host path, so flash timing, placement,
 * GC, wear, the write buffer, DFTL and the statistics all apply below it. Compaction
 * rewrites a log segment's live values at the log's head and deallocates the segment.
 *
 * Two layers, as in the zoned namespace (femu_ftl/zns.h), under the same single-caller
 * rule as the rest of the FTL:
 *
 *  - admission (ftl_kv_admit_*): the command set's rules. Which keys exist, their value
 *    sizes and tags, the capacity, and the status of every violation. No time, no flash.
 *    The device calls it when it fetches a command (it must know the status, a value's
 *    size and the key list before data moves); ftl-sim lets the engine call it.
 *  - flash (the engine's FTL_OP_KV_*, femu_ftl/engine.h): the index page lookups, the
 *    value log's page reads and programs, compaction. It keeps its own record of where
 *    each value lies, so it never depends on admission having been priced.
 *
 * The store keeps no value bytes (the device keeps them, ftl-sim has none): a caller's
 * 64-bit tag per value (the device: a checksum of the bytes; ftl-sim: the operation's
 * number) stands for them, so a reference model can check value for value.
 */
#ifndef FEMU_FTL_KV_H
#define FEMU_FTL_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftl;

#define FTL_KV_KEY_MAX 16   /* bytes: the command set's largest key (CDW2-3, CDW14-15) */

struct ftl_kv_key {
    uint8_t len;                    /* 1..FTL_KV_KEY_MAX */
    uint8_t bytes[FTL_KV_KEY_MAX];  /* bytes past len are zero */
};

/*
 * The key order of List: bytewise over the shorter length, then the shorter key first
 * (memcmp order of the bytes, a prefix before its extensions). < 0, 0, > 0.
 */
int ftl_kv_key_cmp(const struct ftl_kv_key *a, const struct ftl_kv_key *b);

/* Store options, in admission's opts and the request's flags (femu_ftl/engine.h). */
#define FTL_KV_ONLY_IF_EXISTS 128u  /* store only if the key exists (Overwrite Only) */
#define FTL_KV_ONLY_IF_ABSENT 256u  /* store only if it does not (No Overwrite) */

/* What a store holds and allows now (Identify's NSZE / NUSE in bytes, the limits). */
struct ftl_kv_info {
    uint64_t capacity_bytes;    /* value bytes the store accepts (NSZE) */
    uint64_t used_bytes;        /* live value bytes (NUSE) */
    uint64_t keys;              /* live keys */
    uint64_t max_keys;          /* keys the index holds (kv_max_keys, or derived) */
    uint64_t base_sector, sectors;  /* the FTL range the store owns */
    uint32_t max_value_bytes;   /* kv_max_value (last: no padding inside) */
};

/*
 * Sizing, from the configuration: the FTL sectors a store of capacity_bytes needs (its
 * values, their over-provisioning kv_op_pct, the index pages), a multiple of a page; 0
 * when capacity_bytes is 0 or the result would not fit the FTL. And back: the largest
 * capacity a range of sectors holds (0 if none).
 */
uint64_t ftl_kv_region_sectors(const struct ftl *ftl, uint64_t capacity_bytes);
uint64_t ftl_kv_capacity(const struct ftl *ftl, uint64_t sectors);

/*
 * A new, empty store for namespace nsid over [base_sector, base_sector + sectors) of the
 * conventional space, page aligned, sharing no sector with another store; capacity_bytes
 * <= ftl_kv_capacity(sectors). The range's old contents are the caller's to deallocate.
 * 0, or -1 with one line in err (nsid already has a store, a bad range, out of memory).
 */
int ftl_kv_create(struct ftl *ftl, uint32_t nsid, uint64_t base_sector, uint64_t sectors,
                  uint64_t capacity_bytes, char *err, size_t errlen);
/* Forget nsid's store, both layers (its namespace was deleted); nothing if it has none.
 * No flash work: the caller deallocates the range. Flash work queued for a store that is
 * gone is served as nothing (done at arrival). */
void ftl_kv_destroy(struct ftl *ftl, uint32_t nsid);
/*
 * Format, in the two layers' order: ftl_kv_clear empties admission's record (every key
 * gone) when the command is fetched; the engine's FTL_OP_FORMAT over exactly a store's
 * range empties the flash record (index cache, open page, log) when it is served, then
 * formats the range. Flash work queued between the two finds its keys gone or present as
 * the flash record says; a flash-side operation on a key it does not hold is an index
 * lookup only.
 */
void ftl_kv_clear(struct ftl *ftl, uint32_t nsid);
/* Whether nsid has a store; its figures into out (may be NULL). */
bool ftl_kv_info(const struct ftl *ftl, uint32_t nsid, struct ftl_kv_info *out);
/* How many stores the FTL has (a device checks each is one of its namespaces'). */
uint32_t ftl_kv_store_count(const struct ftl *ftl);

/*
 * Admission. Each returns FTL_OK or the status of the command set's rule it breaks, and
 * changes nothing on an error. FTL_E_INVAL: nsid has no store. Key length 0 or over
 * FTL_KV_KEY_MAX: FTL_E_KV_KEY_SIZE (before anything else is looked at).
 *
 * store: value_bytes over max_value_bytes FTL_E_KV_VALUE_SIZE; FTL_KV_ONLY_IF_EXISTS and
 * the key absent FTL_E_KV_NO_KEY; FTL_KV_ONLY_IF_ABSENT and the key present
 * FTL_E_KV_KEY_EXISTS; the live bytes past capacity_bytes, or a new key past max_keys,
 * FTL_E_KV_CAPACITY. Replaces the value (size, tag) of an existing key.
 * retrieve / exist / delete: FTL_E_KV_NO_KEY when the key is absent; retrieve gives the
 * value's size and tag.
 * list: up to max keys in key order, the first the smallest key >= start (start need not
 * exist), into out; *n how many. FTL_OK with *n = 0 when none is >= start.
 */
int ftl_kv_admit_store(struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key,
                       uint32_t value_bytes, unsigned opts, uint64_t value_tag);
int ftl_kv_admit_retrieve(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key,
                          uint32_t *value_bytes, uint64_t *value_tag);
int ftl_kv_admit_exist(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key);
int ftl_kv_admit_delete(struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key);
int ftl_kv_admit_list(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *start,
                      struct ftl_kv_key *out, uint32_t max, uint32_t *n);

#ifdef __cplusplus
}
#endif

#endif
