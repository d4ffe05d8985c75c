/* ftl-sim --kv's options (kv_spec.h): their spellings, defaults and the value size. */
#include "kv_spec.h"

#include <stdio.h>
#include <string.h>

#include "size.h"

const char *const kv_mix_names[KV_MIX_F + 1] = { "a", "b", "c", "d", "e", "f" };
const char *const kv_dist_names[KV_DIST_LATEST + 1] = {
    [KV_DIST_UNIFORM] = "uniform", [KV_DIST_ZIPFIAN] = "zipfian", [KV_DIST_LATEST] = "latest",
};

void kv_spec_defaults(struct kv_spec *s)
{
    *s = (struct kv_spec){ .mix = KV_MIX_A, .dist = KV_DIST_ZIPFIAN, .keys = 1000,
                           .ops = 1000, .value_min = 1024, .value_max = 1024 };
}

/* One size of --kv-value-size, below 2^32 (a Store's value size is 32 bits). */
static int value_size(const char *text, uint64_t *out, char *err, size_t errlen)
{
    char why[256];
    if (parse_size(text, out, why, sizeof(why))) {
        snprintf(err, errlen, "--kv-value-size: %s", why);
        return -1;
    }
    if (*out > UINT32_MAX) {
        snprintf(err, errlen, "--kv-value-size: '%s' is not below 4 GiB (a Store's value "
                 "size is 32 bits)", text);
        return -1;
    }
    return 0;
}

int kv_value_size_parse(const char *text, uint64_t *min, uint64_t *max, char *err,
                        size_t errlen)
{
    if (strncmp(text, "uniform:", 8) != 0) {
        if (value_size(text, min, err, errlen)) {
            return -1;
        }
        *max = *min;
        return 0;
    }
    char lo[64];
    const char *colon = strchr(text + 8, ':');
    size_t len = colon ? (size_t)(colon - (text + 8)) : 0;
    if (!colon || len == 0 || len >= sizeof(lo)) {
        snprintf(err, errlen, "--kv-value-size: expected SIZE or uniform:MIN:MAX, got '%s'",
                 text);
        return -1;
    }
    memcpy(lo, text + 8, len);
    lo[len] = '\0';
    if (value_size(lo, min, err, errlen) || value_size(colon + 1, max, err, errlen)) {
        return -1;
    }
    if (*min > *max) {
        snprintf(err, errlen, "--kv-value-size: MIN %s is above MAX %s", lo, colon + 1);
        return -1;
    }
    return 0;
}
