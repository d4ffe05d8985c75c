/* ftl-sim's KV keys (kv_keys.h). */
#include "kv_keys.h"

#include <stdio.h>
#include <string.h>

void kv_key_of_number(uint64_t n, struct ftl_kv_key *key)
{
    char text[FTL_KV_KEY_MAX + 1];
    snprintf(text, sizeof(text), "user%012llu", (unsigned long long)(n % KV_KEY_NUMBERS));
    memset(key, 0, sizeof(*key));
    key->len = FTL_KV_KEY_MAX;
    memcpy(key->bytes, text, FTL_KV_KEY_MAX);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int kv_key_from_hex(const char *text, struct ftl_kv_key *key)
{
    size_t len = strlen(text);
    if (len < 2 || len > 2 * FTL_KV_KEY_MAX || len % 2) {
        return -1;
    }
    memset(key, 0, sizeof(*key));
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return -1;
        }
        key->bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    key->len = (uint8_t)(len / 2);
    return 0;
}

void kv_key_to_hex(const struct ftl_kv_key *key, char *out)
{
    for (unsigned i = 0; i < key->len && i < FTL_KV_KEY_MAX; i++) {
        snprintf(out + 2 * i, 3, "%02x", key->bytes[i]);
    }
    out[2 * (key->len <= FTL_KV_KEY_MAX ? key->len : FTL_KV_KEY_MAX)] = '\0';
}
