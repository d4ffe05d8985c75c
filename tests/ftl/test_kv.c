/*
 * The FTL's key-value stores (femu_ftl/kv.h, hw/femu/ftl/kv/) against hand-computed
 * cases: region sizing, every admission status (and nothing changed after one), List's
 * order, values packing into pages and spanning them, the index cache's hits, misses and
 * dirty evictions, compaction's victims and the pages it moves, completion times from the
 * NAND latencies. The randomized run against an in-test reference is test_kv_random.c.
 */
#include <inttypes.h>
#include <string.h>

#include "femu_ftl/engine.h"
#include "flash/ftl_handle.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "ftl_test_util.h"

#define R_LAT 40000ull
#define P_LAT 200000ull
#define LATER 1000000000000ull  /* when every earlier operation has ended */
#define PAGE 4096ull

/* 1 channel x 2 LUNs x 32 blocks of 16 4-KiB pages; segments of 4 pages (16 KiB). */
static struct ftl_config kv_config(uint64_t cache_pages, uint64_t max_keys)
{
    struct ftl_config cfg = small_config(1, 2, 32, 16, 8);
    cfg.pg_rd_lat = R_LAT;
    cfg.pg_wr_lat = P_LAT;
    cfg.kv_segment_pages = 4;
    cfg.kv_max_value = 8192;
    cfg.kv_index_cache_pages = cache_pages;
    cfg.kv_max_keys = max_keys;
    return cfg;
}

struct rig {
    struct ftl *ftl;
    struct ftl_engine *engine;
};

static struct rig rig_open(const struct ftl_config *cfg, uint64_t capacity)
{
    struct rig r = { .ftl = make_ftl(cfg) };
    char err[256] = "";
    uint64_t sectors = ftl_kv_region_sectors(r.ftl, capacity);
    CHECK(sectors > 0);
    if (!check_record(ftl_kv_create(r.ftl, 1, 0, sectors, capacity, err, sizeof(err)) == 0,
                      __FILE__, __LINE__, "ftl_kv_create")) {
        fprintf(stderr, "    %s\n", err);
        exit(1);
    }
    r.engine = ftl_engine_create(r.ftl, NULL, NULL);
    return r;
}

static void rig_close(struct rig *r)
{
    ftl_engine_destroy(r->engine);
    ftl_destroy(r->ftl);
}

static struct ftl_kv_key key_of(const char *s)
{
    struct ftl_kv_key k = { .len = (uint8_t)strlen(s) };
    memcpy(k.bytes, s, k.len);
    return k;
}

/* One KV request through the engine (admitted there); its completion in *done. */
static int kv_op(struct rig *r, enum ftl_op op, uint64_t now, const char *key, uint32_t bytes,
                 unsigned flags, uint64_t tag, uint64_t *done)
{
    struct ftl_request q = { .op = op, .arrival_ns = now, .nsid = 1, .key = key_of(key),
                             .kv_bytes = bytes, .flags = flags, .value_tag = tag };
    struct ftl_served s;
    int rc = ftl_engine_serve(r->engine, &q, &s);
    if (done) {
        *done = s.done_ns;
    }
    return rc;
}

