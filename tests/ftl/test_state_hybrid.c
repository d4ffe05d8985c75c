/*
 * State files of the hybrid mappings (section HYBR, state/ftl_state_hybrid.c) under block,
 * BAST and FAST mapping. After a workload with merges of every type, a restored FTL holds
 * the saved one's tables (each LBN's data block, each unit's role, owner, next offset and
 * flag, BAST's LRU order, FAST's SW and random-log FIFO) and both then serve the same
 * requests with the same latencies, counters and tables. The section missing, cut, padded
 * or with any byte changed is refused with one line or restores a consistent FTL; each
 * field crafted out of range is refused naming it; a file of another mapping is refused
 * by the configuration.
 */
#include "femu_ftl/engine.h"
#include "femu_ftl/state.h"
#include "hybrid_tables_test_util.h"
#include "ftl_state_test_util.h"
#include "file_test_util.h"

#include <unistd.h>

#define SEC 1000000000ull
#define PPB 16u

static char dir[] = "/tmp/femu-test-state-hybrid-XXXXXX";
static char path[256], copy_path[256];

#include "state_edit_test_util.h"

static uint64_t below(uint64_t *s, uint64_t n)
{
    return next_rand(s) % n;
}

/*
 * n requests from seed through an engine, the first at start: single-page writes over a
 * hot quarter and everywhere (overwrites: logs, merges), runs from a logical block's
 * offset 0 (whole: switch merges; a prefix: partial), writes of sectors within a page,
 * reads, trims. Each request's status and latency into rc and lat.
 */
static void run_workload(struct ftl *ftl, uint64_t seed, uint32_t n, uint64_t start, int *rc,
                         uint64_t *lat)
{
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    uint64_t spp = ftl_config_of(ftl)->secs_per_pg;
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, lbns = pages / PPB;
    uint64_t now = start, s = seed;
    for (uint32_t i = 0; i < n; i++) {
        struct ftl_request req = { .arrival_ns = now, .op = FTL_OP_WRITE };
        uint64_t kind = below(&s, 100), lpn = below(&s, below(&s, 2) ? pages / 4 : pages);
        uint64_t npages = 1;
        if (kind < 12) {            /* a run from offset 0 of a logical block */
            lpn = below(&s, lbns) * PPB;
            npages = kind < 6 ? PPB : 1 + below(&s, PPB - 1);
        } else if (kind < 70) {
            npages = 1;
        } else if (kind < 88) {
            req.op = FTL_OP_READ;
            npages = 1 + below(&s, 4);
        } else if (kind < 96) {
            req.op = FTL_OP_TRIM;
            npages = 1 + below(&s, 3);
        }
        npages = lpn + npages > pages ? pages - lpn : npages;
        req.slba = lpn * spp;
        req.nlb = npages * spp;
        if (kind >= 96) {           /* part of one page: the rest read and written back */
            req.slba += below(&s, spp);
            req.nlb = 1;
        }
        struct ftl_served served = { .done_ns = now };
        rc[i] = ftl_engine_serve(e, &req, &served);
        lat[i] = served.done_ns - now;
        now += 20000 + below(&s, 200000);
    }
    ftl_engine_destroy(e);
}

/* The hybrid tables of a and b agree: entries, units, and the lists in their order. */
static void check_hybrid_same(const struct ftl *a, const struct ftl *b)
{
    const struct hybrid *ha = a->hybrid, *hb = b->hybrid;
    uint64_t differ = 0;
    CHECK(memcmp(ha->data, hb->data, ha->nlbn * sizeof(uint32_t)) == 0);
    for (uint32_t u = 0; u < ha->nunits; u++) {
        const struct hybrid_unit *x = &ha->units[u], *y = &hb->units[u];
        differ += x->owner != y->owner || x->next != y->next || x->role != y->role ||
                  (x->role != HYBRID_NONE && x->in_order != y->in_order);
    }
    CHECK_EQ_U64(differ, 0);
    CHECK_EQ_U64(ha->next_pool, hb->next_pool);
    CHECK_EQ_U64(ha->logs_used, hb->logs_used);
    if (ha->log) {
        uint32_t i = ha->log_lru.lru, j = hb->log_lru.lru, order_differ = 0;
        for (; i != LRU_NONE && j != LRU_NONE; i = ha->units[i].link.newer,
             j = hb->units[j].link.newer) {
            order_differ += i != j;
        }
        CHECK(i == LRU_NONE && j == LRU_NONE && order_differ == 0);
        CHECK(memcmp(ha->log, hb->log, ha->nlbn * sizeof(uint32_t)) == 0);
    }
    CHECK_EQ_U64(ha->sw, hb->sw);
    CHECK_EQ_U64(ha->rw_count, hb->rw_count);
    for (uint32_t k = 0; k < ha->rw_count; k++) {
        CHECK_EQ_U64(ha->rw[(ha->rw_head + k) % ha->rw_cap],
                     hb->rw[(hb->rw_head + k) % hb->rw_cap]);
    }
}

