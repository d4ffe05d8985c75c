/*
 * State files of the FTL's modules: a zoned namespace, a write buffer holding data at the
 * save, DFTL with a CMT smaller than the map (evictions, dirty entries), DFTL with a
 * write buffer, and all three. A restored FTL shows what the saved one shows (counters,
 * every LPN's mapping and write count, the zone report, the CMT's and the buffer's LRU
 * order), and both then serve the same requests with the same results, latencies, zone
 * reports and counters. A module section that is missing, cut, padded or crafted is
 * refused with one line; any one byte of it changed is refused or restores a consistent
 * FTL, never a crash (the asan build runs this too).
 */
#include "base/lru_list.h"
#include "map/dftl_tables.h"
#include "wbuf/write_buffer_tables.h"
#include "zns/zns.h"
#include "zns/zns_tables.h"
#include "zns/zone_state_tables.h"
#include "femu_ftl/engine.h"
#include "femu_ftl/state.h"
#include "ftl_test_util.h"
#include "ftl_state_test_util.h"
#include "file_test_util.h"

#include <unistd.h>

#define SEC 1000000000ull

static char dir[] = "/tmp/femu-test-state-modules-XXXXXX";
static char path[256], copy_path[256];

#include "state_edit_test_util.h"

static uint64_t below(uint64_t *s, uint64_t n)
{
    return next_rand(s) % n;
}

/* One request's outcome: status, latency, and the zone report right after it. */
struct outcome {
    int rc;
    uint64_t latency;
    uint64_t zones;
};

/* The zone report (every zone's state and write pointer) as one number. */
static uint64_t zone_digest(const struct ftl *ftl)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (uint64_t z = 0; z < ftl_zone_count(ftl); z++) {
        struct ftl_zone_info info;
        ftl_zone_get(ftl, z, &info);
        h = (h ^ info.state) * UINT64_C(1099511628211);
        h = (h ^ info.wp) * UINT64_C(1099511628211);
    }
    return h;
}

/* A zone command of the workload (zone chosen by the caller) into req. */
static void zone_request(struct ftl *ftl, uint64_t *s, uint64_t zone, struct ftl_request *req,
                         struct ftl_range *src)
{
    uint64_t zsize = ftl_zone_size_sectors(ftl), cap = ftl_zone_cap_sectors(ftl);
    uint64_t spp = ftl_config_of(ftl)->secs_per_pg, zones = ftl_zone_count(ftl);
    struct ftl_zone_info info;
    ftl_zone_get(ftl, zone, &info);
    uint64_t kind = below(s, 20);
    if (kind < 9) {             /* writes and appends, mostly where admission takes them */
        bool append = kind >= 5;
        req->op = FTL_OP_ZONE_WRITE;
        req->flags = append ? FTL_REQ_APPEND : 0;
        req->nlb = 1 + below(s, 3 * spp);
        req->slba = append || below(s, 8) ? (append ? info.start : info.wp)
                                          : info.start + below(s, cap);
    } else if (kind < 13) {
        req->op = FTL_OP_ZONE_READ;
        req->nlb = 1 + below(s, 4 * spp);
        req->slba = below(s, zones * zsize - req->nlb);
    } else if (kind < 19) {
        req->op = FTL_OP_ZONE_MGMT;
        req->slba = info.start;
        req->zone_action = 1 + (uint32_t)below(s, 5);
        req->flags = below(s, 16) == 0 ? FTL_REQ_ZONE_ALL : 0;
        if (req->zone_action == FTL_ZONE_ACTION_OFFLINE && below(s, 3)) {
            req->zone_action = FTL_ZONE_ACTION_RESET;   /* offline sparingly */
        }
    } else {                    /* Simple Copy of two ranges to the write pointer */
        for (int k = 0; k < 2; k++) {
            src[k].nlb = below(s, 2 * spp);
            src[k].slba = below(s, zones * zsize - src[k].nlb);
        }
        req->op = FTL_OP_COPY;
        req->flags = FTL_REQ_ZONED;
        req->ranges = src;
        req->nranges = 2;
        req->nlb = src[0].nlb + src[1].nlb;
        req->slba = info.wp;
    }
}

