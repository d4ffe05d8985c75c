/* Section DKVV's codec (kv_values_state.h has the layout). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_values_state.h"

#define KVS_BUF_BYTES (64u << 10)   /* the file is read in pieces this big at most */

static void put_le(uint8_t *out, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        out[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t get_le(const uint8_t *in, unsigned bytes)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)in[i] << (8 * i);
    }
    return v;
}

size_t kv_values_state_head(uint8_t out[KV_VALUES_STATE_HEAD], uint32_t namespaces)
{
    put_le(out, KV_VALUES_STATE_VERSION, 4);
    put_le(out + 4, namespaces, 4);
    return KV_VALUES_STATE_HEAD;
}

size_t kv_values_state_ns(uint8_t out[KV_VALUES_STATE_NS], uint32_t nsid, uint64_t keys)
{
    put_le(out, nsid, 4);
    put_le(out + 4, keys, 8);
    return KV_VALUES_STATE_NS;
}

size_t kv_values_state_key(uint8_t out[KV_VALUES_STATE_KEY_MAX],
                           const struct kv_values_key *key, uint32_t len)
{
    out[0] = key->len;
    memcpy(out + 1, key->bytes, key->len);
    put_le(out + 1 + key->len, len, 4);
    return 1u + key->len + 4u;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t kv_values_state_bound(uint32_t namespaces, uint64_t keys, uint64_t value_bytes)
{
    uint64_t fixed = KV_VALUES_STATE_HEAD + (uint64_t)namespaces * KV_VALUES_STATE_NS;

    return sat_add(sat_add(fixed, sat_mul(keys, KV_VALUES_STATE_KEY_MAX)), value_bytes);
}

/* ---- Reading ---- */

/* The section through a buffer: `left` bounds every take, so a count or size the file
 * claims is checked against what the section holds before anything is allocated. */
typedef struct KvsIn {
    const struct kv_values_state_load *ld;
    uint64_t left;              /* section bytes not yet taken */
    uint8_t *buf;
    size_t pos, have;
    char *err;
    size_t errlen;
} KvsIn;

static int kvs_fail(KvsIn *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int kvs_fail(KvsIn *in, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(in->err, in->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* len bytes (no more than left) into out. */
static int kvs_take(KvsIn *in, void *out, uint64_t len)
{
    uint8_t *p = out;

    in->left -= len;
    while (len) {
        size_t n;

        if (in->pos == in->have) {
            uint64_t want = in->left + len < KVS_BUF_BYTES ? in->left + len : KVS_BUF_BYTES;

            if (len >= KVS_BUF_BYTES) {     /* a large value: straight into its bytes */
                return in->ld->read(in->ld->opaque, p, len, in->err, in->errlen);
            }
            if (in->ld->read(in->ld->opaque, in->buf, want, in->err, in->errlen) != 0) {
                return -1;
            }
            in->pos = 0;
            in->have = want;
        }
        n = in->have - in->pos < len ? in->have - in->pos : len;
        memcpy(p, in->buf + in->pos, n);
        in->pos += n;
        p += n;
        len -= n;
    }
    return 0;
}

/* A field of `bytes` bytes, or a failure naming `what` when the section ends first. */
static int kvs_field(KvsIn *in, uint64_t *v, unsigned bytes, const char *what)
{
    uint8_t raw[8];

    if (in->left < bytes) {
        return kvs_fail(in, "%s cut short (the section ends)", what);
    }
    if (kvs_take(in, raw, bytes) != 0) {
        return -1;
    }
    *v = get_le(raw, bytes);
    return 0;
}

/* One key of namespace nsid (its index i): checked, read and put into kv. */
static int kvs_key(KvsIn *in, uint32_t nsid, uint64_t i, struct kv_values *kv,
                   uint32_t max_value)
{
    struct kv_values_key key = { 0 };
    uint64_t kl = 0, vl = 0;
    uint32_t held;
    uint8_t *bytes;
    char what[64];

    snprintf(what, sizeof(what), "namespace %" PRIu32 ": key %" PRIu64, nsid, i);
    if (kvs_field(in, &kl, 1, what) != 0) {
        return -1;
    }
    if (kl < 1 || kl > KV_VALUES_KEY_MAX) {
        return kvs_fail(in, "%s: length %" PRIu64 " (1 to %d)", what, kl, KV_VALUES_KEY_MAX);
    }
    if (in->left < kl + 4) {
        return kvs_fail(in, "%s cut short (the section ends)", what);
    }
    key.len = (uint8_t)kl;
    if (kvs_take(in, key.bytes, kl) != 0 || kvs_field(in, &vl, 4, what) != 0) {
        return -1;
    }
    if (vl > max_value || vl > in->left) {
        return kvs_fail(in, "%s: a value of %" PRIu64 " bytes (at most %" PRIu32 ", %"
                        PRIu64 " left in the section)", what, vl, max_value, in->left);
    }
    if (kv_values_get(kv, &key, &held)) {
        return kvs_fail(in, "%s: the key is there twice", what);
    }
    bytes = malloc(vl ? vl : 1);
    if (!bytes) {
        return kvs_fail(in, "%s: out of memory", what);
    }
    if (kvs_take(in, bytes, vl) != 0) {
        free(bytes);
        return -1;
    }
    if (!kv_values_put(kv, &key, bytes, (uint32_t)vl)) {
        free(bytes);
        return kvs_fail(in, "%s: out of memory", what);
    }
    if (!in->ld->key(in->ld->opaque, nsid, &key, bytes, (uint32_t)vl, in->err, in->errlen)) {
        return -1;
    }
    return 0;
}

static int kvs_namespace(KvsIn *in, uint32_t *last_nsid)
{
    uint64_t nsid = 0, keys = 0;
    uint32_t max_value = 0;
    struct kv_values *kv;

    if (kvs_field(in, &nsid, 4, "a namespace's NSID") != 0 ||
        kvs_field(in, &keys, 8, "a namespace's key count") != 0) {
        return -1;
    }
    if (nsid <= *last_nsid) {
        return kvs_fail(in, "namespace %" PRIu64 " after namespace %" PRIu32 " (NSIDs "
                        "ascending, each once)", nsid, *last_nsid);
    }
    *last_nsid = (uint32_t)nsid;
    if (keys > in->left / KV_VALUES_STATE_KEY_MIN) {
        return kvs_fail(in, "namespace %" PRIu64 ": %" PRIu64 " keys, more than the %"
                        PRIu64 " bytes left hold", nsid, keys, in->left);
    }
    kv = in->ld->ns_begin(in->ld->opaque, (uint32_t)nsid, keys, &max_value, in->err,
                          in->errlen);
    if (!kv) {
        return -1;
    }
    for (uint64_t i = 0; i < keys; i++) {
        if (kvs_key(in, (uint32_t)nsid, i, kv, max_value) != 0) {
            return -1;
        }
    }
    return in->ld->ns_end(in->ld->opaque, (uint32_t)nsid, kv, in->err, in->errlen) ? 0 : -1;
}

int kv_values_state_read(const struct kv_values_state_load *ld, uint64_t len, char *err,
                         size_t errlen)
{
    KvsIn in = { .ld = ld, .left = len, .err = err, .errlen = errlen };
    uint64_t version = 0, count = 0;
    uint32_t last = 0;
    int rc = -1;

    in.buf = malloc(KVS_BUF_BYTES);
    if (!in.buf) {
        return kvs_fail(&in, "out of memory");
    }
    if (kvs_field(&in, &version, 4, "the version") != 0 ||
        kvs_field(&in, &count, 4, "the namespace count") != 0) {
        goto out;
    }
    if (version != KV_VALUES_STATE_VERSION) {
        kvs_fail(&in, "version %" PRIu64 ", this femu reads %u", version,
                 KV_VALUES_STATE_VERSION);
        goto out;
    }
    if (count > in.left / KV_VALUES_STATE_NS) {
        kvs_fail(&in, "%" PRIu64 " namespaces, more than the %" PRIu64 " bytes left hold",
                 count, in.left);
        goto out;
    }
    for (uint64_t i = 0; i < count; i++) {
        if (kvs_namespace(&in, &last) != 0) {
            goto out;
        }
    }
    rc = in.left ? kvs_fail(&in, "%" PRIu64 " bytes after the last namespace", in.left) : 0;
out:
    free(in.buf);
    return rc;
}
