/*
 * The key-value layer against a tiny reference (C arrays): 20,000 random Store (with
 * either option), Retrieve, Delete, Exist and List commands through the engine, which
 * admits half of them (the other half admitted first, as the device does); every status, size and tag as the reference says, List's keys in order,
 * the flash record key for key at checkpoints, compactions happening, ftl_check after.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/engine.h"
#include "flash/ftl_handle.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "ftl_test_util.h"

#define NKEYS 64
#define OPS 20000
#define CAPACITY 65536u
#define MAX_VALUE 4096u

struct ref {
    struct ftl_kv_key keys[NKEYS];
    bool present[NKEYS];
    uint32_t size[NKEYS];
    uint64_t tag[NKEYS];
    uint64_t live;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint32_t below(uint32_t n)
{
    return (uint32_t)(next_rand() % n);
}

/* Distinct keys of 1..16 bytes over a small alphabet, so prefixes are common. */
static void make_keys(struct ref *m)
{
    for (int i = 0; i < NKEYS; i++) {
        bool fresh;
        do {
            struct ftl_kv_key k = { .len = (uint8_t)(1 + below(FTL_KV_KEY_MAX)) };
            for (int j = 0; j < k.len; j++) {
                k.bytes[j] = (uint8_t)("ab\0z"[below(4)]);
            }
            fresh = true;
            for (int j = 0; j < i; j++) {
                fresh &= ftl_kv_key_cmp(&k, &m->keys[j]) != 0;
            }
            m->keys[i] = k;
        } while (!fresh);
    }
}

static int cmp_keys(const void *a, const void *b)
{
    return ftl_kv_key_cmp(a, b);
}

/* The reference's status for a Store. */
static int ref_store_status(const struct ref *m, int i, uint32_t size, unsigned opts)
{
    if (size > MAX_VALUE) {
        return FTL_E_KV_VALUE_SIZE;
    }
    if ((opts & FTL_KV_ONLY_IF_EXISTS) && !m->present[i]) {
        return FTL_E_KV_NO_KEY;
    }
    if ((opts & FTL_KV_ONLY_IF_ABSENT) && m->present[i]) {
        return FTL_E_KV_KEY_EXISTS;
    }
    if (m->live - (m->present[i] ? m->size[i] : 0) + size > CAPACITY) {
        return FTL_E_KV_CAPACITY;
    }
    return FTL_OK;
}

/* List from start, up to max keys: the reference's keys >= start in order. */
static void check_list(struct ftl *ftl, const struct ref *m, const struct ftl_kv_key *start,
                       uint32_t max, uint64_t *wrong)
{
    struct ftl_kv_key want[NKEYS], got[NKEYS];
    uint32_t n = 0, w = 0;
    for (int i = 0; i < NKEYS; i++) {
        if (m->present[i] && ftl_kv_key_cmp(&m->keys[i], start) >= 0) {
            want[w++] = m->keys[i];
        }
    }
    qsort(want, w, sizeof(want[0]), cmp_keys);
    w = w < max ? w : max;
    if (ftl_kv_admit_list(ftl, 1, start, got, max, &n) != FTL_OK || n != w) {
        (*wrong)++;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        *wrong += ftl_kv_key_cmp(&got[i], &want[i]) != 0;
    }
}

/* The flash record holds exactly the reference's keys, sizes and tags, and each
 * segment's live bytes are its records'. */
static void check_flash_record(struct ftl *ftl, const struct ref *m, uint64_t *wrong)
{
    struct kv_store *s = kv_store_of(ftl, 1);
    uint64_t keys = 0;
    for (int i = 0; i < NKEYS; i++) {
        uint32_t r = kv_map_find(&s->map, &m->keys[i]);
        if (m->present[i]) {
            keys++;
            *wrong += r == KV_NONE || s->map.recs[r].value_bytes != m->size[i] ||
                      s->map.recs[r].tag != m->tag[i] || s->map.recs[r].seg == KV_NONE;
        } else {
            *wrong += r != KV_NONE;
        }
    }
    *wrong += s->map.count != keys || s->map.value_bytes != m->live;
    for (uint32_t g = 0; g < s->log.nsegs; g++) {
        uint64_t bytes = 0;
        for (uint32_t r = s->log.segs[g].first; r != KV_NONE; r = s->map.recs[r].snext) {
            bytes += s->map.recs[r].rec_bytes;
            *wrong += s->map.recs[r].seg != g;
        }
        *wrong += bytes != s->log.segs[g].live_bytes;
    }
}

/* Admission as the device does it at fetch (odd operations): the engine then serves the
 * request as admitted. List's kv_bytes becomes the keys returned. */
