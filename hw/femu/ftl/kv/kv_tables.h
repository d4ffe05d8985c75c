/*
 * The key-value stores' tables (femu_ftl/kv.h), in one place because the state file
 * (state/ftl_state_kv.c) saves and restores them field by field. Every link is an index
 * into its own array, KV_NONE for none, so a table is saved as it lies.
 *
 * A store owns [base_sector, base_sector + sectors) of the conventional space, in pages:
 * index pages first (index_pages), then the value log (nsegs segments of seg_pages
 * pages). Region page p is FTL logical page base_sector / secs_per_pg + p.
 */
#ifndef FEMU_FTL_KV_KV_TABLES_H
#define FEMU_FTL_KV_KV_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lru_list.h"
#include "femu_ftl/kv.h"

#define KV_NONE UINT32_MAX
#define KV_REC_HEADER 8u        /* bytes of a log record's header (before key and value) */
#define KV_INDEX_ENTRY 32u      /* bytes of an index entry: 16 key, 16 location/size/meta */
#define KV_SLACK_SEGMENTS 2u    /* free segments compaction keeps (the log's slack) */

/* Admission's record: a treap node ordered by ftl_kv_key_cmp, heap-ordered on prio (a
 * hash of the key, so the shape depends on the keys only and replays are exact). */
struct kv_anode {
    struct ftl_kv_key key;
    uint32_t value_bytes;
    uint32_t left, right;       /* children; a free node chains through left */
    uint64_t tag;
    uint64_t prio;
};

struct kv_admission {
    struct kv_anode *nodes;     /* [cap] */
    uint32_t cap;
    uint32_t unused;            /* nodes[unused..cap) were never handed out */
    uint32_t root, free_head;
    uint64_t keys;              /* live keys */
    uint64_t live_bytes;        /* their value bytes */
};

/* The flash record of one key: where its newest log record lies. */
struct kv_frec {
    struct ftl_kv_key key;
    uint32_t seg;               /* its segment; KV_NONE: a free slot */
    uint32_t offset;            /* byte offset of the record in the segment */
    uint32_t rec_bytes;         /* KV_REC_HEADER + key length + value bytes */
    uint32_t value_bytes;
    uint32_t hnext;             /* hash chain; free slots chain through it */
    uint32_t sprev, snext;      /* the segment's live records */
    uint64_t tag;
};

/* The flash record: a chained hash table (FNV-1a of the key) over a pool of kv_frec. */
struct kv_flash_map {
    struct kv_frec *recs;       /* [cap] */
    uint32_t cap, unused, free_head;
    uint32_t *buckets;          /* [nbuckets], a power of two */
    uint32_t nbuckets;
    uint64_t count;             /* live keys */
    uint64_t value_bytes;       /* their value bytes (the kv_live_bytes gauge) */
};

enum kv_seg_state { KV_SEG_FREE, KV_SEG_OPEN, KV_SEG_CLOSED };

struct kv_segment {
    uint64_t live_bytes;        /* record bytes of its live records */
    uint32_t live_records;
    uint32_t first, last;       /* its live records in offset order (kv_frec indices) */
    uint32_t next_free;         /* the free FIFO */
    uint8_t state;              /* enum kv_seg_state */
};

/* The value log: segments, a FIFO of free ones, and the head being appended to. The
 * open page (head_off / page_bytes of head_seg) is in controller memory, not yet
 * programmed; every page of the head segment before it is. */
struct kv_log {
    struct kv_segment *segs;    /* [nsegs] */
    uint32_t nsegs;
    uint32_t free_head, free_tail, free_count;
    uint32_t head_seg;          /* KV_NONE before the first record */
    uint64_t head_off;          /* bytes used in head_seg */
};

/* The index cache: up to cap index pages in DRAM, LRU. */
struct kv_cslot {
    uint32_t page;              /* the index page it holds */
    bool dirty;
    struct lru_link link;
};

struct kv_index_cache {
    uint32_t cap, count;        /* slots, slots in use (slots[0..count)) */
    struct kv_cslot *slots;     /* [cap] */
    uint32_t *slot_of;          /* [index_pages] its slot, or KV_NONE */
    uint64_t *written;          /* [(index_pages + 63) / 64] bit p: page p was programmed */
    struct lru_list lru;
};

struct kv_store {
    uint32_t nsid;
    uint64_t base_sector, sectors;
    uint64_t capacity_bytes, max_keys;
    uint32_t max_value_bytes;
    uint64_t page_bytes;
    uint64_t index_pages;       /* region pages [0, index_pages) */
    uint64_t seg_pages;         /* the log: region pages [index_pages, + nsegs * seg_pages) */
    struct kv_admission adm;
    struct kv_flash_map map;
    struct kv_log log;
    struct kv_index_cache cache;
};

/* Every store of one FTL (struct ftl's kv), by creation order. */
struct kv_stores {
    struct kv_store **v;
    uint32_t n, cap;
};

#endif
