/* The bytes kv-load stores (kv_value.h). */
#include "kv_value.h"

#include <string.h>

static const uint8_t magic[4] = { 'K', 'V', 'L', '1' };

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void header(uint8_t out[KV_VALUE_HEADER], uint32_t size, const struct kv_key *key,
                   uint64_t seed)
{
    /* the key first: a value shorter than the header still names as much of it as fits */
    memset(out, 0, KV_KEY_MAX);
    memcpy(out, key->bytes, key->len);
    memcpy(out + 16, magic, 4);
    put_le(out + 20, size, 4);
    put_le(out + 24, seed, 8);
}

/* Word `word` (8 bytes, counted from the header's end) of seed's stream. */
static uint64_t stream_word(uint64_t seed, uint64_t word)
{
    uint64_t z = seed + (word + 1) * UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void kv_value_fill(uint8_t *buf, uint32_t size, const struct kv_key *key, uint64_t seed)
{
    uint8_t head[KV_VALUE_HEADER];
    if (size < KV_VALUE_HEADER) {
        seed = 0;
    }
    header(head, size, key, seed);
    memcpy(buf, head, size < KV_VALUE_HEADER ? size : KV_VALUE_HEADER);
    for (uint32_t at = KV_VALUE_HEADER; at < size; at += 8) {
        uint8_t word[8];
        put_le(word, stream_word(seed, (at - KV_VALUE_HEADER) / 8), 8);
        memcpy(buf + at, word, size - at < 8 ? size - at : 8);
    }
}

bool kv_value_check(const uint8_t *buf, uint32_t moved, uint32_t size,
                    const struct kv_key *key)
{
    uint8_t head[KV_VALUE_HEADER];
    uint64_t seed = size >= KV_VALUE_HEADER && moved >= KV_VALUE_HEADER ? get_le(buf + 24, 8)
                                                                    : 0;
    header(head, size, key, seed);
    /* a part too short to hold the seed is compared up to it */
    uint32_t compared = moved >= KV_VALUE_HEADER ? KV_VALUE_HEADER
                        : size >= KV_VALUE_HEADER && moved > 24 ? 24 : moved;
    if (memcmp(buf, head, compared) != 0) {
        return false;
    }
    for (uint32_t at = KV_VALUE_HEADER; at < moved; at += 8) {
        uint8_t word[8];
        put_le(word, stream_word(seed, (at - KV_VALUE_HEADER) / 8), 8);
        if (memcmp(buf + at, word, moved - at < 8 ? moved - at : 8) != 0) {
            return false;
        }
    }
    return true;
}
