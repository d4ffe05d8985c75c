/* Section DKVV's codec: a hand-built section read back, and each malformed field refused
 * with the line naming it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kv_values_state.h"

/* A section in memory, and what the loader's callbacks saw. */
typedef struct Section {
    uint8_t bytes[1 << 18];
    size_t len, pos;
    struct kv_values *kv[4];    /* by NSID 1..3 */
    uint32_t max_value;
    unsigned keys_seen, ends_seen;
    const char *refuse_key;     /* the key the key callback refuses */
} Section;

static void add(Section *s, const void *p, size_t len)
{
    memcpy(s->bytes + s->len, p, len);
    s->len += len;
}

static void add_key(Section *s, const char *key, const void *value, uint32_t len)
{
    struct kv_values_key k = { .len = (uint8_t)strlen(key) };
    uint8_t head[KV_VALUES_STATE_KEY_MAX];

    memcpy(k.bytes, key, k.len);
    add(s, head, kv_values_state_key(head, &k, len));
    add(s, value, len);
}

static void add_ns(Section *s, uint32_t nsid, uint64_t keys)
{
    uint8_t head[KV_VALUES_STATE_NS];

    add(s, head, kv_values_state_ns(head, nsid, keys));
}

static void add_head(Section *s, uint32_t namespaces)
{
    uint8_t head[KV_VALUES_STATE_HEAD];

    add(s, head, kv_values_state_head(head, namespaces));
}

static int s_read(void *opaque, void *buf, size_t len, char *err, size_t errlen)
{
    Section *s = opaque;

    if (s->pos + len > s->len) {
        snprintf(err, errlen, "read past the section");
        return -1;
    }
    memcpy(buf, s->bytes + s->pos, len);
    s->pos += len;
    return 0;
}

static struct kv_values *s_ns(void *opaque, uint32_t nsid, uint64_t keys, uint32_t *max_value,
                              char *err, size_t errlen)
{
    Section *s = opaque;

    (void)keys;
    if (nsid > 3) {
        snprintf(err, errlen, "namespace %u refused", nsid);
        return NULL;
    }
    if (!s->kv[nsid]) {
        s->kv[nsid] = kv_values_create();
    }
    *max_value = s->max_value;
    return s->kv[nsid];
}

static bool s_key(void *opaque, uint32_t nsid, const struct kv_values_key *key,
                  const uint8_t *bytes, uint32_t len, char *err, size_t errlen)
{
    Section *s = opaque;

    (void)bytes;
    (void)len;
    s->keys_seen++;
    if (s->refuse_key && key->len == strlen(s->refuse_key) &&
        memcmp(key->bytes, s->refuse_key, key->len) == 0) {
        snprintf(err, errlen, "namespace %u: key refused", nsid);
        return false;
    }
    return true;
}

static bool s_end(void *opaque, uint32_t nsid, const struct kv_values *kv, char *err,
                  size_t errlen)
{
    Section *s = opaque;

    (void)nsid;
    (void)kv;
    (void)err;
    (void)errlen;
    s->ends_seen++;
    return true;
}

static Section *new_section(void)
{
    Section *s = calloc(1, sizeof(*s));

    s->max_value = 65536;
    return s;
}

static void free_section(Section *s)
{
    for (unsigned i = 0; i < 4; i++) {
        kv_values_destroy(s->kv[i]);
    }
    free(s);
}

/* 0 or -1; the line in err. */
static int load(Section *s, char *err, size_t errlen)
{
    const struct kv_values_state_load ld = {
        .read = s_read, .ns_begin = s_ns, .key = s_key, .ns_end = s_end, .opaque = s,
    };

    err[0] = '\0';
    return kv_values_state_read(&ld, s->len, err, errlen);
}

/* Two namespaces: a 0-byte value, a 16-byte key, a value of 70000 bytes (past the reading
 * buffer), read back byte for byte. */
static void test_round_trip(void)
{
    Section *s = new_section();
    static uint8_t big[70000];
    const uint8_t *v;
    uint32_t len = 0;
    char err[256];

    for (unsigned i = 0; i < sizeof(big); i++) {
        big[i] = (uint8_t)(i * 7 + 3);
    }
    s->max_value = sizeof(big);
    add_head(s, 2);
    add_ns(s, 1, 3);
    add_key(s, "a", "", 0);
    add_key(s, "0123456789abcdef", "sixteen", 7);
    add_key(s, "big", big, sizeof(big));
    add_ns(s, 3, 1);
    add_key(s, "a", "other", 5);
    CHECK(s->len == 8 + 12 + (6 + 0) + (21 + 7) + (8 + 70000) + 12 + (6 + 5));
    CHECK(load(s, err, sizeof(err)) == 0);
    CHECK(s->keys_seen == 4 && s->ends_seen == 2);
    CHECK(kv_values_count(s->kv[1]) == 3 && kv_values_count(s->kv[3]) == 1);
    {
        struct kv_values_key a = { .len = 1, .bytes = "a" };
        struct kv_values_key b = { .len = 3, .bytes = "big" };

        v = kv_values_get(s->kv[1], &a, &len);
        CHECK(v && len == 0);
        v = kv_values_get(s->kv[1], &b, &len);
        CHECK(v && len == sizeof(big) && memcmp(v, big, len) == 0);
        v = kv_values_get(s->kv[3], &a, &len);
        CHECK(v && len == 5 && memcmp(v, "other", 5) == 0);
    }
    free_section(s);
}