static void test_region_sizing(void)
{
    struct ftl_config cfg = kv_config(2, 0);
    struct ftl *ftl = make_ftl(&cfg);
    /* 64 KiB: max_keys 64 < 128 entries a page, so 128 keys (one page's worth) and 1 index
     * page; the live records' worst case 65536 + 128 x (8 + 16) = 68608 bytes, x 1.10 =
     * 75468; a 16 KiB segment is sure of 16384 - (8 + 16 + 8192 - 1) = 8169 bytes of
     * records, so 10 segments, + 2 of slack + the head: 13 x 4 = 52 pages; 53 x 8 sectors */
    CHECK_EQ_U64(ftl_kv_region_sectors(ftl, 65536), 53 * 8);
    CHECK(ftl_kv_capacity(ftl, 53 * 8) >= 65536);
    CHECK(ftl_kv_capacity(ftl, 53 * 8 - 8) < 65536);
    CHECK(ftl_kv_region_sectors(ftl, ftl_kv_capacity(ftl, 53 * 8)) <= 53 * 8);
    CHECK_EQ_U64(ftl_kv_region_sectors(ftl, 0), 0);
    CHECK_EQ_U64(ftl_kv_region_sectors(ftl, UINT64_MAX), 0);
    CHECK_EQ_U64(ftl_kv_region_sectors(ftl, 1ull << 40), 0);   /* more than the device */
    /* inverse: capacity(region(c)) >= c, region(capacity(s)) <= s */
    uint64_t bad = 0;
    for (uint64_t c = 1; c < 2000000; c = c * 3 / 2 + 7) {
        uint64_t sec = ftl_kv_region_sectors(ftl, c);
        bad += sec != 0 && (sec % 8 != 0 || ftl_kv_capacity(ftl, sec) < c);
    }
    for (uint64_t sec = 8; sec < 4000; sec += 40) {
        uint64_t cap = ftl_kv_capacity(ftl, sec);
        bad += cap != 0 && ftl_kv_region_sectors(ftl, cap) > sec;
    }
    CHECK_EQ_U64(bad, 0);
    ftl_destroy(ftl);
    /* kv_max_keys 300: 3 index pages (128 a page); records 65536 + 300 x 24 = 72736,
     * x 1.10 = 80009 bytes: 10 segments of sure room, 13 with slack and head: 55 pages */
    cfg = kv_config(2, 300);
    ftl = make_ftl(&cfg);
    CHECK_EQ_U64(ftl_kv_region_sectors(ftl, 65536), 55 * 8);
    char err[256] = "";
    size_t host = ftl_metadata_bytes(ftl);
    CHECK(ftl_kv_create(ftl, 1, 8, 55 * 8, 65536, err, sizeof(err)) == 0);
    CHECK(ftl_metadata_bytes(ftl) > host);      /* the store's tables are host memory */
    CHECK(ftl_kv_create(ftl, 1, 448, 55 * 8, 65536, err, sizeof(err)) == -1);  /* nsid */
    CHECK(ftl_kv_create(ftl, 2, 16, 55 * 8, 65536, err, sizeof(err)) == -1);   /* overlap */
    CHECK(ftl_kv_create(ftl, 2, 452, 55 * 8, 65536, err, sizeof(err)) == -1);  /* unaligned */
    CHECK(ftl_kv_create(ftl, 2, 448, 54 * 8, 65536, err, sizeof(err)) == -1);  /* too small */
    CHECK(ftl_kv_create(ftl, 2, 448, 55 * 8, 65536, err, sizeof(err)) == 0);
    struct ftl_kv_info info;
    CHECK(ftl_kv_info(ftl, 1, &info) && info.max_keys == 300 && info.base_sector == 8 &&
          info.capacity_bytes == 65536 && info.max_value_bytes == 8192);
    ftl_kv_destroy(ftl, 1);
    CHECK(!ftl_kv_info(ftl, 1, NULL) && ftl_kv_info(ftl, 2, NULL));
    ftl_destroy(ftl);
    /* read_uncor_ppm: refused, one line naming it */
    cfg = kv_config(2, 0);
    cfg.read_uncor_ppm = 10;
    ftl = make_ftl(&cfg);
    CHECK(ftl_kv_create(ftl, 1, 0, 53 * 8, 65536, err, sizeof(err)) == -1 &&
          strncmp(err, "read_uncor_ppm:", 15) == 0);
    ftl_destroy(ftl);
    /* a cache larger than the device, a largest value beyond a segment: one line each */
    cfg = kv_config(100000, 0);
    ftl = make_ftl(&cfg);
    CHECK(ftl_kv_create(ftl, 1, 0, 53 * 8, 65536, err, sizeof(err)) == -1 &&
          strncmp(err, "kv_index_cache_pages:", 21) == 0);
    ftl_destroy(ftl);
    cfg = kv_config(2, 0);
    cfg.kv_max_value = 16384 - 23;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == -1 &&
          strncmp(err, "kv_max_value:", 13) == 0);
    cfg.kv_max_value = 16384 - 24;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    CHECK(ftl_config_set(&cfg, "kv_op_pct", "0", err, sizeof(err)) == -1 &&
          strncmp(err, "kv_op_pct:", 10) == 0);
    cfg.kv_segment_pages = 1;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == -1 &&
          strncmp(err, "kv_segment_pages:", 17) == 0);
    /* the default segment: a block's pages times the blocks a 1 MiB record needs */
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
}

