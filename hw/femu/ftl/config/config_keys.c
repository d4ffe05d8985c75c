/* The one key table, assembled from each concern's group: this list's order is the order
 * of --help, the docs and ftl_config_key. */
#include "config/config_keys.h"

#include <string.h>

static const struct config_key_group *const groups[] = {
    &config_flash_keys,
    &config_gc_keys,
    &config_placement_keys,
    &config_fdp_keys,
    &config_fault_keys,
    &config_read_retry_keys,
    &config_mapping_keys,
    &config_wbuf_keys,
    &config_rcache_keys,
    &config_zns_keys,
    &config_slc_keys,
    &config_kv_keys,
    &config_power_keys,
    &config_front_keys,
    &config_energy_keys,
};

#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

size_t config_key_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NGROUPS; i++) {
        n += groups[i]->count;
    }
    return n;
}

const struct config_key *config_key_at(size_t index)
{
    for (size_t i = 0; i < NGROUPS; i++) {
        if (index < groups[i]->count) {
            return &groups[i]->keys[index];
        }
        index -= groups[i]->count;
    }
    return NULL;
}

const struct config_key *config_key_find(const char *name)
{
    for (size_t i = 0; i < NGROUPS; i++) {
        for (size_t j = 0; j < groups[i]->count; j++) {
            const struct config_key *k = &groups[i]->keys[j];
            if (strcmp(k->name, name) == 0 || (k->alias && strcmp(k->alias, name) == 0)) {
                return k;
            }
        }
    }
    return NULL;
}

const char *ftl_config_key(size_t index)
{
    const struct config_key *k = config_key_at(index);
    return k ? k->name : NULL;
}

const char *ftl_config_key_help(const char *key)
{
    const struct config_key *k = config_key_find(key);
    return k ? k->help : NULL;
}
