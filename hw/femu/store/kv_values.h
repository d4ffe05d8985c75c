/*
 * The device's key-value namespaces' value bytes: per KV namespace, key -> value, held
 * sparsely (host memory = the live values plus a small entry each; an empty store of any
 * capacity costs one table), so a 64 GiB KV namespace starts at once. The FTL keeps no
 * value bytes (femu_ftl/kv.h): it keeps each value's tag, which the device computes here
 * (kv_values_tag) so a retrieve can check that the bytes it returns are the ones the FTL
 * admitted.
 *
 * Plain C11, no QEMU header, one caller at a time (the poller).
 */
#ifndef FEMU_KV_VALUES_H
#define FEMU_KV_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KV_VALUES_KEY_MAX 16        /* the command set's largest key */

struct kv_values;

struct kv_values_key {
    uint8_t len;                    /* 1..KV_VALUES_KEY_MAX */
    uint8_t bytes[KV_VALUES_KEY_MAX];   /* bytes past len are zero */
};

struct kv_values *kv_values_create(void);
void kv_values_destroy(struct kv_values *kv);

/* A value's tag: the FNV-1a 64-bit hash of its bytes (0 bytes: the offset basis). */
uint64_t kv_values_tag(const void *bytes, size_t len);

/* Store the value `bytes` (g_malloc'ed or malloc'ed by the caller: the store takes it and
 * frees it with free()), replacing the key's old value. false: out of memory (the store
 * is unchanged and the caller still owns bytes). */
bool kv_values_put(struct kv_values *kv, const struct kv_values_key *key, void *bytes,
                   uint32_t len);
/* The key's value (NULL when absent); *len its size. Valid until the key changes. */
const uint8_t *kv_values_get(const struct kv_values *kv, const struct kv_values_key *key,
                             uint32_t *len);
/* Forget the key; false when it was absent. */
bool kv_values_del(struct kv_values *kv, const struct kv_values_key *key);
/* Forget every key. */
void kv_values_clear(struct kv_values *kv);

uint64_t kv_values_count(const struct kv_values *kv);
uint64_t kv_values_bytes(const struct kv_values *kv);      /* live value bytes */
uint64_t kv_values_host_bytes(const struct kv_values *kv); /* host memory held, about */

/* Every key, in no particular order: fn's non-zero return stops the walk and is returned. */
typedef int kv_values_fn(void *opaque, const struct kv_values_key *key, const uint8_t *bytes,
                         uint32_t len);
int kv_values_walk(const struct kv_values *kv, kv_values_fn *fn, void *opaque);

#endif
