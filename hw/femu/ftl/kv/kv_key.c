/* The key order of List (femu_ftl/kv.h): every table of the KV layer compares keys by it. */
#include <string.h>

#include "femu_ftl/kv.h"

int ftl_kv_key_cmp(const struct ftl_kv_key *a, const struct ftl_kv_key *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, n);
    if (c != 0) {
        return c;
    }
    return (int)a->len - (int)b->len;
}
