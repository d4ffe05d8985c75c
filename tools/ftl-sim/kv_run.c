/* ftl-sim --kv's part of a run (kv_run.h). */
#include "kv_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_keys.h"

#define DUMP_BATCH 1024u

/* The store over every conventional sector, unless a restored state brought one. */
static int open_store(struct kv_run *k, struct ftl *ftl, char *err, size_t errlen)
{
    if (!ftl_kv_info(ftl, KV_NSID, NULL)) {
        const struct ftl_geometry *g = ftl_geometry_of(ftl);
        uint64_t sectors = g->logical_pages * (g->page_bytes / ftl_config_of(ftl)->secsz);
        uint64_t capacity = ftl_kv_capacity(ftl, sectors);
        if (capacity == 0) {
            snprintf(err, errlen, "--kv: the device's %llu sectors hold no key-value store "
                     "(too small for its index and over-provisioning)",
                     (unsigned long long)sectors);
            return -1;
        }
        if (ftl_kv_create(ftl, KV_NSID, 0, sectors, capacity, err, errlen)) {
            return -1;
        }
        k->made = true;
    }
    ftl_kv_info(ftl, KV_NSID, &k->info);
    return 0;
}

int kv_run_open(struct kv_run *k, const struct options *o, struct ftl *ftl, char *err,
                size_t errlen)
{
    memset(k, 0, sizeof(*k));
    k->spec = &o->kv;
    if (open_store(k, ftl, err, errlen)) {
        return -1;
    }
    k->load_stats = calloc(1, sizeof(*k->load_stats));
    k->stats = calloc(1, sizeof(*k->stats));
    if (!k->load_stats || !k->stats) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    k->gen = kv_gen_create(&o->kv, o->workload.seed, k->info.max_value_bytes, err, errlen);
    if (!k->gen) {
        return -1;
    }
    k->account = kv_account_create(ftl, o->kv.log, err, errlen);
    if (!k->account) {
        return -1;
    }
    kv_account_phase(k->account, k->stats);
    kv_gen_start(k->gen, false);
    return 0;
}

int kv_run_load(struct kv_run *k, struct sim_run *run, struct workload *w, unsigned qd,
                uint64_t *now_ns, char *err, size_t errlen)
{
    int rc = 0;
    if (k->made) {
        /* made before the engine existed: recorded now, so a replay makes it too */
        struct ftl_request create = {
            .op = FTL_OP_KV_CREATE, .arrival_ns = *now_ns, .nsid = KV_NSID,
            .flags = FTL_REQ_ADMITTED, .slba = k->info.base_sector, .nlb = k->info.sectors,
            .kv_capacity = k->info.capacity_bytes,
        };
        rc = ftl_engine_serve(run->engine, &create, NULL);
        if (rc != FTL_OK) {
            snprintf(err, errlen, "--kv: recording the store failed: %s", ftl_status_str(rc));
            return -1;
        }
    }
    if (!k->spec->ops_file && k->spec->keys > 0) {
        k->load = malloc(sizeof(*k->load));
        if (!k->load) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        kv_account_phase(k->account, k->load_stats);
        kv_gen_start(k->gen, true);
        struct sim_limits limits = { 0 };
        rc = sim_run_mark(run, *now_ns, "load", err, errlen);
        rc = rc ? rc : sim_run_phase(run, w, qd, &limits, now_ns, k->load, err, errlen);
    }
    kv_account_phase(k->account, k->stats);
    kv_gen_start(k->gen, false);
    return rc;
}

/* Every key in key order with its size and tag: lists from the smallest key on. */
static int dump(const struct ftl *ftl, FILE *f)
{
    struct ftl_kv_key *keys = calloc(DUMP_BATCH, sizeof(*keys));
    struct ftl_kv_key start = { .len = 1 };     /* the smallest key: one byte 00 */
    bool skip_start = false;
    uint32_t n = DUMP_BATCH;
    char hex[KV_KEY_HEX_MAX];
    if (!keys) {
        return -1;
    }
    while (n == DUMP_BATCH) {
        n = 0;
        ftl_kv_admit_list(ftl, KV_NSID, &start, keys, DUMP_BATCH, &n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t bytes = 0;
            uint64_t tag = 0;
            if (skip_start && i == 0 && ftl_kv_key_cmp(&keys[0], &start) == 0) {
                continue;
            }
            ftl_kv_admit_retrieve(ftl, KV_NSID, &keys[i], &bytes, &tag);
            kv_key_to_hex(&keys[i], hex);
            fprintf(f, "%s %u %llu\n", hex, bytes, (unsigned long long)tag);
        }
        if (n > 0) {
            start = keys[n - 1];
            skip_start = true;
        }
    }
    free(keys);
    return ferror(f) ? -1 : 0;
}

int kv_run_finish(struct kv_run *k, const struct ftl *ftl, char *err, size_t errlen)
{
    int rc = kv_account_close(k->account, err, errlen);
    k->account = NULL;
    if (rc || !k->spec->dump) {
        return rc;
    }
    FILE *f = fopen(k->spec->dump, "w");
    if (!f) {
        snprintf(err, errlen, "--kv-dump %s: cannot create: %s", k->spec->dump,
                 strerror(errno));
        return -1;
    }
    rc = dump(ftl, f);
    if (fclose(f) || rc) {
        snprintf(err, errlen, "--kv-dump %s: write failed", k->spec->dump);
        return -1;
    }
    return 0;
}

void kv_run_free(struct kv_run *k)
{
    char err[256];
    kv_account_close(k->account, err, sizeof(err));
    kv_gen_destroy(k->gen);
    free(k->load_stats);
    free(k->stats);
    free(k->load);
    memset(k, 0, sizeof(*k));
}
