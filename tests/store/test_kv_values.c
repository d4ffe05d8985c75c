/* KV value store: put/get/replace/delete/clear, the tag, growth past the first table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kv_values.h"

static struct kv_values_key key_of(const char *text)
{
    struct kv_values_key key = { .len = (uint8_t)strlen(text) };

    memcpy(key.bytes, text, key.len);
    return key;
}

static void *dup_bytes(const char *text)
{
    size_t len = strlen(text);
    void *p = malloc(len ? len : 1);

    memcpy(p, text, len);
    return p;
}

static void test_put_get_replace_delete(void)
{
    struct kv_values *kv = kv_values_create();
    struct kv_values_key a = key_of("alpha"), ab = key_of("alphab");
    uint32_t len = 0;
    const uint8_t *v;

    CHECK(kv_values_put(kv, &a, dup_bytes("one"), 3));
    CHECK(kv_values_put(kv, &ab, dup_bytes("twotwo"), 6));
    CHECK(kv_values_count(kv) == 2 && kv_values_bytes(kv) == 9);
    v = kv_values_get(kv, &a, &len);
    CHECK(v && len == 3 && memcmp(v, "one", 3) == 0);
    CHECK(kv_values_put(kv, &a, dup_bytes("uno!!"), 5));     /* replace */
    v = kv_values_get(kv, &a, &len);
    CHECK(v && len == 5 && memcmp(v, "uno!!", 5) == 0);
    CHECK(kv_values_count(kv) == 2 && kv_values_bytes(kv) == 11);
    CHECK(kv_values_del(kv, &a));
    CHECK(!kv_values_del(kv, &a));
    CHECK(kv_values_get(kv, &a, &len) == NULL);
    CHECK(kv_values_get(kv, &ab, &len) != NULL);             /* a prefix is another key */
    kv_values_clear(kv);
    CHECK(kv_values_count(kv) == 0 && kv_values_bytes(kv) == 0);
    kv_values_destroy(kv);
}

/* The tag is FNV-1a 64: the offset basis for no bytes, the published value for "a". */
static void test_tag(void)
{
    CHECK(kv_values_tag("", 0) == 0xcbf29ce484222325ULL);
    CHECK(kv_values_tag("a", 1) == 0xaf63dc4c8601ec8cULL);
}

static int sum_lengths(void *opaque, const struct kv_values_key *key, const uint8_t *bytes,
                       uint32_t len)
{
    (void)key;
    (void)bytes;
    *(uint64_t *)opaque += len;
    return 0;
}

/* Ten thousand keys: the table grows, every key is still found, the walk sees each once. */
static void test_many_keys(void)
{
    struct kv_values *kv = kv_values_create();
    uint64_t walked = 0;
    char name[17];

    for (unsigned i = 0; i < 10000; i++) {
        struct kv_values_key key;

        snprintf(name, sizeof(name), "k%u", i);
        key = key_of(name);
        CHECK(kv_values_put(kv, &key, dup_bytes(name), (uint32_t)strlen(name)));
    }
    for (unsigned i = 0; i < 10000; i++) {
        struct kv_values_key key;
        uint32_t len;
        const uint8_t *v;

        snprintf(name, sizeof(name), "k%u", i);
        key = key_of(name);
        v = kv_values_get(kv, &key, &len);
        CHECK(v && len == strlen(name) && memcmp(v, name, len) == 0);
    }
    CHECK(kv_values_walk(kv, sum_lengths, &walked) == 0);
    CHECK(walked == kv_values_bytes(kv));
    CHECK(kv_values_host_bytes(kv) > kv_values_bytes(kv));
    kv_values_destroy(kv);
}

int main(void)
{
    test_put_get_replace_delete();
    test_tag();
    test_many_keys();
    return check_summary();
}