/* The store's figures as a tuple to compare before and after a refused command. */
static bool same_info(struct ftl *ftl, const struct ftl_kv_info *before)
{
    struct ftl_kv_info now;
    return ftl_kv_info(ftl, 1, &now) && now.keys == before->keys &&
           now.used_bytes == before->used_bytes;
}

static void test_admission_statuses(void)
{
    struct ftl_config cfg = kv_config(2, 3);
    struct ftl *ftl = make_ftl(&cfg);
    char err[256];
    CHECK(ftl_kv_create(ftl, 1, 0, ftl_kv_region_sectors(ftl, 20000), 20000, err,
                        sizeof(err)) == 0);
    struct ftl_kv_key a = key_of("a"), b = key_of("b"), c = key_of("c"), d = key_of("d");
    struct ftl_kv_key empty = { .len = 0 }, big = { .len = 17 };
    uint32_t size;
    uint64_t tag;
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 100, FTL_KV_ONLY_IF_EXISTS, 1),
                 (uint64_t)FTL_E_KV_NO_KEY);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 100, FTL_KV_ONLY_IF_ABSENT, 1), FTL_OK);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 200, FTL_KV_ONLY_IF_ABSENT, 2),
                 (uint64_t)FTL_E_KV_KEY_EXISTS);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 300, FTL_KV_ONLY_IF_EXISTS, 3), FTL_OK);
    struct ftl_kv_info before;
    CHECK(ftl_kv_info(ftl, 1, &before) && before.keys == 1 && before.used_bytes == 300);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &b, 8193, 0, 4), (uint64_t)FTL_E_KV_VALUE_SIZE);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &empty, 1, 0, 4), (uint64_t)FTL_E_KV_KEY_SIZE);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &big, 1, 0, 4), (uint64_t)FTL_E_KV_KEY_SIZE);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 2, &b, 1, 0, 4), (uint64_t)FTL_E_INVAL);
    /* the value's size is checked before the capacity */
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &b, 19701, 0, 4), (uint64_t)FTL_E_KV_VALUE_SIZE);
    CHECK(same_info(ftl, &before));
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &b, 8000, 0, 5), FTL_OK);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &c, 8000, 0, 6), FTL_OK);
    CHECK(ftl_kv_info(ftl, 1, &before) && before.used_bytes == 16300);
    /* 20000 bytes: a's own 300 are replaced, not added; 4001 is one too many */
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 4001, 0, 7), (uint64_t)FTL_E_KV_CAPACITY);
    CHECK(ftl_kv_admit_retrieve(ftl, 1, &a, &size, &tag) == FTL_OK && size == 300 && tag == 3);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 4000, 0, 7), FTL_OK);    /* exactly full */
    CHECK(ftl_kv_info(ftl, 1, &before) && before.used_bytes == 20000 && before.keys == 3);
    /* kv_max_keys 3: a fourth key is refused even with bytes to spare */
    CHECK_EQ_U64(ftl_kv_admit_delete(ftl, 1, &a), FTL_OK);
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &a, 1, 0, 8), FTL_OK);
    CHECK(ftl_kv_info(ftl, 1, &before));
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &d, 1, 0, 9), (uint64_t)FTL_E_KV_CAPACITY);
    CHECK(same_info(ftl, &before));
    /* retrieve, exist, delete */
    CHECK_EQ_U64(ftl_kv_admit_retrieve(ftl, 1, &a, &size, &tag), FTL_OK);
    CHECK(size == 1 && tag == 8);
    CHECK_EQ_U64(ftl_kv_admit_retrieve(ftl, 1, &d, &size, &tag), (uint64_t)FTL_E_KV_NO_KEY);
    CHECK_EQ_U64(ftl_kv_admit_retrieve(ftl, 1, &big, &size, &tag),
                 (uint64_t)FTL_E_KV_KEY_SIZE);
    CHECK_EQ_U64(ftl_kv_admit_exist(ftl, 1, &b), FTL_OK);
    CHECK_EQ_U64(ftl_kv_admit_exist(ftl, 1, &d), (uint64_t)FTL_E_KV_NO_KEY);
    CHECK_EQ_U64(ftl_kv_admit_exist(ftl, 1, &empty), (uint64_t)FTL_E_KV_KEY_SIZE);
    CHECK_EQ_U64(ftl_kv_admit_delete(ftl, 1, &d), (uint64_t)FTL_E_KV_NO_KEY);
    CHECK_EQ_U64(ftl_kv_admit_delete(ftl, 1, &big), (uint64_t)FTL_E_KV_KEY_SIZE);
    CHECK_EQ_U64(ftl_kv_admit_exist(ftl, 2, &a), (uint64_t)FTL_E_INVAL);
    CHECK(same_info(ftl, &before));
    uint32_t n = 9;
    CHECK_EQ_U64(ftl_kv_admit_list(ftl, 1, &empty, NULL, 4, &n), (uint64_t)FTL_E_KV_KEY_SIZE);
    CHECK_EQ_U64(n, 0);
    /* clear: every key gone from admission */
    ftl_kv_clear(ftl, 1);
    CHECK(ftl_kv_info(ftl, 1, &before) && before.keys == 0 && before.used_bytes == 0);
    CHECK_EQ_U64(ftl_kv_admit_exist(ftl, 1, &b), (uint64_t)FTL_E_KV_NO_KEY);
    ftl_destroy(ftl);
}