/*
 * n requests from seed through an engine, the first at start: sector-granular writes
 * (partial pages, for the write buffer's masks) over the logical space with a hot
 * eighth, reads, trims, a rare flush; with zones, half the requests are zone commands.
 * The first `reads` requests read one page each anywhere: CMT misses that evict what the
 * CMT held before GC rewrites its translation pages.
 */
static void run_workload(struct ftl *ftl, uint64_t seed, uint32_t n, uint32_t reads,
                         uint64_t start, struct outcome *out)
{
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    const struct ftl_config *cfg = ftl_config_of(ftl);
    uint64_t spp = cfg->secs_per_pg, sectors = ftl_geometry_of(ftl)->logical_sectors;
    uint64_t now = start, s = seed;
    for (uint32_t i = 0; i < n; i++) {
        struct ftl_request req = { .arrival_ns = now };
        struct ftl_range src[2];
        if (i < reads) {
            req.op = FTL_OP_READ;
            req.nlb = spp;
            req.slba = below(&s, sectors / spp) * spp;
        } else if (ftl_zone_count(ftl) && below(&s, 2)) {
            zone_request(ftl, &s, below(&s, ftl_zone_count(ftl)), &req, src);
        } else {
            uint64_t kind = below(&s, 200), nlb = 1 + below(&s, 4 * spp);
            uint64_t span = below(&s, 8) < 5 ? sectors / 8 : sectors;
            req.slba = below(&s, span - nlb);
            req.nlb = nlb;
            req.stream = (uint32_t)below(&s, ftl_write_pointer_count(ftl));
            req.op = kind < 130 ? FTL_OP_WRITE : kind < 185 ? FTL_OP_READ
                   : kind < 199 ? FTL_OP_TRIM : FTL_OP_FLUSH;
        }
        struct ftl_served served = { .done_ns = now };
        out[i].rc = ftl_engine_serve(e, &req, &served);
        out[i].latency = served.done_ns - now;
        out[i].zones = zone_digest(ftl);
        now += 2000 + below(&s, cfg->pg_wr_lat / 4 + 1);
    }
    ftl_engine_destroy(e);
}

/* ---- comparing two FTLs ---- */

static void check_zones_same(const struct ftl *a, const struct ftl *b)
{
    uint64_t zones = ftl_zone_count(a), differ = 0;
    CHECK_EQ_U64(ftl_zone_count(b), zones);
    for (uint64_t z = 0; z < zones; z++) {
        struct ftl_zone_info za, zb;
        ftl_zone_get(a, z, &za);
        ftl_zone_get(b, z, &zb);
        differ += za.start != zb.start || za.cap != zb.cap || za.wp != zb.wp ||
                  za.state != zb.state ||
                  zone_state_resets(a->zns->state, z) != zone_state_resets(b->zns->state, z) ||
                  zns_programmed_pages(a, z) != zns_programmed_pages(b, z) ||
                  a->zns->zones[z].written != b->zns->zones[z].written;
    }
    CHECK_EQ_U64(differ, 0);
    uint64_t ca[FTL_ZONE_STATES], cb[FTL_ZONE_STATES];
    ftl_zone_state_counts(a, ca);
    ftl_zone_state_counts(b, cb);
    CHECK(memcmp(ca, cb, sizeof(ca)) == 0);
    CHECK_EQ_U64(ftl_zone_open_count(a), ftl_zone_open_count(b));
    CHECK_EQ_U64(ftl_zone_active_count(a), ftl_zone_active_count(b));
    /* the order max_open closes implicitly opened zones in */
    const struct zone_state *sa = a->zns->state, *sb = b->zns->state;
    uint32_t za = sa->imp_prev ? sa->imp_head : NO_ZONE;
    uint32_t zb = sb->imp_prev ? sb->imp_head : NO_ZONE;
    uint64_t fifo_differ = 0;
    while (za != NO_ZONE || zb != NO_ZONE) {
        fifo_differ += za != zb;
        za = za == NO_ZONE ? NO_ZONE : sa->imp_next[za];
        zb = zb == NO_ZONE ? NO_ZONE : sb->imp_next[zb];
    }
    CHECK_EQ_U64(fifo_differ, 0);
}

