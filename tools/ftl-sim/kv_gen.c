/* ftl-sim --kv's request generator (kv_gen.h). */
#include "kv_gen.h"

#include <stdio.h>
#include <stdlib.h>

#include "dist.h"
#include "kv_keys.h"
#include "kv_ops_file.h"
#include "rng.h"
#include "workload.h"

struct kv_gen {
    struct kv_spec spec;
    enum kv_dist dist_kind;
    struct rng rng;
    uint32_t buffer_bytes;
    struct kv_ops file;         /* --kv-ops-file (n 0: a mix) */
    bool load;
    uint64_t next_number;       /* the next request's number (its tag), from 1 */
    uint64_t keys;              /* keys inserted so far: key numbers [0, keys) */
    uint64_t issued;            /* this phase's operations (an rmw is one) */
    bool rmw_pending;           /* the Store half of an rmw comes next ... */
    uint64_t rmw_key;           /* ... on this key */
    struct dist *zipf;          /* zipfian ranks over zipf_items keys */
    uint64_t zipf_items;
};

/* Percent of operations per kind, YCSB's core workloads (kv_gen.h). */
static const unsigned char mix_shares[KV_MIX_F + 1][KV_KIND_RMW + 1] = {
    [KV_MIX_A] = { [KV_KIND_READ] = 50, [KV_KIND_UPDATE] = 50 },
    [KV_MIX_B] = { [KV_KIND_READ] = 95, [KV_KIND_UPDATE] = 5 },
    [KV_MIX_C] = { [KV_KIND_READ] = 100 },
    [KV_MIX_D] = { [KV_KIND_READ] = 95, [KV_KIND_INSERT] = 5 },
    [KV_MIX_E] = { [KV_KIND_SCAN] = 95, [KV_KIND_INSERT] = 5 },
    [KV_MIX_F] = { [KV_KIND_READ] = 50, [KV_KIND_RMW] = 50 },
};

struct kv_gen *kv_gen_create(const struct kv_spec *spec, uint64_t seed, uint32_t buffer_bytes,
                             char *err, size_t errlen)
{
    struct kv_gen *g = calloc(1, sizeof(*g));
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->spec = *spec;
    g->dist_kind = spec->dist_set ? spec->dist
                   : spec->mix == KV_MIX_D ? KV_DIST_LATEST : KV_DIST_ZIPFIAN;
    rng_seed(&g->rng, seed);
    g->buffer_bytes = buffer_bytes;
    g->next_number = 1;
    if (spec->ops_file && kv_ops_file_read(spec->ops_file, &g->file, err, errlen)) {
        free(g);
        return NULL;
    }
    return g;
}

void kv_gen_start(struct kv_gen *g, bool load)
{
    g->load = load;
    g->issued = 0;
}

enum kv_dist kv_gen_dist(const struct kv_gen *g)
{
    return g->dist_kind;
}

/* A zipfian popularity rank (0 hottest) over the keys inserted so far. */
static uint64_t zipf_rank(struct kv_gen *g, bool scattered)
{
    if (!g->zipf || g->zipf_items != g->keys) {
        struct dist_spec spec = { .kind = DIST_ZIPF, .param = KV_ZIPF_THETA, .center = -1 };
        struct dist *d = dist_create(&spec, g->keys, NULL, 0);
        if (d) {    /* keys > 0 and within DIST_MAX_ITEMS: always, as created */
            dist_destroy(g->zipf);
            g->zipf = d;
            g->zipf_items = g->keys;
        }
    }
    return scattered ? dist_next(g->zipf, &g->rng) : dist_next_raw(g->zipf, &g->rng);
}

/* The key number of a read, update, scan or rmw. */
static uint64_t choose_key(struct kv_gen *g)
{
    switch (g->dist_kind) {
    case KV_DIST_UNIFORM:
        return rng_below(&g->rng, g->keys);
    case KV_DIST_ZIPFIAN:
        return zipf_rank(g, true);
    default:
        return g->keys - 1 - zipf_rank(g, false);
    }
}

static uint32_t value_size(struct kv_gen *g)
{
    uint64_t span = g->spec.value_max - g->spec.value_min;
    return (uint32_t)(g->spec.value_min + (span ? rng_below(&g->rng, span + 1) : 0));
}

/* A request on key number n (or, for the file, the operation's own key). */
static void fill(struct kv_gen *g, struct request *req, enum ftl_op op, uint64_t n,
                 uint32_t kv_bytes, enum kv_kind kind)
{
    *req = (struct request){ .kv_kind = kind,
                             .ftl = { .op = op, .nsid = KV_NSID, .kv_bytes = kv_bytes } };
    kv_key_of_number(n, &req->ftl.key);
    req->ftl.value_tag = op == FTL_OP_KV_STORE ? g->next_number : 0;
    g->next_number++;
}

static int next_from_file(struct kv_gen *g, struct request *req)
{
    if (g->issued == g->file.n) {
        return 0;
    }
    const struct kv_op *op = &g->file.ops[g->issued++];
    fill(g, req, op->op, 0, op->arg, KV_KIND_FILE);
    req->ftl.key = op->key;
    req->ftl.flags = op->flags;
    if (op->op == FTL_OP_KV_RETRIEVE) {
        req->ftl.kv_bytes = g->buffer_bytes;
    }
    return 1;
}

/* The mix's next kind, drawn by its shares. */
static enum kv_kind draw_kind(struct kv_gen *g)
{
    unsigned pick = (unsigned)rng_below(&g->rng, 100), sum = 0;
    for (int k = 0; k <= KV_KIND_RMW; k++) {
        sum += mix_shares[g->spec.mix][k];
        if (pick < sum) {
            return (enum kv_kind)k;
        }
    }
    return KV_KIND_READ;
}

int kv_gen_next(struct kv_gen *g, struct request *req)
{
    if (g->spec.ops_file) {
        return next_from_file(g, req);
    }
    if (g->load) {
        if (g->issued == g->spec.keys) {
            return 0;
        }
        g->issued++;
        fill(g, req, FTL_OP_KV_STORE, g->keys++, value_size(g), KV_KIND_LOAD);
        return 1;
    }
    if (g->rmw_pending) {
        g->rmw_pending = false;
        fill(g, req, FTL_OP_KV_STORE, g->rmw_key, value_size(g), KV_KIND_RMW_STORE);
        return 1;
    }
    if (g->issued == g->spec.ops) {
        return 0;
    }
    g->issued++;
    enum kv_kind kind = draw_kind(g);
    switch (kind) {
    case KV_KIND_INSERT:
        fill(g, req, FTL_OP_KV_STORE, g->keys++, value_size(g), kind);
        break;
    case KV_KIND_UPDATE:
        fill(g, req, FTL_OP_KV_STORE, choose_key(g), value_size(g), kind);
        break;
    case KV_KIND_SCAN: {
        uint64_t start = choose_key(g);
        fill(g, req, FTL_OP_KV_LIST, start, 1 + (uint32_t)rng_below(&g->rng, KV_SCAN_MAX),
             kind);
        break;
    }
    case KV_KIND_RMW:
        g->rmw_key = choose_key(g);
        g->rmw_pending = true;
        fill(g, req, FTL_OP_KV_RETRIEVE, g->rmw_key, g->buffer_bytes, kind);
        break;
    default:
        fill(g, req, FTL_OP_KV_RETRIEVE, choose_key(g), g->buffer_bytes, kind);
        break;
    }
    return 1;
}

void kv_gen_destroy(struct kv_gen *g)
{
    if (g) {
        dist_destroy(g->zipf);
        kv_ops_free(&g->file);
        free(g);
    }
}
