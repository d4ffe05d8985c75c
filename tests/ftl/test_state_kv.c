/*
 * The key-value stores in state files (section KVST, state/ftl_state_kv.c) and ftl_check's
 * KV invariants (kv/kv_check.h).
 *
 * Two stores aged by random commands through the engine (with compactions, index misses
 * and dirty evictions) are saved, restored into a fresh FTL, and both FTLs then serve the
 * same further commands: every status and completion time, the counters and the gauges
 * agree exactly, and the restored state saves again byte for byte. Each KV invariant,
 * corrupted in turn, is caught; each KVST field crafted out of range is refused in one
 * line naming the section.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/engine.h"
#include "femu_ftl/state.h"
#include "flash/ftl_handle.h"
#include "kv/kv_check.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"
#include "state_file.h"
#include "file_test_util.h"
#include "ftl_state_test_util.h"

#define NKEYS 48
#define CAPACITY 49152u
#define MAX_VALUE 4096u
#define KVST STATE_TAG('K', 'V', 'S', 'T')

static char dir[] = "/tmp/femu-test-state-kv-XXXXXX";
static char path_a[256], path_b[256];
static const uint32_t nsids[2] = { 1, 3 };

static struct ftl_config kv_config(void)
{
    struct ftl_config cfg = small_config(1, 2, 32, 16, 8);
    cfg.kv_segment_pages = 4;
    cfg.kv_max_value = MAX_VALUE;
    cfg.kv_index_cache_pages = 2;
    cfg.kv_max_keys = 600;      /* 5 index pages of 128 keys, 2 cached */
    return cfg;
}

/* Two stores side by side after the first 64 sectors. */
static struct ftl *kv_ftl(const struct ftl_config *cfg)
{
    struct ftl *ftl = make_ftl(cfg);
    char err[256] = "";
    uint64_t sectors = ftl_kv_region_sectors(ftl, CAPACITY);
    for (int i = 0; i < 2; i++) {
        if (!check_record(ftl_kv_create(ftl, nsids[i], 64 + i * sectors, sectors, CAPACITY,
                                        err, sizeof(err)) == 0,
                          __FILE__, __LINE__, "ftl_kv_create")) {
            fprintf(stderr, "    %s\n", err);
            exit(1);
        }
    }
    return ftl;
}

/* Command n of the sequence seeded by seed (the same for every FTL that asks). */
static struct ftl_request command(uint64_t seed, uint64_t n, uint64_t at)
{
    uint64_t s = seed * 1000003 + n, roll = next_rand(&s) % 100, k = next_rand(&s) % NKEYS;
    struct ftl_request q = { .arrival_ns = at, .nsid = nsids[next_rand(&s) % 2],
                             .key = { .len = (uint8_t)(1 + k % FTL_KV_KEY_MAX) } };
    memset(q.key.bytes, (int)('a' + k / FTL_KV_KEY_MAX), q.key.len);
    if (roll < 50) {
        q.op = FTL_OP_KV_STORE;
        q.kv_bytes = (uint32_t)(next_rand(&s) % (MAX_VALUE + 1));
        q.value_tag = n;
    } else if (roll < 75) {
        q.op = FTL_OP_KV_RETRIEVE;
        q.kv_bytes = (uint32_t)(next_rand(&s) % (MAX_VALUE + 1));
    } else if (roll < 85) {
        q.op = FTL_OP_KV_DELETE;
    } else if (roll < 93) {
        q.op = FTL_OP_KV_EXIST;
    } else {
        q.op = FTL_OP_KV_LIST;
        q.kv_bytes = 1 + (uint32_t)(next_rand(&s) % 8);
    }
    return q;
}

/* Commands [from, to) of seed's sequence, 30 us apart from start; each one's status and
 * completion into log (may be NULL). Returns the last arrival. */
static uint64_t run(struct ftl *ftl, uint64_t seed, uint64_t from, uint64_t to,
                    uint64_t start, uint64_t *log)
{
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    uint64_t at = start;
    for (uint64_t n = from; n < to; n++) {
        at = start + (n - from) * 30000;
        struct ftl_request q = command(seed, n, at);
        struct ftl_served served;
        int rc = ftl_engine_serve(e, &q, &served);
        if (log) {
            log[2 * (n - from)] = (uint64_t)(int64_t)rc;
            log[2 * (n - from) + 1] = served.done_ns;
        }
    }
    ftl_engine_destroy(e);
    return at;
}

