/*
 * The KV layer's internal API: finding a store, the key hash, page I/O on a store's
 * region through the FTL's host path, and the parts each file keeps (admission, the flash
 * record, the index cache, the value log). The tables are in kv_tables.h.
 */
#ifndef FEMU_FTL_KV_KV_STORE_H
#define FEMU_FTL_KV_KV_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/ftl.h"
#include "kv/kv_tables.h"

struct ftl;

/* nsid's store, or NULL. */
struct kv_store *kv_store_of(const struct ftl *ftl, uint32_t nsid);

/* FNV-1a (64-bit) over the key's bytes, then its length as one byte: the index page a key
 * lives in (mod index_pages), the flash record's bucket, the treap's priority. */
static inline uint64_t kv_key_hash(const struct ftl_kv_key *key)
{
    uint64_t h = 14695981039346656037ull;
    for (uint32_t i = 0; i < key->len && i < FTL_KV_KEY_MAX; i++) {
        h = (h ^ key->bytes[i]) * 1099511628211ull;
    }
    return (h ^ key->len) * 1099511628211ull;
}

/* Bytes of a log record: header, key, value. */
static inline uint64_t kv_record_bytes(uint32_t key_len, uint64_t value_bytes)
{
    return KV_REC_HEADER + key_len + value_bytes;
}

/*
 * One page of the store's region (region page p) through the FTL's host path at now_ns;
 * writes with fua so no page of a store waits in a volatile buffer. The time the page's
 * I/O ends is folded into *done (the max). FTL status.
 */
int kv_page_read(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t now_ns,
                 uint64_t *done);
int kv_page_write(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t now_ns,
                  uint64_t *done);
int kv_pages_trim(struct ftl *ftl, const struct kv_store *s, uint64_t p, uint64_t n,
                  uint64_t now_ns, uint64_t *done);

/* Admission's ordered map (kv_admit.c). */
int kv_adm_init(struct kv_admission *a);
void kv_adm_free(struct kv_admission *a);
void kv_adm_clear(struct kv_admission *a);
const struct kv_anode *kv_adm_find(const struct kv_admission *a, const struct ftl_kv_key *k);
/* The smallest key >= k (> k when strict), or NULL. */
const struct kv_anode *kv_adm_ceil(const struct kv_admission *a, const struct ftl_kv_key *k,
                                   bool strict);

/* The flash record (kv_map.c). */
int kv_map_init(struct kv_flash_map *m);
void kv_map_free(struct kv_flash_map *m);
void kv_map_clear(struct kv_flash_map *m);
uint32_t kv_map_find(const struct kv_flash_map *m, const struct ftl_kv_key *k);
/* A slot for a new key (its seg is KV_NONE until placed), or KV_NONE out of memory. */
uint32_t kv_map_insert(struct kv_flash_map *m, const struct ftl_kv_key *k);
void kv_map_remove(struct kv_flash_map *m, uint32_t i);

/* The index cache (kv_index.c). */
int kv_index_init(struct kv_store *s, uint32_t cache_pages);
void kv_index_free(struct kv_index_cache *c);
void kv_index_clear(struct kv_store *s);
/* Look up key's index page at now_ns (dirty: a Store or Delete changes it): a hit costs
 * nothing, a miss reads the page (if ever written) and may evict a dirty page. The end of
 * its flash work into *done. FTL status. */
int kv_index_lookup(struct ftl *ftl, struct kv_store *s, const struct ftl_kv_key *key,
                    bool dirty, uint64_t now_ns, uint64_t *done);

/* The value log (kv_log.c). */
int kv_log_init(struct kv_log *l, uint32_t nsegs);
void kv_log_free(struct kv_log *l);
void kv_log_clear(struct kv_log *l);
/* Append key's record (rec the flash record slot, already holding key, sizes and tag) at
 * the head, compacting first when it needs a new segment and the free ones are too few;
 * full pages program at now_ns (after a compaction, at its end). FTL status:
 * FTL_E_KV_CAPACITY when the log has no room even after compaction. */
int kv_log_append(struct ftl *ftl, struct kv_store *s, uint32_t rec, uint64_t now_ns,
                  uint64_t *done);
/* The record no longer live: its segment's counts drop. */
void kv_log_kill(struct kv_store *s, uint32_t rec);
/* Read the pages of the first `bytes` bytes of the record (those outside the open page)
 * at now_ns. */
int kv_log_read(struct ftl *ftl, struct kv_store *s, uint32_t rec, uint64_t bytes,
                uint64_t now_ns, uint64_t *done);

/* The gauges of every store, kept in the handle for ftl_get_gauges (kv_store.c). */
void kv_gauges_update(struct ftl *ftl);

#endif