static void test_list_order(void)
{
    struct ftl_config cfg = kv_config(2, 0);
    struct ftl *ftl = make_ftl(&cfg);
    char err[256];
    CHECK(ftl_kv_create(ftl, 1, 0, ftl_kv_region_sectors(ftl, 65536), 65536, err,
                        sizeof(err)) == 0);
    const char *keys[] = { "ba", "c", "ab", "a", "b" };
    for (int i = 0; i < 5; i++) {
        struct ftl_kv_key k = key_of(keys[i]);
        CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &k, 10, 0, (uint64_t)i), FTL_OK);
    }
    struct ftl_kv_key nul = { .len = 2, .bytes = { 'a', 0 } };
    CHECK_EQ_U64(ftl_kv_admit_store(ftl, 1, &nul, 10, 0, 9), FTL_OK);
    struct ftl_kv_key out[8];
    uint32_t n;
    struct ftl_kv_key start = key_of("aa");     /* not a key: the next one is "ab" */
    CHECK_EQ_U64(ftl_kv_admit_list(ftl, 1, &start, out, 8, &n), FTL_OK);
    CHECK_EQ_U64(n, 4);
    const char *want[] = { "ab", "b", "ba", "c" };
    for (uint32_t i = 0; i < 4 && i < n; i++) {
        struct ftl_kv_key w = key_of(want[i]);
        CHECK(ftl_kv_key_cmp(&out[i], &w) == 0);
    }
    start = key_of("a");    /* a prefix first, then its extensions: "a", "a\0", "ab" */
    CHECK_EQ_U64(ftl_kv_admit_list(ftl, 1, &start, out, 3, &n), FTL_OK);
    CHECK(n == 3 && out[0].len == 1 && ftl_kv_key_cmp(&out[1], &nul) == 0 && out[2].len == 2 &&
          out[2].bytes[1] == 'b');
    start = key_of("d");
    CHECK_EQ_U64(ftl_kv_admit_list(ftl, 1, &start, out, 8, &n), FTL_OK);
    CHECK_EQ_U64(n, 0);
    struct ftl_kv_key x = key_of("b"), y = key_of("ba");
    CHECK(ftl_kv_key_cmp(&x, &y) < 0 && ftl_kv_key_cmp(&y, &x) > 0 &&
          ftl_kv_key_cmp(&x, &x) == 0);
    ftl_destroy(ftl);
}

/* Small records share a page, programmed once full; a large one spans pages, the part in
 * the open page read from controller memory. */