/* Two files the same but for META's creation time and so the END CRC. */
static bool same_files(const char *a_path, const char *b_path)
{
    size_t na, nb;
    unsigned char *a = read_whole(a_path, &na), *b = read_whole(b_path, &nb);
    uint64_t meta = 0;
    memcpy(&meta, a + 24 + 8, 8);
    size_t from = 24 + 16 + meta + 4, end_bytes = 16 + 4 + 4;
    bool same = na == nb && na > from + end_bytes &&
                memcmp(a + from, b + from, na - end_bytes - from) == 0;
    free(a);
    free(b);
    return same;
}

/* Saved at a moment, restored, then both serve the same commands alike. */
static void test_restore_serves_alike(void)
{
    struct ftl_config cfg = kv_config();
    struct ftl *ftl = kv_ftl(&cfg);
    uint64_t last = run(ftl, 7, 0, 6000, 1000000, NULL);
    struct ftl_counters before = counters(ftl);
    if (!check_record(before.kv_compactions > 5 && before.kv_index_page_writes > 0 &&
                      before.kv_index_page_reads > 0, __FILE__, __LINE__, "aged")) {
        fprintf(stderr, "    %" PRIu64 " compactions, %" PRIu64 " index writes, %" PRIu64
                " reads\n", before.kv_compactions, before.kv_index_page_writes,
                before.kv_index_page_reads);
    }
    CHECK_CONSISTENT(ftl);
    char err[512] = "";
    CHECK(kv_check_agree(ftl, err, sizeof(err)) == 0);
    uint64_t now = max_u64(idle_time(ftl), last) + 1000000;
    CHECK(ftl_state_save_file(ftl, path_a, "test", now, err, sizeof(err)) == 0);
    struct ftl *back = load_or_null(&cfg, path_a, now, err, sizeof(err));
    if (!check_record(back != NULL, __FILE__, __LINE__, "the saved KV state loads")) {
        fprintf(stderr, "    %s\n", err);
        exit(1);
    }
    CHECK(ftl_state_save_file(back, path_b, "test", now, err, sizeof(err)) == 0);
    CHECK(same_files(path_a, path_b));
    struct ftl_kv_info ia, ib;
    for (int i = 0; i < 2; i++) {
        CHECK(ftl_kv_info(ftl, nsids[i], &ia) && ftl_kv_info(back, nsids[i], &ib));
        /* field by field: the struct has padding, which memcmp would read */
        CHECK(ia.capacity_bytes == ib.capacity_bytes && ia.used_bytes == ib.used_bytes &&
              ia.keys == ib.keys && ia.max_keys == ib.max_keys &&
              ia.max_value_bytes == ib.max_value_bytes && ia.base_sector == ib.base_sector &&
              ia.sectors == ib.sectors && ia.keys > 0);
    }

    enum { MORE = 3000 };
    uint64_t *la = calloc(2 * MORE, 8), *lb = calloc(2 * MORE, 8);
    run(ftl, 7, 6000, 6000 + MORE, now, la);
    run(back, 7, 6000, 6000 + MORE, now, lb);
    uint64_t differ = 0;
    for (int i = 0; i < 2 * MORE; i++) {
        differ += la[i] != lb[i];
    }
    CHECK_EQ_U64(differ, 0);
    struct ftl_counters ca = counters(ftl), cb = counters(back);
    CHECK(memcmp(&ca, &cb, KEPT_COUNTER_BYTES) == 0);
    /* the energy model's flash tallies are not kept: the restored FTL's count from the
     * restore, the same work as the original's since the save */
    CHECK_EQ_U64(cb.nand_sense_ns, ca.nand_sense_ns - before.nand_sense_ns);
    CHECK_EQ_U64(cb.nand_program_ns, ca.nand_program_ns - before.nand_program_ns);
    CHECK_EQ_U64(cb.ch_bytes, ca.ch_bytes - before.ch_bytes);
    CHECK(cb.nand_program_ns > 0 && cb.ch_bytes > 0);
    CHECK(ca.kv_compactions > before.kv_compactions && ca.kv_stores > before.kv_stores);
    struct ftl_gauges ga, gb;
    ftl_get_gauges(ftl, &ga);
    ftl_get_gauges(back, &gb);
    CHECK(memcmp(&ga, &gb, sizeof(ga)) == 0 && ga.kv_keys > 0);
    CHECK_CONSISTENT(back);
    free(la);
    free(lb);
    ftl_destroy(back);
    ftl_destroy(ftl);
}

