/* The configuration's key table: the kinds of key, one row per key, and the groups of rows
 * each concern (config_keys_*.c) keeps beside its cross-checks; config_keys.c assembles
 * the groups into the one table whose order --help, the docs and ftl_config_key follow. */
#ifndef FTL_CONFIG_CONFIG_KEYS_H
#define FTL_CONFIG_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/config.h"

#define MIB (1024ull * 1024ull)
/* Latencies above 100 s are surely typos; the cap also keeps time sums far from overflow. */
#define MAX_LATENCY_NS 100000000000ull

/* A key is a number (uint64_t field), one of a few names (an enum field, names[i] = i), a
 * size in bytes (uint64_t, text with an optional K/M/G suffix) or a switch (uint64_t 0/1,
 * text off/on or 0/1). */
/* KEY_COUNT: a KEY_UINT that also takes `off` for 0 (and prints 0 as off). */
enum key_kind { KEY_UINT, KEY_NAMED, KEY_BYTES, KEY_SWITCH, KEY_COUNT };

struct config_key {
    const char *name;
    const char *alias;
    enum key_kind kind;
    size_t offset;
    uint64_t min, max;          /* KEY_UINT: bounds; KEY_NAMED: max is the last index */
    const char *help;
    const char *const *names;   /* KEY_NAMED */
};

/* One concern's rows, in the order the table lists them. */
struct config_key_group {
    const struct config_key *keys;
    size_t count;
};

#define KEY_GROUP(rows) { rows, sizeof(rows) / sizeof(rows[0]) }

#define UKEY(field, lo, hi, text) \
    { #field, NULL, KEY_UINT, offsetof(struct ftl_config, field), lo, hi, text, NULL }
#define BKEY(field, text) \
    { #field, NULL, KEY_BYTES, offsetof(struct ftl_config, field), 0, UINT64_MAX, text, NULL }
#define SKEY(field, text) \
    { #field, NULL, KEY_SWITCH, offsetof(struct ftl_config, field), 0, 1, text, NULL }
#define NKEY(field, table, text) \
    { #field, NULL, KEY_NAMED, offsetof(struct ftl_config, field), 0, \
      sizeof(table) / sizeof(table[0]) - 1, text, table }

/* The groups, in table order (config_keys.c lists them once). */
extern const struct config_key_group config_flash_keys;
extern const struct config_key_group config_gc_keys;
extern const struct config_key_group config_placement_keys;
extern const struct config_key_group config_fdp_keys;
extern const struct config_key_group config_fault_keys;
extern const struct config_key_group config_read_retry_keys;
extern const struct config_key_group config_mapping_keys;
extern const struct config_key_group config_wbuf_keys;
extern const struct config_key_group config_rcache_keys;
extern const struct config_key_group config_zns_keys;
extern const struct config_key_group config_slc_keys;
extern const struct config_key_group config_kv_keys;
extern const struct config_key_group config_power_keys;
extern const struct config_key_group config_front_keys;
extern const struct config_key_group config_energy_keys;

/* The assembled table: its length, its index-th row, the row named (or aliased) name. */
size_t config_key_count(void);
const struct config_key *config_key_at(size_t index);
const struct config_key *config_key_find(const char *name);

/* The energy model's keys (config_keys_energy.c): whether key is one (they change no
 * state, so a state file may differ in them or lack them), and the NAND figures
 * energy=on needs, by index in the order it checks them (NULL past the last). */
bool config_key_is_energy(const char *key);
const char *config_energy_figure(size_t index);

#endif