static void test_packing(void)
{
    struct ftl_config cfg = kv_config(2, 0);
    struct rig r = rig_open(&cfg, 65536);
    uint64_t t = LATER;
    char key[8];
    /* 8 + 4 + 1012 = 1024 bytes a record: four fill a page */
    for (int i = 0; i < 4; i++) {
        snprintf(key, sizeof(key), "k%03d", i);
        uint64_t before = counters(r.ftl).host_write_pages;
        CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, key, 1012, 0, 1, NULL), FTL_OK);
        CHECK_EQ_U64(counters(r.ftl).host_write_pages - before, i == 3 ? 1 : 0);
    }
    /* 6012 bytes: the second page is full, the third holds 1916 and stays open */
    uint64_t before = counters(r.ftl).host_write_pages;
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, "big!", 6000, 0, 2, NULL), FTL_OK);
    CHECK_EQ_U64(counters(r.ftl).host_write_pages - before, 1);
    struct ftl_counters c0 = counters(r.ftl);
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t += LATER, "big!", 8192, 0, 0, NULL), FTL_OK);
    struct ftl_counters c1 = counters(r.ftl);
    CHECK_EQ_U64(c1.host_read_pages - c0.host_read_pages, 1);    /* page 1 from flash */
    CHECK_EQ_U64(c1.kv_retrieve_bytes - c0.kv_retrieve_bytes, 6000);
    /* a 100-byte buffer: only the record's first page */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t += LATER, "big!", 100, 0, 0, NULL), FTL_OK);
    struct ftl_counters c2 = counters(r.ftl);
    CHECK_EQ_U64(c2.host_read_pages - c1.host_read_pages, 1);
    CHECK_EQ_U64(c2.kv_retrieve_bytes - c1.kv_retrieve_bytes, 100);
    CHECK_EQ_U64(c2.kv_stores, 5);
    CHECK_EQ_U64(c2.kv_store_bytes, 4 * 1012 + 6000);
    CHECK_EQ_U64(c2.kv_retrieves, 2);
    struct ftl_gauges g;
    ftl_get_gauges(r.ftl, &g);
    CHECK(g.kv_keys == 5 && g.kv_live_bytes == 4 * 1012 + 6000);
    rig_close(&r);
}

/* FNV-1a, as kv/ names it: the key's bytes, then its length. */
static uint64_t fnv1a(const struct ftl_kv_key *k)
{
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < k->len; i++) {
        h = (h ^ k->bytes[i]) * 1099511628211ull;
    }
    return (h ^ k->len) * 1099511628211ull;
}

/* A 4-byte key whose index page (of `pages`) is `page`, into buf. */
static void key_on_page(char *buf, uint64_t page, uint64_t pages)
{
    for (int i = 0;; i++) {
        snprintf(buf, 8, "p%03d", i % 1000);
        struct ftl_kv_key k = key_of(buf);
        if (fnv1a(&k) % pages == page) {
            return;
        }
    }
}

static void test_index_cache(void)
{
    /* 512 keys: 4 index pages; a cache of 2 */
    struct ftl_config cfg = kv_config(2, 512);
    struct rig r = rig_open(&cfg, 65536);
    char a[8], b[8], c[8];
    key_on_page(a, 0, 4);
    key_on_page(b, 1, 4);
    key_on_page(c, 2, 4);
    uint64_t t = LATER;
    struct ftl_counters c0 = counters(r.ftl);
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, a, 10, 0, 1, NULL), FTL_OK);  /* miss */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, b, 10, 0, 1, NULL), FTL_OK);  /* miss */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_EXIST, t += LATER, a, 0, 0, 0, NULL), FTL_OK);   /* hit */
    /* miss: evicts page 1 (dirty: written) */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, c, 10, 0, 1, NULL), FTL_OK);
    /* miss: page 1 read back, page 0 (dirty) written */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t += LATER, b, 10, 0, 0, NULL), FTL_OK);
    /* miss: page 0 read back, page 2 (dirty) written */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_EXIST, t += LATER, a, 0, 0, 0, NULL), FTL_OK);
    /* hit, page 1 clean now: an absent key is a lookup only */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t += LATER, b, 10, 0, 0, NULL), FTL_OK);
    struct ftl_counters c1 = counters(r.ftl);
    CHECK_EQ_U64(c1.kv_index_hits - c0.kv_index_hits, 2);
    CHECK_EQ_U64(c1.kv_index_misses - c0.kv_index_misses, 5);
    CHECK_EQ_U64(c1.kv_index_page_reads - c0.kv_index_page_reads, 2);
    CHECK_EQ_U64(c1.kv_index_page_writes - c0.kv_index_page_writes, 3);
    CHECK_EQ_U64(c1.kv_exists, 2);
    /* a namespace without a store: refused at admission (kv.h); a refused command:
     * nothing counted */
    struct ftl_request q = { .op = FTL_OP_KV_EXIST, .arrival_ns = t += LATER, .nsid = 7,
                             .key = key_of(a) };
    struct ftl_served s;
    CHECK_EQ_U64(ftl_engine_serve(r.engine, &q, &s), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64(s.done_ns, q.arrival_ns);
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_EXIST, t += LATER, "zzzz", 0, 0, 0, NULL),
                 (uint64_t)FTL_E_KV_NO_KEY);
    struct ftl_counters c2 = counters(r.ftl);
    CHECK(c2.kv_exists == c1.kv_exists && c2.kv_index_misses == c1.kv_index_misses &&
          c2.kv_index_hits == c1.kv_index_hits);
    rig_close(&r);
}