/* A file without stores restores none, whatever the FTL had; the stores of a file replace
 * the FTL's own. */
static void test_restore_replaces_stores(void)
{
    struct ftl_config cfg = kv_config();
    struct ftl *plain = make_ftl(&cfg), *kv = kv_ftl(&cfg);
    char err[512] = "";
    CHECK(ftl_state_save_file(plain, path_a, "test", 0, err, sizeof(err)) == 0);
    CHECK(ftl_state_load_file(kv, path_a, 0, err, sizeof(err)) == 0);
    CHECK(!ftl_kv_info(kv, 1, NULL) && !ftl_kv_info(kv, 3, NULL));
    ftl_destroy(kv);
    kv = kv_ftl(&cfg);
    run(kv, 3, 0, 500, 1000, NULL);
    CHECK(ftl_state_save_file(kv, path_a, "test", idle_time(kv) + 1, err, sizeof(err)) == 0);
    ftl_destroy(kv);
    kv = kv_ftl(&cfg);       /* empty stores of the same namespaces: the file's replace them */
    CHECK(ftl_state_load_file(kv, path_a, 0, err, sizeof(err)) == 0);
    struct ftl_kv_info info;
    CHECK(ftl_kv_info(kv, 3, &info) && info.keys > 0);
    ftl_destroy(kv);
    ftl_destroy(plain);
}

