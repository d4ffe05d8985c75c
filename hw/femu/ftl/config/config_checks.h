/* The configuration's cross-checks and derived geometry, by concern: each is defined beside
 * its keys (config_keys_*.c); ftl_config.c and config_layout.c run them in one fixed order,
 * so the first refused key, and its message, never depend on where a check lives. */
#ifndef FTL_CONFIG_CONFIG_CHECKS_H
#define FTL_CONFIG_CONFIG_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/config.h"

static inline bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* Checks between keys of one concern, after every key's own range (check_ranges). */
int config_check_flash(const struct ftl_config *cfg, char *err, size_t errlen);
int config_check_read_retry(const struct ftl_config *cfg, char *err, size_t errlen);
int config_check_placement(const struct ftl_config *cfg, char *err, size_t errlen);
int config_check_gc(const struct ftl_config *cfg, char *err, size_t errlen);
int config_check_power(const struct ftl_config *cfg, char *err, size_t errlen);
/* A new ps_count drops the states at or past it (a later source shortening a table). */
void config_power_drop_past_count(struct ftl_config *cfg);
int config_check_front(const struct ftl_config *cfg, char *err, size_t errlen);
int config_check_energy(const struct ftl_config *cfg, char *err, size_t errlen);

/* The layout (config_layout.c) and the parts of it each concern derives. */
int config_derive_layout(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen);
int config_derive_zones(const struct ftl_config *cfg, struct ftl_geometry *g,
                        char *err, size_t errlen);
int config_derive_write_pointers(const struct ftl_config *cfg, struct ftl_geometry *g,
                                 char *err, size_t errlen);
int config_fdp_write_pointers(const struct ftl_config *cfg, struct ftl_geometry *g,
                              char *err, size_t errlen);
int config_derive_gc_units(const struct ftl_config *cfg, struct ftl_geometry *g,
                           char *err, size_t errlen);
int config_derive_slc(const struct ftl_config *cfg, struct ftl_geometry *g,
                      char *err, size_t errlen);

/* The logical pages that fit `good` pages beside the GC reserve (config_reserve.c). */
uint64_t config_max_logical_pages(const struct ftl_geometry *g, uint64_t good);

/* Capacity: the raw size and the over-provisioning (config_layout.c), and the SLC
 * cache's share of the blame (config_keys_slc.c). */
int config_check_capacity(const struct ftl_config *cfg, const struct ftl_geometry *g,
                          char *err, size_t errlen);
int config_check_slc_room(const struct ftl_config *cfg, const struct ftl_geometry *g,
                          char *err, size_t errlen);

/* Checks on the finished geometry. */
int config_check_mapping(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen);
/* Hybrid mappings (config_keys_mapping.c): the good blocks they need (a data block per
 * logical block, the log blocks, one spare a merge fills before it erases), and the check
 * that good_units has them, again at creation once the bad blocks are drawn. */
uint64_t config_hybrid_units_needed(const struct ftl_config *cfg, uint64_t logical_pages);
int config_check_hybrid_room(const struct ftl_config *cfg, uint64_t logical_pages,
                             uint64_t good_units, char *err, size_t errlen);
int config_check_write_buffer(const struct ftl_config *cfg, const struct ftl_geometry *g,
                              char *err, size_t errlen);
int config_check_fdp(const struct ftl_config *cfg, const struct ftl_geometry *g,
                     char *err, size_t errlen);
int config_check_read_cache(const struct ftl_config *cfg, const struct ftl_geometry *g,
                            char *err, size_t errlen);
/* Key-value stores (config_keys_kv.c): the value log's segment (kv_segment_pages, or
 * derived), and its check. */
uint64_t config_kv_segment_pages(const struct ftl_config *cfg, const struct ftl_geometry *g);
int config_check_kv(const struct ftl_config *cfg, const struct ftl_geometry *g,
                    char *err, size_t errlen);

/* Bytes of mapping state the modelled SSD keeps in its DRAM (ftl_device_map_bytes, and
 * the DRAM budget's check), from the finished geometry. */
uint64_t config_device_map_bytes(const struct ftl_config *cfg, const struct ftl_geometry *g);
/* The DRAM key-value stores' index caches of cache_pages pages in all take: map state
 * too, counted against dram_mb when a store is created (config_check_kv_dram). */
uint64_t config_kv_index_cache_bytes(const struct ftl_geometry *g, uint64_t cache_pages);
int config_check_kv_dram(const struct ftl_config *cfg, const struct ftl_geometry *g,
                         uint64_t cache_pages, char *err, size_t errlen);

#endif