/* The CMT from LRU to MRU, LPN and whether dirty, agree (slot numbers may differ). */
static void check_cmt_same(const struct ftl *a, const struct ftl *b)
{
    const struct dftl *da = a->dftl, *db = b->dftl;
    uint64_t differ = 0;
    CHECK_EQ_U64(da->used, db->used);
    for (uint32_t i = da->order.lru, j = db->order.lru; i != LRU_NONE || j != LRU_NONE;) {
        if (i == LRU_NONE || j == LRU_NONE) {
            differ++;
            break;
        }
        const struct cmt_slot *x = &da->slots[i], *y = &db->slots[j];
        bool dx = x->dirty && x->gen == da->tp_gen[x->lpn / da->ept];
        bool dy = y->dirty && y->gen == db->tp_gen[y->lpn / db->ept];
        differ += x->lpn != y->lpn || dx != dy;
        i = x->link.newer;
        j = y->link.newer;
    }
    CHECK_EQ_U64(differ, 0);
    CHECK(memcmp(da->gtd_plus1, db->gtd_plus1, da->ntp * sizeof(uint32_t)) == 0);
}

/* The buffered pages from LRU to MRU agree. */
static void check_buffer_same(const struct ftl *a, const struct ftl *b)
{
    const struct wbuf *ba = a->wbuf, *bb = b->wbuf;
    uint64_t differ = 0;
    CHECK_EQ_U64(ba->pages, bb->pages);
    CHECK_EQ_U64(ba->sectors, bb->sectors);
    for (uint32_t i = ba->order.lru, j = bb->order.lru; i != LRU_NONE || j != LRU_NONE;) {
        if (i == LRU_NONE || j == LRU_NONE) {
            differ++;
            break;
        }
        const struct wbuf_entry *x = &ba->entries[i], *y = &bb->entries[j];
        differ += x->lpn != y->lpn || x->stream != y->stream || x->mask != y->mask;
        i = x->link.newer;
        j = y->link.newer;
    }
    CHECK_EQ_U64(differ, 0);
}

/* What a host can see of two FTLs agrees, and what the modules keep for later. */
static void check_same(const struct ftl *a, const struct ftl *b, const char *what)
{
    check_core_same(a, b, what);
    CHECK_EQ_U64(ftl_buffered_sectors(a), ftl_buffered_sectors(b));
    if (a->zns) {
        check_zones_same(a, b);
    }
    if (a->dftl) {
        check_cmt_same(a, b);
    }
    if (a->wbuf) {
        check_buffer_same(a, b);
    }
    CHECK_CONSISTENT(b);
}

/* What the saved FTL holds: every module it has is busy, so the file has something to
 * carry (an order in the FIFO, worn zones, buffered data, dirty cached entries). */