/* An empty section: no namespace. */
static void test_empty(void)
{
    Section *s = new_section();
    char err[256];

    add_head(s, 0);
    CHECK(load(s, err, sizeof(err)) == 0 && s->ends_seen == 0);
    free_section(s);
}

/* The section as built by fn, refused with a line holding `expect`. */
static void refused(void (*fn)(Section *s), const char *expect)
{
    Section *s = new_section();
    char err[256];

    fn(s);
    CHECK(load(s, err, sizeof(err)) == -1);
    if (!strstr(err, expect)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", expect, err);
        CHECK(false);
    }
    free_section(s);
}

static void key_len_0(Section *s)
{
    add_head(s, 1);
    add_ns(s, 1, 1);
    add(s, "\0\0\0\0\0\0", 6);
}

static void key_len_17(Section *s)
{
    add_head(s, 1);
    add_ns(s, 1, 1);
    add(s, "\x11" "0123456789abcdefg" "\0\0\0\0", 22);
}

static void value_too_big(Section *s)
{
    s->max_value = 4;
    add_head(s, 1);
    add_ns(s, 1, 1);
    add_key(s, "k", "fivey", 5);
}

static void value_past_end(Section *s)
{
    add_head(s, 1);
    add_ns(s, 1, 1);
    add_key(s, "k", "abcdef", 6);
    s->len -= 2;            /* the value's last two bytes cut */
}

static void truncated_key(Section *s)
{
    add_head(s, 1);
    add_ns(s, 1, 2);
    add_key(s, "k", "a", 1);
    add_key(s, "v", "b", 1);
    s->len -= 2;            /* the second key's value size cut */
}

static void duplicate_key(Section *s)
{
    add_head(s, 1);
    add_ns(s, 2, 2);
    add_key(s, "same", "1", 1);
    add_key(s, "same", "2", 1);
}

static void too_many_keys(Section *s)
{
    add_head(s, 1);
    add_ns(s, 1, 1000);
    add_key(s, "k", "v", 1);
}

static void too_many_namespaces(Section *s)
{
    add_head(s, 1000);
    add_ns(s, 1, 0);
}

static void nsid_order(Section *s)
{
    add_head(s, 2);
    add_ns(s, 2, 0);
    add_ns(s, 2, 0);
}

static void trailing(Section *s)
{
    add_head(s, 1);
    add_ns(s, 1, 0);
    add(s, "x", 1);
}

static void bad_version(Section *s)
{
    add(s, "\x02\0\0\0\0\0\0\0", 8);
}

static void ns_refused(Section *s)
{
    add_head(s, 1);
    add_ns(s, 9, 0);
}

static void key_refused(Section *s)
{
    s->refuse_key = "bad";
    add_head(s, 1);
    add_ns(s, 1, 2);
    add_key(s, "good", "1", 1);
    add_key(s, "bad", "2", 1);
}

static void test_refused(void)
{
    refused(key_len_0, "namespace 1: key 0: length 0 (1 to 16)");
    refused(key_len_17, "namespace 1: key 0: length 17 (1 to 16)");
    refused(value_too_big, "namespace 1: key 0: a value of 5 bytes (at most 4");
    refused(value_past_end, "namespace 1: key 0: a value of 6 bytes");
    refused(truncated_key, "namespace 1: key 1 cut short");
    refused(duplicate_key, "namespace 2: key 1: the key is there twice");
    refused(too_many_keys, "namespace 1: 1000 keys, more than");
    refused(too_many_namespaces, "1000 namespaces, more than");
    refused(nsid_order, "namespace 2 after namespace 2");
    refused(trailing, "1 bytes after the last namespace");
    refused(bad_version, "version 2, this femu reads 1");
    refused(ns_refused, "namespace 9 refused");
    refused(key_refused, "namespace 1: key refused");
}

static void test_bound(void)
{
    CHECK(kv_values_state_bound(2, 3, 100) == 8 + 24 + 3 * 21 + 100);
    CHECK(kv_values_state_bound(1, UINT64_MAX / 2, 5) == UINT64_MAX);
}

int main(void)
{
    test_round_trip();
    test_empty();
    test_refused();
    test_bound();
    return check_summary();
}