static void check_same(const struct ftl *a, const struct ftl *b, const char *what)
{
    check_core_same(a, b, what);
    check_hybrid_same(a, b);
    CHECK_CONSISTENT(b);
}

/* The saved FTL merged every way its scheme does and holds logs, so the file carries
 * them. */
static void check_busy(const struct ftl *ftl, const char *name)
{
    struct ftl_counters c = counters(ftl);
    const struct hybrid *h = ftl->hybrid;
    printf("  %s at the save: %llu switch, %llu partial, %llu full merges, %llu pages "
           "copied, %llu blocks erased; %u BAST logs, %u FAST random logs%s\n", name,
           (unsigned long long)c.merge_switch, (unsigned long long)c.merge_partial,
           (unsigned long long)c.merge_full, (unsigned long long)c.merge_copied_pages,
           (unsigned long long)c.merge_erased_blocks, h->logs_used, h->rw_count,
           h->sw != NO_LINE ? " and the SW" : "");
    CHECK(c.merge_full > 0 && c.merge_copied_pages > 0);
    if (h->scheme != FTL_MAPPING_BLOCK) {
        CHECK(c.merge_switch > 0 && c.merge_partial > 0);
    }
    if (h->scheme == FTL_MAPPING_BAST) {
        CHECK(h->logs_used >= 2);
    }
    if (h->scheme == FTL_MAPPING_FAST) {
        CHECK(h->rw_count >= 2 && h->sw != NO_LINE);
    }
}

/*
 * A runs n1 requests and is saved at t2 (its LUNs idle) to path; B is restored from it
 * `offset` ns later. B holds what A holds; then both run the same n2 requests: the same
 * status and latency each, and the same counters and tables after.
 */
static void round_trip(const struct ftl_config *cfg, const char *name, uint32_t n1,
                       uint32_t n2, uint64_t offset)
{
    char err[512] = "";
    struct ftl *a = make_ftl(cfg);
    int *rc = calloc(n1 + 2 * n2, sizeof(int));
    uint64_t *lat = calloc(n1 + 2 * n2, sizeof(uint64_t));
    run_workload(a, 31, n1, 0, rc, lat);
    check_busy(a, name);
    uint64_t t2 = idle_time(a) + SEC;
    if (!check_record(ftl_state_save_file(a, path, "test", t2, err, sizeof(err)) == 0,
                      __FILE__, __LINE__, name)) {
        fprintf(stderr, "    %s\n", err);
    }
    struct ftl *b = load_or_null(cfg, path, t2 + offset, err, sizeof(err));
    if (!check_record(b != NULL, __FILE__, __LINE__, name)) {
        fprintf(stderr, "    %s\n", err);
    } else {
        check_same(a, b, name);
        struct ftl_counters before = counters(a);
        run_workload(a, 32, n2, t2, rc + n1, lat + n1);
        run_workload(b, 32, n2, t2 + offset, rc + n1 + n2, lat + n1 + n2);
        uint64_t differ = 0;
        for (uint32_t i = n1; i < n1 + n2; i++) {
            differ += rc[i] != rc[i + n2] || lat[i] != lat[i + n2];
        }
        if (!check_record(differ == 0, __FILE__, __LINE__, name)) {
            fprintf(stderr, "    %llu of %u requests differ\n", (unsigned long long)differ, n2);
        }
        CHECK(counters(a).gc_runs > before.gc_runs);     /* the second run merged too */
        check_same(a, b, name);
    }
    ftl_destroy(a);
    ftl_destroy(b);
    free(rc);
    free(lat);
}

/* ---- crafted fields ---- */

/* Where HYBR's fields are (ftl_state_hybrid.c's layout) for tables h. */
struct hybr_layout {
    uint64_t units, lru, fast;
};

static struct hybr_layout layout_of(const struct hybrid *h)
{
    struct hybr_layout l;
    l.units = 28 + 4 * (uint64_t)h->nlbn;
    l.lru = l.units + 10 * (uint64_t)h->nunits;
    l.fast = l.lru + 4 + 4 * (uint64_t)(h->log ? h->logs_used : 0);
    return l;
}

#define REFUSED(off, n, v, want) check_refused(cfg, orig, size, tag, EDIT_AT(off, n, v), \
                                               want, __LINE__)