static void check_busy(const struct ftl *ftl, const char *name)
{
    struct ftl_counters c = counters(ftl);
    if (ftl->zns) {
        uint64_t n[FTL_ZONE_STATES];
        ftl_zone_state_counts(ftl, n);
        printf("  %s, zones at the save: %llu empty, %llu implicitly open, %llu explicitly "
               "open, %llu closed, %llu full, %llu read only, %llu offline\n", name,
               (unsigned long long)n[FTL_ZONE_EMPTY],
               (unsigned long long)n[FTL_ZONE_IMPLICIT_OPEN],
               (unsigned long long)n[FTL_ZONE_EXPLICIT_OPEN],
               (unsigned long long)n[FTL_ZONE_CLOSED], (unsigned long long)n[FTL_ZONE_FULL],
               (unsigned long long)n[FTL_ZONE_READ_ONLY],
               (unsigned long long)n[FTL_ZONE_OFFLINE]);
        CHECK(n[FTL_ZONE_IMPLICIT_OPEN] >= 2);
        CHECK(n[FTL_ZONE_READ_ONLY] + n[FTL_ZONE_OFFLINE] > 0);
        CHECK(n[FTL_ZONE_FULL] + n[FTL_ZONE_CLOSED] > 0);
        CHECK(c.zone_resets > 0 && c.zone_programs > 0 && c.copy_cmds > 0);
    }
    if (ftl->wbuf) {
        CHECK(ftl_buffered_sectors(ftl) > 0);
        CHECK(c.buf_flushed_pages > 0 && c.buf_fill_reads > 0);
    }
    if (ftl->dftl) {
        const struct dftl *d = ftl->dftl;
        uint32_t dirty = 0;
        for (uint32_t i = 0; i < d->used; i++) {
            const struct cmt_slot *sl = &d->slots[i];
            dirty += sl->dirty && sl->gen == d->tp_gen[sl->lpn / d->ept];
        }
        CHECK(d->used == d->nslots && dirty > 0);
        CHECK(c.cmt_writebacks > 0 && c.gc_runs > 0);
    }
}

/*
 * A runs W1 and is saved at t2 (its LUNs idle); B is restored from the file `offset` ns
 * later on its clock. B shows what A shows; then A runs W2 (reads first) from t2 and B
 * the same W2 from t2 + offset: request for request the same status and latency, and the
 * same state after. The file stays at path for the refusals.
 */
static void round_trip(const struct ftl_config *cfg, const char *name, uint32_t n1,
                       uint32_t n2, uint64_t offset)
{
    char err[512] = "";
    struct ftl *a = make_ftl(cfg);
    struct outcome *o1 = calloc(n1, sizeof(*o1)), *oa = calloc(n2, sizeof(*oa));
    struct outcome *ob = calloc(n2, sizeof(*ob));
    run_workload(a, 21, n1, 0, 0, o1);
    check_busy(a, name);
    uint64_t t2 = idle_time(a) + SEC;
    struct ftl_counters before = counters(a);
    if (!check_record(ftl_state_save_file(a, path, "test", t2, err, sizeof(err)) == 0,
                      __FILE__, __LINE__, name)) {
        fprintf(stderr, "    %s\n", err);
    }
    struct ftl_counters after = counters(a);
    CHECK(memcmp(&before, &after, sizeof(before)) == 0);    /* saving changed nothing */
    struct ftl *b = load_or_null(cfg, path, t2 + offset, err, sizeof(err));
    if (!check_record(b != NULL, __FILE__, __LINE__, name)) {
        fprintf(stderr, "    %s\n", err);
    } else {
        check_same(a, b, name);
        run_workload(a, 22, n2, 600, t2, oa);
        run_workload(b, 22, n2, 600, t2 + offset, ob);
        uint64_t differ = 0, served = 0;
        for (uint32_t i = 0; i < n2; i++) {
            differ += oa[i].rc != ob[i].rc || oa[i].latency != ob[i].latency ||
                      oa[i].zones != ob[i].zones;
            served += oa[i].rc == FTL_OK;
        }
        if (!check_record(differ == 0, __FILE__, __LINE__, name)) {
            fprintf(stderr, "    %llu of %u requests differ\n", (unsigned long long)differ,
                    n2);
        }
        CHECK(served > n2 / 2);
        check_same(a, b, name);
    }
    ftl_destroy(a);
    ftl_destroy(b);
    free(o1);
    free(oa);
    free(ob);
}

/* ---- configurations ---- */

/* 2 channels x 2 LUNs x 64 blocks x 16 pages, pages of spp sectors. */
static struct ftl_config base_config(uint64_t spp)
{
    struct ftl_config cfg = small_config(2, 2, 64, 16, spp);
    cfg.read_uncor_ppm = 0;
    return cfg;
}

/* 12 zones of 2 LUNs x 1 block beside the conventional lines; 3 open, 4 active at most;
 * zones wear out after 25 resets (read only, some then offline). */
