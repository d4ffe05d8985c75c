/*
 * The key-value stores' invariants (kv_check.c), in two parts because they hold at
 * different times.
 *
 * kv_check_tables: what every store's own tables must hold at any time between two
 * requests: each segment's live bytes and records are the sum of its live records, those
 * lie in offset order inside it, the flash record holds exactly them, the free FIFO holds
 * exactly the free segments, the open page's offset is inside the head segment, the index
 * cache holds at most its kv_index_cache_pages, each page once. ftl_check() (core/, below
 * kv/, which it may not call by name) reaches it through the handle's kv_check, which
 * kv_store.c sets when it makes the store list, as it sets kv_free for ftl_destroy.
 *
 * kv_check_agree: admission's record and the flash record hold the same keys with the
 * same value sizes and tags. That holds only when no admitted command waits for its flash
 * work: the engine admits and serves in one call (ftl-sim), but the device admits at
 * fetch and serves later, so ftl_check (which the device runs after a power cut, with
 * commands perhaps in between) does not ask it; a state restore does (a restored FTL has
 * nothing queued), and so do the tests.
 */
#ifndef FEMU_FTL_KV_KV_CHECK_H
#define FEMU_FTL_KV_KV_CHECK_H

#include <stddef.h>

struct ftl;

/* 0, or -1 with one line in err naming the store, the table and the entry. */
int kv_check_tables(const struct ftl *ftl, char *err, size_t errlen);
int kv_check_agree(const struct ftl *ftl, char *err, size_t errlen);

#endif
