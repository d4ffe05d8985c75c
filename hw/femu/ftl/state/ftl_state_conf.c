/*
 * The CONF section: every configuration key as key=value, one a line, in ftl_config_key
 * order; a restore compares it key by key with the configuration of the FTL it fills.
 */

#include "state/ftl_state_section.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_keys.h"
#include "femu_ftl/error.h"
#include "femu_ftl/state.h"

#define CONF_MAX_BYTES (64u * 1024)
#define CONF_VALUE_LEN 128

/* ps_count and the power states' psN_* keys (config_keys_power.c): no state depends on
 * them (they time commands and weigh energy), and files older than them lack them. */
static bool is_power_key(const char *key)
{
    return strcmp(key, "ps_count") == 0 ||
           (strncmp(key, "ps", 2) == 0 && key[2] >= '0' && key[2] <= '9');
}

bool ftl_state_key_may_differ(const char *key)
{
    if (is_power_key(key)) {
        return true;
    }
    /*
     * No state depends on latencies or on the chance of a read failing, and the GC and
     * placement decisions below only read state every configuration keeps (valid counts,
     * close order, close times, write counts): an aged device can be compared under each.
     * The read-retry model only reads wear and block ages (read_retry_max sizes the
     * histogram a file keeps, so it must match). The read cache is kept by no file (a
     * restore starts it empty), nor is anything sized by the DRAM budget; buf_flush_mode
     * only times writes.
     */
    static const char *const keys[] = {
        "pg_rd_lat", "pg_wr_lat", "blk_er_lat", "ch_xfer_lat", "buf_wr_lat",
        "read_uncor_ppm", "gc_policy", "gc_dchoice_d", "gc_thres_pcent",
        "gc_thres_pcent_high", "hot_threshold", "gc_scope", "fdp_ru_time_limit_s",
        "slc_pg_rd_lat", "slc_pg_wr_lat", "slc_blk_er_lat", "read_retry_lat",
        "read_retry_pe_step", "read_retry_age_s", "plp", "plp_budget_pages",
        "read_cache_pages", "read_cache_policy", "read_cache_lat", "dram_mb",
        "buf_flush_mode",
    };
    /* nor on the link or the controller's cores (front/): they only time commands; nor
     * on the energy model's figures, which only price the work done */
    if (strncmp(key, "pcie_", strlen("pcie_")) == 0 ||
        strncmp(key, "ctrl_", strlen("ctrl_")) == 0 || config_key_is_energy(key)) {
        return true;
    }
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(key, keys[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* Keys newer than the state files of layout version 2: such a file may lack them when
 * this device runs without the SLC cache, which is what the older build modelled; the
 * read-retry keys always (its blocks' ages start at the restore). */
static bool key_may_be_missing(const struct ftl_config *cfg, const char *key)
{
    if (is_power_key(key)) {
        return true;
    }
    if (strncmp(key, "read_retry_", strlen("read_retry_")) == 0 ||
        strcmp(key, "plp") == 0 || strcmp(key, "plp_budget_pages") == 0) {
        return true;    /* newer still; they only decide what a power cut does */
    }
    if (strncmp(key, "read_cache_", strlen("read_cache_")) == 0 ||
        strcmp(key, "dram_mb") == 0 || strcmp(key, "buf_flush_mode") == 0) {
        return true;    /* newer still; no state depends on them */
    }
    if (strncmp(key, "kv_", strlen("kv_")) == 0) {
        return true;    /* newer still; older files hold no key-value store */
    }
    if (strncmp(key, "pcie_", strlen("pcie_")) == 0 ||
        strncmp(key, "ctrl_", strlen("ctrl_")) == 0) {
        return true;    /* newer still; they only time commands */
    }
    if (strncmp(key, "zrwa_", strlen("zrwa_")) == 0) {
        return true;    /* newer still (layout 9); older files hold no ZRWA */
    }
    if (config_key_is_energy(key)) {
        return true;    /* newer still; they only price the work done */
    }
    if (strcmp(key, "log_blocks") == 0) {
        return !ftl_mapping_is_hybrid(cfg->mapping);    /* newer than every hybrid map */
    }
    if (strcmp(key, "hot_decay") == 0) {
        return cfg->hot_decay == 0;     /* newer: older files classified by exact counts */
    }
    static const char *const keys[] = {
        "cell_bits", "slc_pg_rd_lat", "slc_pg_wr_lat", "slc_blk_er_lat", "slc_cache",
        "slc_static_units", "slc_dynamic_pcent", "slc_when_full",
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(key, keys[i]) == 0) {
            return !cfg->slc_cache;
        }
    }
    return false;
}

int ftl_state_save_conf(const struct ftl_config *cfg, struct state_writer *w, char *err,
                        size_t errlen)
{
    if (state_writer_begin(w, STATE_TAG_CONF)) {
        snprintf(err, errlen, "section CONF: write failed");
        return -1;
    }
    for (size_t i = 0; ftl_config_key(i); i++) {
        const char *key = ftl_config_key(i);
        char value[CONF_VALUE_LEN], line[CONF_VALUE_LEN + 64];
        ftl_config_get(cfg, key, value, sizeof(value));
        int n = snprintf(line, sizeof(line), "%s=%s\n", key, value);
        state_writer_append(w, line, (uint64_t)n);
    }
    if (state_writer_end(w)) {
        snprintf(err, errlen, "section CONF: write failed");
        return -1;
    }
    return 0;
}

size_t ftl_state_conf_limits(struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_CONF, CONF_MAX_BYTES };
    return 1;
}

/* The CONF text, NUL-terminated; NULL with a reason. */
static char *conf_text(struct state_reader *r, char *err, size_t errlen)
{
    const char *path = state_reader_path(r);
    uint64_t len = 0;
    if (!state_reader_has(r, STATE_TAG_CONF, &len)) {
        snprintf(err, errlen, "%s: no CONF section (not an FTL state)", path);
        return NULL;
    }
    if (len > CONF_MAX_BYTES) {
        snprintf(err, errlen, "%s: section CONF: %llu bytes, more than a configuration",
                 path, (unsigned long long)len);
        return NULL;
    }
    char *text = malloc((size_t)len + 1);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (state_reader_seek(r, STATE_TAG_CONF, err, errlen) ||
        state_reader_read(r, text, len, err, errlen)) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        snprintf(err, errlen, "%s: section CONF: a NUL byte in the text", path);
        free(text);
        return NULL;
    }
    return text;
}

/* Index of key among this build's keys, or -1. */
static long key_index(const char *key)
{
    for (size_t i = 0; ftl_config_key(i); i++) {
        if (strcmp(ftl_config_key(i), key) == 0) {
            return (long)i;
        }
    }
    return -1;
}

int ftl_state_check_config(struct state_reader *r, const struct ftl_config *cfg,
                           char *err, size_t errlen)
{
    const char *path = state_reader_path(r);
    char *text = conf_text(r, err, errlen);
    if (!text) {
        return -1;
    }
    size_t nkeys = 0;
    while (ftl_config_key(nkeys)) {
        nkeys++;
    }
    bool *seen = calloc(nkeys ? nkeys : 1, sizeof(bool));
    int rc = seen ? 0 : -1;
    if (!seen) {
        snprintf(err, errlen, "%s: out of memory", path);
    }
    unsigned lineno = 0;
    for (char *line = text, *next; rc == 0 && *line; line = next) {
        char *end = strchr(line, '\n');
        next = end ? end + 1 : line + strlen(line);
        if (end) {
            *end = '\0';
        }
        lineno++;
        char *eq = strchr(line, '=');
        if (!eq) {
            snprintf(err, errlen, "%s: section CONF: line %u is not key=value", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        long k = key_index(line);
        if (k < 0) {
            snprintf(err, errlen, "%s: recorded with %.64s, a key this build does not know",
                     path, line);
            rc = -1;
        } else if (seen[k]) {
            snprintf(err, errlen, "%s: section CONF: %s given twice", path, line);
            rc = -1;
        } else {
            char mine[CONF_VALUE_LEN];
            seen[k] = true;
            ftl_config_get(cfg, line, mine, sizeof(mine));
            if (strcmp(mine, eq + 1) != 0 && !ftl_state_key_may_differ(line)) {
                snprintf(err, errlen, "%s: recorded with %s=%.64s, this device has %s=%s",
                         path, line, eq + 1, line, mine);
                rc = -1;
            }
        }
    }
    for (size_t i = 0; rc == 0 && i < nkeys; i++) {
        if (!seen[i] && !key_may_be_missing(cfg, ftl_config_key(i))) {
            snprintf(err, errlen, "%s: recorded without %s (another build's state)", path,
                     ftl_config_key(i));
            rc = -1;
        }
    }
    free(seen);
    free(text);
    return rc;
}