static struct ftl_config zoned_config(void)
{
    struct ftl_config cfg = base_config(8);
    cfg.zoned = 1;
    cfg.zones = 12;
    cfg.zone_luns = 2;
    cfg.zone_cap = 2 * 16 * 4096;
    cfg.max_open = 3;
    cfg.max_active = 4;
    cfg.pe_cycles = 25;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

/* Streams: a buffered page is flushed into the stream that wrote it last. */
static struct ftl_config buffer_config(void)
{
    struct ftl_config cfg = base_config(4);
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 3;
    cfg.write_buffer_sectors = 96;
    cfg.buf_flush_pcent = 75;
    return cfg;
}

/* 512-byte pages: 128 entries a translation page, 256 cached of about 3000 logical. */
static struct ftl_config dftl_config(void)
{
    struct ftl_config cfg = base_config(1);
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 256;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

static struct ftl_config dftl_buffer_config(void)
{
    struct ftl_config cfg = base_config(2);
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 300;
    cfg.write_buffer_sectors = 64;
    cfg.buf_flush_pcent = 50;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

/* ---- refusals: crafted values (the edits: state_edit_test_util.h) ---- */

/* Crafted values each module's load must refuse itself, before anything indexes them. */
static void check_zone_crafted(const struct ftl_config *cfg)
{
    const uint64_t R = 34;  /* a zone's record: state, 3 counts, ZRWA byte, window end */
    size_t size;
    unsigned char *orig = read_whole(path, &size);
    const uint32_t tag = STATE_TAG('Z', 'O', 'N', 'E');
    uint64_t zones = cfg->zones, rec = 28, fifo = 28 + R * zones, len;
    const unsigned char *p = payload_of(orig, size, tag, &len);
    uint64_t nimp = get_le(p + fifo, 4), head = get_le(p + fifo + 4, 4), writable = 0;
    while (writable < zones && (p[rec + R * writable] == FTL_ZONE_READ_ONLY ||
                                p[rec + R * writable] == FTL_ZONE_OFFLINE)) {
        writable++;
    }
    CHECK(nimp >= 2 && writable < zones);
    check_refused(cfg, orig, size, tag, EDIT_AT(4, 8, zones + 1), "another zone geometry",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(rec, 1, 0x07), "zone 0: state 0x7 is not a "
                  "zone state", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(rec + 1, 8, 1u << 30), "zone 0: 1073741824 "
                  "sectors written", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(rec + R + 17, 8, 1u << 30), "zone 1: ",
                  __LINE__);
    /* a zone still writable after more resets than its blocks take */
    check_refused(cfg, orig, size, tag, EDIT_AT(rec + R * writable + 9, 8, 1000),
                  "after 1000 resets of 25", __LINE__);
    /* ZRWA bytes in a configuration without ZRWAs, and a window end without a ZRWA */
    check_refused(cfg, orig, size, tag, EDIT_AT(rec + 25, 1, 1), "zone 0: ZRWA flags 0x1 "
                  "and window end 0", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(rec + 25, 1, 0x80), "zone 0: ZRWA flags "
                  "0x80", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(rec + 26, 8, 5), "zone 0: ZRWA flags 0x0 "
                  "and window end 5", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(fifo, 4, nimp + 1), "implicitly open zones",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(fifo + 4, 4, zones), "list entry 0 (zone 12)",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(fifo + 4, 4, UINT32_MAX), "list entry 0",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(fifo + 8, 4, head), "list entry 1",
                  __LINE__);
    /* a full zone's write pointer short of its capacity: the whole-state check's */
    uint64_t full = 0;
    while (full < zones && p[rec + R * full] != FTL_ZONE_FULL) {
        full++;
    }
    if (full < zones) {
        check_refused(cfg, orig, size, tag, EDIT_AT(rec + R * full + 1, 8, 1),
                      "inconsistent state: zone", __LINE__);
    }
    free(orig);
}

static void check_dftl_crafted(const struct ftl_config *cfg)
{
    size_t size;
    unsigned char *orig = read_whole(path, &size);
    const uint32_t tag = STATE_TAG('D', 'F', 'T', 'L');
    struct ftl *ftl = make_ftl(cfg);
    uint64_t logical = ftl->geo.logical_pages;
    uint32_t nslots = ftl->dftl->nslots;
    ftl_destroy(ftl);
    check_refused(cfg, orig, size, tag, EDIT_AT(8, 4, nslots + 1), "CMT entries, this FTL",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(12, 4, nslots + 1), "CMT entries in",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(16, 4, logical), "CMT entry 0", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(20, 1, 2), "CMT entry 0", __LINE__);
    /* entry 1 caches entry 0's LPN again */
    uint64_t len;
    uint64_t lpn0 = get_le(payload_of(orig, size, tag, &len) + 16, 4);
    check_refused(cfg, orig, size, tag, EDIT_AT(21, 4, lpn0), "CMT entry 1", __LINE__);
    free(orig);
}

static void check_buffer_crafted(const struct ftl_config *cfg)
{
    size_t size;
    unsigned char *orig = read_whole(path, &size);
    const uint32_t tag = STATE_TAG('W', 'B', 'U', 'F');
    struct ftl *ftl = make_ftl(cfg);
    uint64_t logical = ftl->geo.logical_pages;
    uint32_t nentries = ftl->wbuf->nentries;
    ftl_destroy(ftl);
    check_refused(cfg, orig, size, tag, EDIT_AT(8, 4, nentries + 1), "this buffer has room",
                  __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(12, 4, logical), "page 0 (LPN", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(20, 8, 0), "page 0", __LINE__);
    check_refused(cfg, orig, size, tag, EDIT_AT(20, 8, 1u << cfg->secs_per_pg), "page 0",
                  __LINE__);
    /* entry 1 buffers entry 0's LPN again */
    uint64_t len;
    uint64_t lpn0 = get_le(payload_of(orig, size, tag, &len) + 12, 4);
    check_refused(cfg, orig, size, tag, EDIT_AT(28, 4, lpn0), "page 1", __LINE__);
    free(orig);
}

/* ---- the tests ---- */

static void test_zoned(void)
{
    struct ftl_config cfg = zoned_config();
    round_trip(&cfg, "zoned", 6000, 4000, 3 * SEC + 17);
    check_section_damage(&cfg, STATE_TAG('Z', 'O', 'N', 'E'));
    check_zone_crafted(&cfg);
}

static void test_write_buffer(void)
{
    struct ftl_config cfg = buffer_config();
    round_trip(&cfg, "write buffer", 6000, 4000, 0);
    round_trip(&cfg, "write buffer, restored later", 6000, 4000, 50 * SEC);
    check_section_damage(&cfg, STATE_TAG('W', 'B', 'U', 'F'));
    check_buffer_crafted(&cfg);
}

static void test_dftl(void)
{
    struct ftl_config cfg = dftl_config();
    round_trip(&cfg, "dftl", 6000, 4000, SEC);
    check_section_damage(&cfg, STATE_TAG('D', 'F', 'T', 'L'));
    check_dftl_crafted(&cfg);
}

static void test_dftl_with_buffer(void)
{
    struct ftl_config cfg = dftl_buffer_config();
    round_trip(&cfg, "dftl + write buffer", 6000, 4000, 7);
    check_section_damage(&cfg, STATE_TAG('D', 'F', 'T', 'L'));
    check_section_damage(&cfg, STATE_TAG('W', 'B', 'U', 'F'));

    /* all three modules in one FTL */
    struct ftl_config all = zoned_config();
    all.mapping = FTL_MAPPING_DFTL;
    all.cmt_entries = 1024;
    all.write_buffer_sectors = 128;
    all.devsz_mb = 1;
    all.devsz_mb = ftl_config_max_devsz_mb(&all);
    round_trip(&all, "zoned + dftl + write buffer", 6000, 4000, SEC);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/ftl.state", dir);
    snprintf(copy_path, sizeof(copy_path), "%s/copy.state", dir);
    test_zoned();
    test_write_buffer();
    test_dftl();
    test_dftl_with_buffer();
    unlink(path);
    unlink(copy_path);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
