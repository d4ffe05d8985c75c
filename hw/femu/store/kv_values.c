/*
 * Key -> value bytes for one KV namespace (kv_values.h): a chained hash table whose
 * bucket array doubles when it holds as many entries as buckets, so lookups stay O(1)
 * and an empty store is one small array whatever the namespace's capacity.
 */
#include <stdlib.h>
#include <string.h>

#include "kv_values.h"
#include "../util/fnv1a.h"     /* both builds: util is beside store */

#define KV_VALUES_MIN_BUCKETS 64

struct kv_entry {
    struct kv_entry *next;
    struct kv_values_key key;
    uint32_t len;
    uint8_t *bytes;
};

struct kv_values {
    struct kv_entry **buckets;
    size_t nbuckets;            /* a power of two */
    uint64_t count, bytes;
};

uint64_t kv_values_tag(const void *bytes, size_t len)
{
    return fnv1a64(FNV1A64_BASIS, bytes, len);
}

static size_t kv_bucket(const struct kv_values *kv, const struct kv_values_key *key)
{
    uint64_t hash = kv_values_tag(key->bytes, key->len) ^ key->len;

    return (size_t)(hash ^ (hash >> 29)) & (kv->nbuckets - 1);
}

static bool kv_key_equal(const struct kv_values_key *a, const struct kv_values_key *b)
{
    return a->len == b->len && memcmp(a->bytes, b->bytes, a->len) == 0;
}

struct kv_values *kv_values_create(void)
{
    struct kv_values *kv = calloc(1, sizeof(*kv));

    if (!kv) {
        return NULL;
    }
    kv->nbuckets = KV_VALUES_MIN_BUCKETS;
    kv->buckets = calloc(kv->nbuckets, sizeof(*kv->buckets));
    if (!kv->buckets) {
        free(kv);
        return NULL;
    }
    return kv;
}

void kv_values_clear(struct kv_values *kv)
{
    for (size_t b = 0; b < kv->nbuckets; b++) {
        struct kv_entry *e = kv->buckets[b];

        while (e) {
            struct kv_entry *next = e->next;

            free(e->bytes);
            free(e);
            e = next;
        }
        kv->buckets[b] = NULL;
    }
    kv->count = 0;
    kv->bytes = 0;
}

void kv_values_destroy(struct kv_values *kv)
{
    if (!kv) {
        return;
    }
    kv_values_clear(kv);
    free(kv->buckets);
    free(kv);
}

static struct kv_entry **kv_find(const struct kv_values *kv, const struct kv_values_key *key)
{
    struct kv_entry **link = &kv->buckets[kv_bucket(kv, key)];

    while (*link && !kv_key_equal(&(*link)->key, key)) {
        link = &(*link)->next;
    }
    return link;
}

/* Twice the buckets; on no memory the table stays as it is (only slower). */
static void kv_grow(struct kv_values *kv)
{
    size_t old_n = kv->nbuckets;
    struct kv_entry **old = kv->buckets;
    struct kv_entry **grown = calloc(old_n * 2, sizeof(*grown));

    if (!grown) {
        return;
    }
    kv->buckets = grown;
    kv->nbuckets = old_n * 2;
    for (size_t b = 0; b < old_n; b++) {
        struct kv_entry *e = old[b];

        while (e) {
            struct kv_entry *next = e->next;
            size_t nb = kv_bucket(kv, &e->key);

            e->next = grown[nb];
            grown[nb] = e;
            e = next;
        }
    }
    free(old);
}

bool kv_values_put(struct kv_values *kv, const struct kv_values_key *key, void *bytes,
                   uint32_t len)
{
    struct kv_entry **link = kv_find(kv, key), *e = *link;

    if (e) {
        kv->bytes -= e->len;
        free(e->bytes);
    } else {
        e = calloc(1, sizeof(*e));
        if (!e) {
            return false;
        }
        e->key = *key;
        memset(e->key.bytes + key->len, 0, KV_VALUES_KEY_MAX - key->len);
        *link = e;
        kv->count++;
    }
    e->bytes = bytes;
    e->len = len;
    kv->bytes += len;
    if (kv->count > kv->nbuckets) {
        kv_grow(kv);
    }
    return true;
}

const uint8_t *kv_values_get(const struct kv_values *kv, const struct kv_values_key *key,
                             uint32_t *len)
{
    struct kv_entry *e = *kv_find(kv, key);

    if (!e) {
        return NULL;
    }
    *len = e->len;
    return e->bytes ? e->bytes : (const uint8_t *)"";   /* a 0-byte value exists */
}

bool kv_values_del(struct kv_values *kv, const struct kv_values_key *key)
{
    struct kv_entry **link = kv_find(kv, key), *e = *link;

    if (!e) {
        return false;
    }
    *link = e->next;
    kv->count--;
    kv->bytes -= e->len;
    free(e->bytes);
    free(e);
    return true;
}

uint64_t kv_values_count(const struct kv_values *kv)
{
    return kv->count;
}

uint64_t kv_values_bytes(const struct kv_values *kv)
{
    return kv->bytes;
}

uint64_t kv_values_host_bytes(const struct kv_values *kv)
{
    return sizeof(*kv) + kv->nbuckets * sizeof(*kv->buckets) +
           kv->count * sizeof(struct kv_entry) + kv->bytes;
}

int kv_values_walk(const struct kv_values *kv, kv_values_fn *fn, void *opaque)
{
    for (size_t b = 0; b < kv->nbuckets; b++) {
        for (const struct kv_entry *e = kv->buckets[b]; e; e = e->next) {
            int rc = fn(opaque, &e->key, e->bytes, e->len);

            if (rc) {
                return rc;
            }
        }
    }
    return 0;
}