/* Each invariant corrupted, caught, put back. */
static void test_check_catches(void)
{
    struct ftl_config cfg = kv_config();
    struct ftl *ftl = kv_ftl(&cfg);
    run(ftl, 11, 0, 3000, 1000000, NULL);
    struct kv_store *s = kv_store_of(ftl, 1);
    char err[512] = "";
    CHECK_CONSISTENT(ftl);
    CHECK(kv_check_agree(ftl, err, sizeof(err)) == 0);

    /* admission and flash disagree on a size: only the agreement check sees it */
    const struct ftl_kv_key smallest = { .len = 1 };
    struct kv_anode *a = (struct kv_anode *)kv_adm_ceil(&s->adm, &smallest, false);
    CHECK(a != NULL);
    a->value_bytes ^= 1;
    CHECK(kv_check_agree(ftl, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "another size or tag in the flash record");
    CHECK(ftl_check(ftl, err, sizeof(err)) == 0);
    a->value_bytes ^= 1;
    s->adm.keys++;
    CHECK(kv_check_agree(ftl, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "admission holds");
    s->adm.keys--;

    /* a segment's live bytes are not its records' */
    uint32_t g = 0;
    while (g < s->log.nsegs && s->log.segs[g].live_records == 0) {
        g++;
    }
    CHECK(g < s->log.nsegs);
    s->log.segs[g].live_bytes++;
    CHECK(ftl_check(ftl, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "live bytes, its records sum to");
    s->log.segs[g].live_bytes--;

    /* more pages cached than kv_index_cache_pages */
    s->cache.count = s->cache.cap + 1;
    CHECK(ftl_check(ftl, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "kv_index_cache_pages is 2");
    s->cache.count = s->cache.cap;
    uint32_t cap = s->cache.cap;
    s->cache.cap = 3;   /* more slots than the configuration allows */
    CHECK(ftl_check(ftl, err, sizeof(err)) == -1);
    s->cache.cap = cap;

    /* the open page's offset past its segment */
    uint64_t off = s->log.head_off;
    uint32_t head = s->log.head_seg;
    CHECK(head != KV_NONE);
    s->log.head_off = s->seg_pages * s->page_bytes;
    CHECK(ftl_check(ftl, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "the open page's offset");
    s->log.head_off = off;
    s->log.head_seg = KV_NONE;
    CHECK(ftl_check(ftl, err, sizeof(err)) == -1);
    s->log.head_seg = head;
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* path_b: path_a with KVST's payload edited (value in `bytes` bytes at off, or one byte
 * appended when bytes is 0), every CRC valid; refused in one line naming want. */
static void check_kvst_refused(const struct ftl_config *cfg, uint64_t off, int bytes,
                               uint64_t value, const char *want, int line)
{
    size_t size;
    unsigned char *b = read_whole(path_a, &size);
    char err[512] = "";
    struct state_writer *w = state_writer_open(path_b, err, sizeof(err));
    for (size_t at = 24; at + 16 <= size;) {
        uint32_t tag;
        uint64_t n;
        memcpy(&tag, b + at, 4);
        memcpy(&n, b + at + 8, 8);
        if (tag == STATE_TAG_END) {
            break;
        }
        if (tag != KVST) {
            state_writer_section(w, tag, b + at + 16, n);
        } else {
            unsigned char *copy = calloc(1, n + 1);
            memcpy(copy, b + at + 16, n);
            for (int i = 0; i < bytes; i++) {
                copy[off + i] = (unsigned char)(value >> (8 * i));
            }
            state_writer_section(w, tag, copy, bytes ? n : n + 1);
            free(copy);
        }
        at += 16 + n + 4;
    }
    CHECK(state_writer_commit(w, err, sizeof(err)) == 0);
    free(b);
    struct ftl *ftl = load_or_null(cfg, path_b, 0, err, sizeof(err));
    if (!check_record(!ftl && !strchr(err, '\n') && strstr(err, "section KVST") &&
                      strstr(err, want), __FILE__, line, "crafted KVST refused")) {
        fprintf(stderr, "    want \"%s\", got \"%s\"\n", want, ftl ? "(accepted)" : err);
    }
    ftl_destroy(ftl);
}

/* KVST's fields (offsets after the version and the store count: the first store's head
 * at 8, its admission's count at 72, its first key at 80) out of range. */
static void test_load_refuses(void)
{
    struct ftl_config cfg = kv_config();
    struct ftl *ftl = kv_ftl(&cfg);
    run(ftl, 5, 0, 2000, 1000000, NULL);
    char err[512] = "";
    CHECK(ftl_state_save_file(ftl, path_a, "test", idle_time(ftl) + 1, err, sizeof(err)) == 0);
    struct kv_store *s = kv_store_of(ftl, 1);
    check_kvst_refused(&cfg, 0, 4, 9, "layout version 9", __LINE__);
    check_kvst_refused(&cfg, 4, 4, 3, "cut in a store's head", __LINE__);
    check_kvst_refused(&cfg, 8, 4, 3, "already has a store", __LINE__);
    check_kvst_refused(&cfg, 28, 8, UINT64_MAX / 2, "does not fit", __LINE__);
    check_kvst_refused(&cfg, 36, 8, s->max_keys + 1, "this configuration makes", __LINE__);
    check_kvst_refused(&cfg, 72, 8, s->max_keys + 1, "admission:", __LINE__);
    check_kvst_refused(&cfg, 80, 1, 0, "admission: key 0", __LINE__);
    check_kvst_refused(&cfg, 80, 1, 17, "admission: key 0", __LINE__);
    check_kvst_refused(&cfg, 80 + 17, 4, MAX_VALUE + 1, "invalid value size", __LINE__);
    check_kvst_refused(&cfg, 0, 0, 0, "bytes after the stores", __LINE__);
    /* the first segment's state, then its record count, after the admission */
    uint64_t seg0 = 80 + s->adm.keys * (17 + 4 + 8);
    check_kvst_refused(&cfg, seg0, 1, 3, "segment 0: state 3", __LINE__);
    if (s->log.segs[0].live_records) {
        check_kvst_refused(&cfg, seg0 + 5 + 17, 4, UINT32_MAX, "segment 0: record 0",
                           __LINE__);
    }
    ftl_destroy(ftl);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path_a, sizeof(path_a), "%s/a.state", dir);
    snprintf(path_b, sizeof(path_b), "%s/b.state", dir);
    test_restore_serves_alike();
    test_restore_replaces_stores();
    test_check_catches();
    test_load_refuses();
    unlink(path_a);
    unlink(path_b);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