static int admit_as_device(struct ftl *ftl, struct ftl_request *q)
{
    uint32_t n = 0;
    int rc;
    switch (q->op) {
    case FTL_OP_KV_STORE:
        rc = ftl_kv_admit_store(ftl, 1, &q->key, q->kv_bytes, q->flags, q->value_tag);
        break;
    case FTL_OP_KV_RETRIEVE:
        rc = ftl_kv_admit_retrieve(ftl, 1, &q->key, NULL, NULL);
        break;
    case FTL_OP_KV_DELETE:
        rc = ftl_kv_admit_delete(ftl, 1, &q->key);
        break;
    case FTL_OP_KV_EXIST:
        rc = ftl_kv_admit_exist(ftl, 1, &q->key);
        break;
    default:
        rc = ftl_kv_admit_list(ftl, 1, &q->key, NULL, q->kv_bytes, &n);
        q->kv_bytes = n ? n : q->kv_bytes;
        break;
    }
    q->flags |= FTL_REQ_ADMITTED;
    return rc;
}

static void test_randomized(void)
{
    struct ftl_config cfg = small_config(1, 2, 32, 16, 8);
    cfg.kv_segment_pages = 4;
    cfg.kv_max_value = MAX_VALUE;
    cfg.kv_index_cache_pages = 2;
    cfg.kv_max_keys = 300;      /* 3 index pages */
    struct ftl *ftl = make_ftl(&cfg);
    char err[256] = "";
    uint64_t sectors = ftl_kv_region_sectors(ftl, CAPACITY);
    if (!check_record(ftl_kv_create(ftl, 1, 64, sectors, CAPACITY, err, sizeof(err)) == 0,
                      __FILE__, __LINE__, "ftl_kv_create")) {
        fprintf(stderr, "    %s\n", err);
        ftl_destroy(ftl);
        return;
    }
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    static struct ref m;
    make_keys(&m);
    uint64_t wrong = 0, stores_ok = 0, now = 1000000;
    for (uint64_t op = 0; op < OPS; op++) {
        int i = (int)below(NKEYS);
        uint32_t roll = below(100);
        struct ftl_request q = { .arrival_ns = now += 20000, .nsid = 1, .key = m.keys[i] };
        int want = m.present[i] ? FTL_OK : FTL_E_KV_NO_KEY;
        if (roll < 45) {
            unsigned opts = below(10) == 0 ? FTL_KV_ONLY_IF_EXISTS
                            : below(9) == 0 ? FTL_KV_ONLY_IF_ABSENT : 0;
            q.op = FTL_OP_KV_STORE;
            q.kv_bytes = below(MAX_VALUE + 100);
            q.flags = opts;
            q.value_tag = op;
            want = ref_store_status(&m, i, q.kv_bytes, opts);
        } else if (roll < 70) {
            q.op = FTL_OP_KV_RETRIEVE;
            q.kv_bytes = below(MAX_VALUE + 100);
        } else if (roll < 80) {
            q.op = FTL_OP_KV_DELETE;
        } else if (roll < 90) {
            q.op = FTL_OP_KV_EXIST;
        } else {
            q.op = FTL_OP_KV_LIST;
            q.kv_bytes = 1 + below(10);
            if (below(2)) {     /* a start key that may not exist */
                q.key.bytes[q.key.len - 1] ^= 1;
            }
            want = FTL_OK;
        }
        int rc = op % 2 ? admit_as_device(ftl, &q) : FTL_OK;
        if (rc == FTL_OK) {
            rc = ftl_engine_serve(e, &q, NULL);
        }
        if (rc != want && wrong++ == 0) {
            fprintf(stderr, "    op %" PRIu64 ": status %d, the reference %d\n", op, rc, want);
        }
        if (rc != FTL_OK) {
            continue;
        }
        if (q.op == FTL_OP_KV_STORE) {
            m.live = m.live - (m.present[i] ? m.size[i] : 0) + q.kv_bytes;
            m.present[i] = true;
            m.size[i] = q.kv_bytes;
            m.tag[i] = q.value_tag;
            stores_ok++;
        } else if (q.op == FTL_OP_KV_DELETE) {
            m.live -= m.size[i];
            m.present[i] = false;
        } else if (q.op == FTL_OP_KV_RETRIEVE) {
            uint32_t size;
            uint64_t tag;
            wrong += ftl_kv_admit_retrieve(ftl, 1, &q.key, &size, &tag) != FTL_OK ||
                     size != m.size[i] || tag != m.tag[i];
        } else if (q.op == FTL_OP_KV_LIST) {
            check_list(ftl, &m, &q.key, q.kv_bytes, &wrong);
        }
        if (op % 1000 == 999) {
            check_flash_record(ftl, &m, &wrong);
        }
    }
    check_flash_record(ftl, &m, &wrong);
    CHECK_EQ_U64(wrong, 0);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.kv_stores, stores_ok);
    CHECK(c.kv_compactions > 10 && c.kv_compaction_pages > 0);
    CHECK(c.kv_index_misses > 0 && c.kv_index_page_writes > 0 && c.kv_index_page_reads > 0);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.kv_live_bytes, m.live);
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

int main(void)
{
    test_randomized();
    return check_summary();
}