/* A store's flash record of key: its segment, or KV_NONE. */
static uint32_t seg_of(struct ftl *ftl, const char *key)
{
    struct kv_store *s = kv_store_of(ftl, 1);
    struct ftl_kv_key k = key_of(key);
    uint32_t i = kv_map_find(&s->map, &k);
    return i == KV_NONE ? KV_NONE : s->map.recs[i].seg;
}

static void test_compaction(void)
{
    /* 8 values of 4086 bytes (32688) under 8 keys, records of 8 + 2 + 4086 = 4096 bytes,
     * the largest 8 + 16 + 4086 = 4110: (32688 + 8 x 24) x 1.01 = 33208 bytes in segments
     * sure of 16384 - 4109 = 12275: 3, + 2 of slack + the head: 6 segments of 4 pages */
    struct ftl_config cfg = kv_config(2, 8);
    cfg.kv_max_value = 4086;
    cfg.kv_op_pct = 1;
    struct rig r = rig_open(&cfg, 8 * 4086);
    struct kv_store *s = kv_store_of(r.ftl, 1);
    CHECK_EQ_U64(s->log.nsegs, 6);
    uint64_t t = LATER;
    char key[8];
    /* 8 + 2 + 4086 = 4096: a record a page, four a segment */
    for (int i = 0; i < 8; i++) {      /* k0..k3 in segment 0, k4..k7 in segment 1 */
        snprintf(key, sizeof(key), "k%d", i);
        CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, key, 4086, 0, 1, NULL), FTL_OK);
    }
    const char *again[] = { "k0", "k1", "k2", "k4",             /* segment 2 */
                            "k5", "k5", "k5", "k5" };           /* segment 3 */
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, again[i], 4086, 0, 2, NULL),
                     FTL_OK);
    }
    for (int i = 0; i < 4; i++) {      /* segment 4: k2 four times, the last one live */
        CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, "k2", 4086, 0, 2, NULL), FTL_OK);
    }
    /* live: segment 0 k3 (4096), 1 k6 k7 (8192), 2 k0 k1 k4 (12288), 3 k5, 4 k2 (4096
     * each); segment 5 free, one fewer than the slack */
    CHECK(s->log.free_count == 1 && s->log.segs[0].live_bytes == 4096 &&
          s->log.segs[3].live_bytes == 4096 && s->log.segs[1].live_bytes == 8192 &&
          s->log.segs[4].live_bytes == 4096);
    struct ftl_counters c0 = counters(r.ftl);
    CHECK_EQ_U64(c0.kv_compactions, 0);
    /* k6 (its old record in segment 1 dead now) needs a new segment: segment 0 is
     * compacted (4096 live bytes, tied with segments 1, 3 and 4: the lowest wins), k3
     * moving into segment 5; then segment 1 (k7, tied again); two free again */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t += LATER, "k6", 4086, 0, 3, NULL), FTL_OK);
    struct ftl_counters c1 = counters(r.ftl);
    CHECK_EQ_U64(c1.kv_compactions, 2);
    CHECK_EQ_U64(c1.kv_compaction_pages, 2);
    CHECK_EQ_U64(c1.host_read_pages - c0.host_read_pages, 2);     /* a page of each victim */
    CHECK_EQ_U64(c1.host_write_pages - c0.host_write_pages, 3);   /* k3, k7, then k6 */
    CHECK_EQ_U64(c1.host_trim_pages - c0.host_trim_pages, 8);     /* both victims' pages */
    CHECK(seg_of(r.ftl, "k3") == 5 && seg_of(r.ftl, "k7") == 5 && seg_of(r.ftl, "k6") == 5 &&
          seg_of(r.ftl, "k5") == 3);
    CHECK(s->log.segs[0].state == KV_SEG_FREE && s->log.segs[1].state == KV_SEG_FREE &&
          s->log.free_count == 2 && s->log.head_seg == 5 && s->log.head_off == 3 * 4096);
    for (int i = 0; i < 8; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t += LATER, key, 8192, 0, 0, NULL), FTL_OK);
    }
    CHECK_CONSISTENT(r.ftl);
    rig_close(&r);
}

