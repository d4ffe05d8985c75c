/*
 * ftl-sim's KV keys: a mix's key number n is YCSB's spelling, "user" and n in 12 decimal
 * digits (16 bytes, the command set's largest key), so key order is number order; an
 * ops file, a dump and a log spell keys as hexadecimal bytes.
 */
#ifndef FTL_SIM_KV_KEYS_H
#define FTL_SIM_KV_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/kv.h"

#define KV_KEY_NUMBERS UINT64_C(1000000000000)  /* 12 digits: numbers below 10^12 */
#define KV_KEY_HEX_MAX (2 * FTL_KV_KEY_MAX + 1)  /* a key's hex text and its NUL */

/* Key number n (< KV_KEY_NUMBERS) as "user%012llu". */
void kv_key_of_number(uint64_t n, struct ftl_kv_key *key);

/* 2 to 32 hexadecimal digits (either case), an even count: 0, or -1 (a bad key). */
int kv_key_from_hex(const char *text, struct ftl_kv_key *key);

/* The key's bytes as lower-case hex into out (KV_KEY_HEX_MAX bytes). */
void kv_key_to_hex(const struct ftl_kv_key *key, char *out);

#endif
