/*
 * The KV namespaces' value bytes in a device state file (section DKVV): the codec. The
 * device (cmd/admin/ns_kv_state.c) streams the section through it both ways, so neither
 * a save nor a restore holds a second copy of the values.
 *
 * DKVV, little endian: u32 version (1), u32 namespaces; per namespace, NSIDs ascending:
 * u32 NSID, u64 keys; per key (femu writes them in List's key order): u8 key length (1 to
 * 16), the key's bytes, u32 value bytes, the value's bytes.
 *
 * Plain C11, no QEMU header.
 */
#ifndef FEMU_KV_VALUES_STATE_H
#define FEMU_KV_VALUES_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv_values.h"

#define KV_VALUES_STATE_VERSION   1u
#define KV_VALUES_STATE_HEAD      8u    /* version, namespaces */
#define KV_VALUES_STATE_NS        12u   /* NSID, keys */
#define KV_VALUES_STATE_KEY_MAX   (1u + KV_VALUES_KEY_MAX + 4u)   /* a key's fields */
#define KV_VALUES_STATE_KEY_MIN   (1u + 1u + 4u)

/* ---- Writing: the fields before the bytes that follow them, into out; their size ---- */

size_t kv_values_state_head(uint8_t out[KV_VALUES_STATE_HEAD], uint32_t namespaces);
size_t kv_values_state_ns(uint8_t out[KV_VALUES_STATE_NS], uint32_t nsid, uint64_t keys);
/* A key and its value's size: the value's len bytes come next. */
size_t kv_values_state_key(uint8_t out[KV_VALUES_STATE_KEY_MAX],
                           const struct kv_values_key *key, uint32_t len);

/* The largest section for at most `namespaces` namespaces, `keys` keys and `value_bytes`
 * bytes of values in all (saturates at UINT64_MAX). */
uint64_t kv_values_state_bound(uint32_t namespaces, uint64_t keys, uint64_t value_bytes);

/* ---- Reading ---- */

struct kv_values_state_load {
    /* The section's next len bytes into buf: 0, or -1 with the reason in err. */
    int (*read)(void *opaque, void *buf, size_t len, char *err, size_t errlen);
    /* A namespace's entry: the (empty) store its values go into and its largest value
     * size; NULL refuses it, with the reason in err. */
    struct kv_values *(*ns_begin)(void *opaque, uint32_t nsid, uint64_t keys,
                                  uint32_t *max_value, char *err, size_t errlen);
    /* A key just put into the store: false refuses it, with the reason in err. */
    bool (*key)(void *opaque, uint32_t nsid, const struct kv_values_key *key,
                const uint8_t *bytes, uint32_t len, char *err, size_t errlen);
    /* Every key of the namespace read: false refuses it, with the reason in err. */
    bool (*ns_end)(void *opaque, uint32_t nsid, const struct kv_values *kv, char *err,
                   size_t errlen);
    void *opaque;
};

/*
 * Read a section of len bytes: every field range-checked before it is used (key length 1
 * to 16, a value no larger than its namespace's largest nor than what is left, counts no
 * more than what is left can hold, NSIDs ascending, no key twice in a namespace, nothing
 * after the last namespace). 0, or -1 with one line in err, which names the namespace and
 * the key's position ("namespace 2: key 7: length 17 (1 to 16)"). What was put into the
 * stores before a failure stays there: the caller throws the stores away.
 */
int kv_values_state_read(const struct kv_values_state_load *ld, uint64_t len, char *err,
                         size_t errlen);

#endif