/* Completion times, from the NAND latencies: LUNs idle at each arrival. */
static void test_timing(void)
{
    struct ftl_config cfg = kv_config(1, 512);
    struct rig r = rig_open(&cfg, 65536);
    uint64_t t = LATER, done;
    char tiny[8], other[8];     /* on the index page of "full", and on another one */
    struct ftl_kv_key full = key_of("full");
    key_on_page(tiny, fnv1a(&full) % 4, 4);
    key_on_page(other, (fnv1a(&full) % 4 + 1) % 4, 4);
    /* the first lookup finds an unwritten index page (no read); the record fills a page,
     * programmed from the arrival */
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t, "full", 4084, 0, 1, &done), FTL_OK);
    CHECK_EQ_U64(done, t + P_LAT);
    /* a small record stays in the open page: no flash */
    t += LATER;
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, t, tiny, 100, 0, 2, &done), FTL_OK);
    CHECK_EQ_U64(done, t);
    t += LATER;
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t, tiny, 100, 0, 0, &done), FTL_OK);
    CHECK_EQ_U64(done, t);
    /* from flash: one page read */
    t += LATER;
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t, "full", 4084, 0, 0, &done), FTL_OK);
    CHECK_EQ_U64(done, t + R_LAT);
    /* with a cache of one page, a key on another index page evicts the dirty one (a
     * program) and its lookup ends then; the value read starts after it */
    t += LATER;
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_EXIST, t, other, 0, 0, 0, &done),
                 (uint64_t)FTL_E_KV_NO_KEY);   /* admission: nothing done */
    CHECK_EQ_U64(done, t);
    CHECK_EQ_U64(ftl_kv_admit_store(r.ftl, 1, &(struct ftl_kv_key){ 0 }, 0, 0, 0),
                 (uint64_t)FTL_E_KV_KEY_SIZE);
    struct ftl_request q = { .op = FTL_OP_KV_EXIST, .arrival_ns = t += LATER, .nsid = 1,
                             .key = key_of(other), .flags = FTL_REQ_ADMITTED };
    struct ftl_served s;
    CHECK_EQ_U64(ftl_engine_serve(r.engine, &q, &s), FTL_OK);
    CHECK_EQ_U64(s.done_ns, q.arrival_ns + P_LAT);   /* the dirty page's program */
    t += LATER;
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_RETRIEVE, t, "full", 4084, 0, 0, &done), FTL_OK);
    CHECK_EQ_U64(done, t + 2 * R_LAT);              /* index page, then the value */
    rig_close(&r);
}

/* FTL_OP_FORMAT over exactly the store's range empties the flash record. */
static void test_format(void)
{
    struct ftl_config cfg = kv_config(2, 0);
    struct rig r = rig_open(&cfg, 65536);
    CHECK_EQ_U64(kv_op(&r, FTL_OP_KV_STORE, LATER, "key", 5000, 0, 1, NULL), FTL_OK);
    struct ftl_kv_info info;
    CHECK(ftl_kv_info(r.ftl, 1, &info));
    ftl_kv_clear(r.ftl, 1);
    struct ftl_request q = { .op = FTL_OP_FORMAT, .arrival_ns = 2 * LATER,
                             .slba = info.base_sector, .nlb = info.sectors };
    CHECK_EQ_U64(ftl_engine_serve(r.engine, &q, NULL), FTL_OK);
    struct ftl_gauges g;
    ftl_get_gauges(r.ftl, &g);
    CHECK(g.kv_keys == 0 && g.kv_live_bytes == 0);
    CHECK_EQ_U64(seg_of(r.ftl, "key"), KV_NONE);
    CHECK_CONSISTENT(r.ftl);
    rig_close(&r);
}

int main(void)
{
    test_region_sizing();
    test_admission_statuses();
    test_list_order();
    test_packing();
    test_index_cache();
    test_compaction();
    test_timing();
    test_format();
    return check_summary();
}
