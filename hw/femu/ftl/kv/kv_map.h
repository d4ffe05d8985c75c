/* The flash record: key -> its newest log record, a hash table (kv_map.c). */
#ifndef FEMU_FTL_KV_KV_MAP_H
#define FEMU_FTL_KV_KV_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kv/kv_tables.h"

struct ftl;

int kv_map_init(struct kv_flash_map *m);
void kv_map_free(struct kv_flash_map *m);
void kv_map_clear(struct kv_flash_map *m);
uint32_t kv_map_find(const struct kv_flash_map *m, const struct ftl_kv_key *k);
/* A slot for a new key (its seg is KV_NONE until placed), or KV_NONE out of memory. */
uint32_t kv_map_insert(struct kv_flash_map *m, const struct ftl_kv_key *k);
void kv_map_remove(struct kv_flash_map *m, uint32_t i);

#endif