/* Each field of the file at path (saved from ftl) set out of range: refused naming it. */
static void check_crafted(const struct ftl_config *cfg, const struct ftl *ftl)
{
    const uint32_t tag = STATE_TAG('H', 'Y', 'B', 'R');
    const struct hybrid *h = ftl->hybrid;
    struct hybr_layout at = layout_of(h);
    size_t size;
    unsigned char *orig = read_whole(path, &size);
    char want[160];
    uint32_t d = hybrid_unit_of(ftl, HYBRID_DATA, NO_LBN, 0);
    uint32_t d2 = hybrid_unit_of(ftl, HYBRID_DATA, NO_LBN, 1);
    uint32_t lbn = h->units[d].owner, lbn2 = h->units[d2].owner;
    uint32_t free_unit = hybrid_unit_of(ftl, HYBRID_NONE, NO_LBN, 0);
    CHECK(ftl->lines[free_unit].state == LINE_FREE);

    REFUSED(4, 4, h->scheme == FTL_MAPPING_BAST ? FTL_MAPPING_FAST : FTL_MAPPING_BAST,
            "this FTL has");
    REFUSED(12, 4, h->nlbn + 1, "this FTL has");
    REFUSED(24, 4, ftl->npools, "next_pool");
    snprintf(want, sizeof(want), "data[%u]: unit %u of", lbn, h->nunits);
    REFUSED(28 + 4 * lbn, 4, h->nunits, want);
    snprintf(want, sizeof(want), "unit %u: a data block of LBN %u, whose data[] is unit %u",
             d, lbn, d2);
    REFUSED(28 + 4 * lbn, 4, d2, want);
    snprintf(want, sizeof(want), "unit %u: role 9 is not one of", d);
    REFUSED(at.units + 10 * d + 8, 1, 9, want);
    snprintf(want, sizeof(want), "unit %u: role 1, but its line state is %u", free_unit,
             LINE_FREE);
    REFUSED(at.units + 10 * free_unit + 8, 1, HYBRID_DATA, want);
    snprintf(want, sizeof(want), "unit %u: owner %u", d, h->nlbn);
    REFUSED(at.units + 10 * d, 4, h->nlbn, want);
    snprintf(want, sizeof(want), "unit %u: a data block of LBN %u, whose data[] is unit %u",
             d, lbn2, d2);
    REFUSED(at.units + 10 * d, 4, lbn2, want);
    snprintf(want, sizeof(want), "unit %u: next offset %u of %u pages", d, PPB + 1, PPB);
    REFUSED(at.units + 10 * d + 4, 4, PPB + 1, want);
    REFUSED(at.units + 10 * d + 9, 1, 2, "in-order flag 2");
    /* in range, but not what the pages say: the whole-state check's */
    uint32_t next = h->units[d].next;
    CHECK(next > 0);
    snprintf(want, sizeof(want), "inconsistent state: hybrid unit %u (data block of LBN %u): "
             "page %u is programmed", d, lbn, next - 1);
    REFUSED(at.units + 10 * d + 4, 4, next - 1, want);

    if (h->scheme == FTL_MAPPING_BAST) {
        uint32_t first = h->log_lru.lru, second = h->units[first].link.newer;
        REFUSED(at.lru, 4, h->logs_used + 1, "log LRU of");
        REFUSED(at.lru + 8, 4, first, "log LRU entry 1");
        /* the later of two log blocks given the earlier one's LBN */
        uint32_t early = first < second ? first : second, late = first ^ second ^ early;
        snprintf(want, sizeof(want), "unit %u: a second log block of LBN %u (unit %u)", late,
                 h->units[early].owner, early);
        REFUSED(at.units + 10 * late, 4, h->units[early].owner, want);
    }
    if (h->scheme == FTL_MAPPING_FAST) {
        REFUSED(at.fast, 4, d, "sequential log unit");
        REFUSED(at.fast, 4, NO_LINE, "sequential log unit 4294967295, 1 units");
        REFUSED(at.fast + 4, 4, h->rw_count + 1, "random log FIFO of");
        REFUSED(at.fast + 12, 4, h->rw[h->rw_head], "random log FIFO entry 1");
    }
    free(orig);
}

/* The file at path, of mapping `saved`, restored under mapping `other`: refused by the
 * configuration, naming mapping. */
static void check_other_mapping(const struct ftl_config *cfg, enum ftl_mapping other)
{
    struct ftl_config mine = *cfg;
    mine.mapping = other;
    char err[512] = "";
    struct ftl *ftl = load_or_null(&mine, path, SEC, err, sizeof(err));
    CHECK(ftl == NULL);
    CHECK_CONTAINS(err, "recorded with mapping=");
    ftl_destroy(ftl);
}

static void test_scheme(enum ftl_mapping mapping, const char *name, enum ftl_mapping other)
{
    struct ftl_config cfg = hybrid_small_config(mapping, 6);
    round_trip(&cfg, name, 3000, 1500, 0);
    round_trip(&cfg, name, 3000, 1500, 40 * SEC + 3);
    check_section_damage(&cfg, STATE_TAG('H', 'Y', 'B', 'R'));
    /* the file's tables, for the crafted fields */
    char err[512] = "";
    struct ftl *saved = load_or_null(&cfg, path, SEC, err, sizeof(err));
    CHECK(saved != NULL);
    if (saved) {
        check_crafted(&cfg, saved);
    }
    ftl_destroy(saved);
    check_other_mapping(&cfg, other);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/ftl.state", dir);
    snprintf(copy_path, sizeof(copy_path), "%s/copy.state", dir);
    test_scheme(FTL_MAPPING_BLOCK, "block", FTL_MAPPING_BAST);
    test_scheme(FTL_MAPPING_BAST, "bast", FTL_MAPPING_FAST);
    test_scheme(FTL_MAPPING_FAST, "fast", FTL_MAPPING_PAGE);
    unlink(path);
    unlink(copy_path);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
