/*
 * The bytes kv-load stores, made so that a Retrieve can tell a wrong value from the right
 * one without keeping any: a 32-byte header (the key, zero-padded to 16 bytes, the magic
 * "KVL1", the value's size and a seed, little endian) and after it a stream drawn from the
 * seed. A value shorter than the header holds the header's first bytes (seed 0).
 */
#ifndef KV_LOAD_KV_VALUE_H
#define KV_LOAD_KV_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "kv_cmd.h"

#define KV_VALUE_HEADER 32

void kv_value_fill(uint8_t *buf, uint32_t size, const struct kv_key *key, uint64_t seed);
/* Whether buf (moved bytes of a value of full size `size`) is a value of key that
 * kv_value_fill made. */
bool kv_value_check(const uint8_t *buf, uint32_t moved, uint32_t size,
                    const struct kv_key *key);

#endif
