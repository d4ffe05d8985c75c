/*
 * Finding a store among an FTL's stores, their gauges, and the two facts every part of
 * the KV layer computes alike: a key's hash and a record's bytes. The tables are in
 * kv_tables.h.
 */
#ifndef FEMU_FTL_KV_KV_STORES_H
#define FEMU_FTL_KV_KV_STORES_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/ftl.h"
#include "fnv1a.h"            /* util: the key hash */
#include "kv/kv_tables.h"

struct ftl;

/* nsid's store, or NULL. */
struct kv_store *kv_store_of(const struct ftl *ftl, uint32_t nsid);

/* FNV-1a (64-bit) over the key's bytes, then its length as one byte: the index page a key
 * lives in (mod index_pages), the flash record's bucket, the treap's priority. */
static inline uint64_t kv_key_hash(const struct ftl_kv_key *key)
{
    size_t len = key->len < FTL_KV_KEY_MAX ? key->len : FTL_KV_KEY_MAX;
    return fnv1a64_byte(fnv1a64(FNV1A64_BASIS, key->bytes, len), key->len);
}

/* Bytes of a log record: header, key, value. */
static inline uint64_t kv_record_bytes(uint32_t key_len, uint64_t value_bytes)
{
    return KV_REC_HEADER + key_len + value_bytes;
}

/* The gauges of every store (ftl_get_gauges) and their tables' host memory
 * (ftl_metadata_bytes), kept in the handle; after every change. */
void kv_gauges_update(struct ftl *ftl);

#endif
