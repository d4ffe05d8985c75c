/* FTL state files: a restored FTL behaves as the one that was saved (the same counters,
 * write counts, mappings and latencies for the same requests afterwards), every damaged
 * or inconsistent file and every other configuration is refused with one line, a failed
 * save keeps the old file, and a young FTL's file is small. */
#include "base/max_u64.h"
#include "map/dftl.h"
#include "place/write_count.h"
#include "femu_ftl/state.h"
#include "ftl_test_util.h"
#include "ftl_state_test_util.h"
#include "file_test_util.h"

#include <sys/stat.h>
#include <unistd.h>

#define SEC 1000000000ull

static char dir[] = "/tmp/femu-test-state-XXXXXX";
static char path[256];

/* One request's outcome: status and latency (completion less arrival). */
struct outcome {
    int rc;
    uint64_t latency;
};

/*
 * n requests from seed, the first arriving at start: mostly writes of 1-4 pages over the
 * whole logical space with a hot eighth, some reads and trims, background GC after each.
 * out[i] gets request i's outcome.
 */
static void run_workload(struct ftl *ftl, uint64_t seed, uint32_t n, uint64_t start,
                         struct outcome *out)
{
    const struct ftl_config *cfg = ftl_config_of(ftl);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, now = start, s = seed;
    uint32_t nwps = ftl_write_pointer_count(ftl);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t r = next_rand(&s), len = 1 + r % 4;
        uint64_t lpn = r % 8 < 5 ? next_rand(&s) % (pages / 8) : next_rand(&s) % pages;
        if (lpn + len > pages) {
            lpn = pages - len;
        }
        struct ftl_io io = page_io(ftl, now, lpn, len, (uint32_t)(r % nwps));
        uint64_t done = now;
        uint64_t kind = next_rand(&s) % 16;
        if (kind < 12) {
            out[i].rc = ftl_write(ftl, &io, &done);
        } else if (kind < 15) {
            out[i].rc = ftl_read(ftl, &io, &done);
        } else {
            out[i].rc = ftl_trim(ftl, &io, &done);
        }
        out[i].latency = done - now;
        ftl_background_gc(ftl, now);
        now += 2000 + next_rand(&s) % (cfg->pg_wr_lat / 4 + 1);
    }
}

/* What a host can see of two FTLs agrees, and the restored one holds together. */
static void check_same(const struct ftl *a, const struct ftl *b, const char *what)
{
    check_core_same(a, b, what);
    if (a->heat || b->heat) {   /* hot_decay: the aged counts and the halving's tick */
        CHECK(a->heat && b->heat && a->heat_ticks == b->heat_ticks &&
              memcmp(a->heat, b->heat, a->geo.logical_pages * sizeof(*a->heat)) == 0);
    }
    CHECK_CONSISTENT(b);
}

/* Saves made while paced GC owed the flash some of a collection's moves. */
static unsigned saved_mid_gc;

/* round_trip's offset that restores at Z's clock's 0, as ftl-sim restores (the device
 * restores at its host clock's reading): the saved lines' ages reach back before it. */
#define AT_CLOCK_ZERO UINT64_MAX

/*
 * X runs W1 then W2; Y runs W1 and saves; Z is restored from Y's file `offset` ns later
 * on its clock (AT_CLOCK_ZERO: at its time 0) and runs W2 shifted by as much (modulo
 * 2^64). Z ends as X did, request for request.
 */
static void round_trip(const struct ftl_config *cfg, const char *name, uint32_t n1,
                       uint32_t n2, uint64_t offset)
{
    char err[512] = "";
    struct ftl *x = make_ftl(cfg), *y = make_ftl(cfg);
    struct outcome *o1 = calloc(n1, sizeof(*o1)), *ox = calloc(n2, sizeof(*ox));
    struct outcome *oz = calloc(n2, sizeof(*oz));
    run_workload(x, 11, n1, 0, o1);
    run_workload(y, 11, n1, 0, o1);
    /* a page written past 16 bits of count: the overflow table travels too */
    uint32_t hot = (uint32_t)(x->geo.logical_pages / 3);
    CHECK(wc_set(x, hot, 70000 + wc_get(x, hot)) && wc_set(y, hot, 70000 + wc_get(y, hot)));
    x->max_lpn_plus_one = y->max_lpn_plus_one = max_u64(x->max_lpn_plus_one, hot + 1);
    saved_mid_gc += y->gc_debt_moves > 0;
    uint64_t t2 = idle_time(x) + SEC;
    CHECK_EQ_U64(idle_time(y) + SEC, t2);
    if (offset == AT_CLOCK_ZERO) {
        offset = 0 - t2;
    }
    if (!check_record(ftl_state_save_file(y, path, "test", t2, err, sizeof(err)) == 0,
                      __FILE__, __LINE__, name)) {
        fprintf(stderr, "    %s\n", err);
    }
    struct ftl *z = load_or_null(cfg, path, t2 + offset, err, sizeof(err));
    if (!check_record(z != NULL, __FILE__, __LINE__, name)) {
        fprintf(stderr, "    %s\n", err);
    } else {
        check_same(y, z, name);
        for (uint32_t i = 0; i < y->nunits; i++) {
            if (y->lines[i].state == LINE_FULL || y->lines[i].state == LINE_VICTIM) {
                CHECK_EQ_U64(z->lines[i].written_ns, y->lines[i].written_ns + offset);
            }
        }
        run_workload(x, 12, n2, t2, ox);
        run_workload(z, 12, n2, t2 + offset, oz);
        uint64_t differ = 0;
        for (uint32_t i = 0; i < n2; i++) {
            differ += ox[i].rc != oz[i].rc || ox[i].latency != oz[i].latency;
        }
        if (!check_record(differ == 0, __FILE__, __LINE__, name)) {
            fprintf(stderr, "    %llu of %u requests differ\n", (unsigned long long)differ, n2);
        }
        check_same(x, z, name);
        CHECK(counters(x).gc_moved_pages + counters(x).gc_erased_blocks > 0);
    }
    ftl_destroy(x);
    ftl_destroy(y);
    ftl_destroy(z);
    free(o1);
    free(ox);
    free(oz);
}

/* 2 channels x 2 LUNs x 64 blocks x 16 pages of 4 KiB: 16 MiB raw. */
static struct ftl_config base_config(void)
{
    struct ftl_config cfg = small_config(2, 2, 64, 16, 8);
    cfg.read_uncor_ppm = 0;
    return cfg;
}

static void test_round_trips(void)
{
    struct ftl_config cfg = base_config();
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 2;
    round_trip(&cfg, "hotcold, paced GC", 12000, 6000, 0);
    round_trip(&cfg, "hotcold, paced GC, restored later", 12000, 6000, 77 * SEC + 123);
    cfg.hot_decay = 1024;   /* counts that age: several halvings before and after */
    round_trip(&cfg, "hotcold, counts that age", 12000, 6000, 5 * SEC);

    cfg = base_config();
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    cfg.gc_mode = FTL_GC_LINE;
    cfg.gc_policy = FTL_GC_COST_BENEFIT;
    round_trip(&cfg, "gc_unit=block, cost_benefit", 12000, 6000, 5 * SEC);

    cfg = base_config();
    cfg.bad_blk_pcent = 10;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    cfg.read_uncor_ppm = 2000;
    cfg.gc_policy = FTL_GC_DCHOICE;
    round_trip(&cfg, "bad blocks, read faults, dchoice", 12000, 6000, 3);

    cfg = base_config();
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 3;
    cfg.gc_mode = FTL_GC_LINE;
    cfg.gc_policy = FTL_GC_FIFO;
    round_trip(&cfg, "streams, whole-line fifo GC", 12000, 6000, SEC);
    CHECK(saved_mid_gc >= 2);
}

/*
 * A state restored at the clock's 0 (ftl-sim's --state-in) keeps its lines' ages, as one
 * restored at a host clock's reading (the device's) does: the victims that weigh ages
 * are the same, so a replay of a device's recording from a state is the device's run.
 * (Restores clamped times at 0, so in ftl-sim every restored line was as young as the
 * replay's origin: a placed FDP lab run replayed 2.5 % above the device's WAF.)
 */
static void test_round_trips_at_clock_zero(void)
{
    struct ftl_config cfg = base_config();
    cfg.gc_policy = FTL_GC_COST_BENEFIT;
    round_trip(&cfg, "cost_benefit, restored at 0", 12000, 6000, AT_CLOCK_ZERO);
    round_trip(&cfg, "cost_benefit, restored at a host clock", 12000, 6000,
               UINT64_C(31831) * SEC);

    cfg = base_config();
    cfg.placement = FTL_PLACEMENT_FDP;
    cfg.fdp_ruhs = 2;
    cfg.gc_scope = FTL_GC_SCOPE_GLOBAL;
    round_trip(&cfg, "fdp, 2 handles, gc_scope=global, restored at 0", 12000, 6000,
               AT_CLOCK_ZERO);
}

/* ---- refusals ---- */

/* Whether restoring these bytes into a fresh FTL of cfg is refused with one line. */
static bool refused(const struct ftl_config *cfg, const void *bytes, size_t size, char *err,
                    size_t errlen)
{
    char copy[300];
    snprintf(copy, sizeof(copy), "%s/copy", dir);
    write_whole(copy, bytes, size);
    err[0] = '\0';
    struct ftl *ftl = load_or_null(cfg, copy, 0, err, errlen);
    ftl_destroy(ftl);
    unlink(copy);
    return ftl == NULL && err[0] && !strchr(err, '\n');
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The sections of a state file's bytes (layout in state_file.h), END excluded. */
struct section_view {
    uint32_t tag;
    size_t payload;
    uint64_t len;
};

static size_t list_sections(const unsigned char *b, size_t size, struct section_view *out,
                            size_t room)
{
    size_t n = 0;
    for (size_t at = 24; at + 16 <= size && n < room;) {
        struct section_view s = { le32(b + at), at + 16, le64(b + at + 8) };
        if (s.tag == STATE_TAG_END) {
            break;
        }
        out[n++] = s;
        at = s.payload + s.len + 4;
    }
    return n;
}

/* The file again, with section `tag`'s payload replaced by fix's result (CRCs valid). */
static void rewrite_with(const unsigned char *b, size_t size, const char *p, uint32_t tag,
                         void (*fix)(unsigned char *payload, uint64_t len))
{
    struct section_view s[64];
    size_t n = list_sections(b, size, s, 64);
    char err[256];
    struct state_writer *w = state_writer_open(p, err, sizeof(err));
    for (size_t i = 0; i < n; i++) {
        unsigned char *copy = malloc(s[i].len + 1);
        memcpy(copy, b + s[i].payload, s[i].len);
        if (s[i].tag == tag) {
            fix(copy, s[i].len);
        }
        state_writer_section(w, s[i].tag, copy, s[i].len);
        free(copy);
    }
    CHECK(state_writer_commit(w, err, sizeof(err)) == 0);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

/* FLIN: line 3's heap_pos (each record 43 bytes after the u32 version: layout 3). */
static void bad_heap_pos(unsigned char *payload, uint64_t len)
{
    (void)len;
    put32(payload + 4 + 3 * 43 + 8, 99999);
}

/* FQUE: the first free ring entry names a line that does not exist. */
static void bad_free_entry(unsigned char *payload, uint64_t len)
{
    (void)len;
    put32(payload + 8, 1u << 30);
}

/* FBLK: block 0's valid count off by one: only the whole-state check can tell. */
static void bad_block_count(unsigned char *payload, uint64_t len)
{
    (void)len;
    put32(payload + 4, le32(payload + 4) + 1);
}

/* FCOR: one counter fewer. */
static void bad_counter_count(unsigned char *payload, uint64_t len)
{
    (void)len;
    put32(payload + 4 + 64, le32(payload + 4 + 64) - 1);
}

static void test_refusals(void)
{
    char err[512] = "";
    struct ftl_config cfg = base_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct outcome *o = calloc(3000, sizeof(*o));
    run_workload(ftl, 5, 3000, 0, o);
    free(o);
    CHECK(ftl_state_save_file(ftl, path, "test", idle_time(ftl), err, sizeof(err)) == 0);
    ftl_destroy(ftl);
    size_t size;
    unsigned char *orig = read_whole(path, &size), *bytes = malloc(size);

    unsigned long accepted = 0;
    for (size_t cut = 0; cut < size; cut = cut < 400 ? cut + 1 : cut + size / 29 + 1) {
        accepted += !refused(&cfg, orig, cut, err, sizeof(err));
    }
    CHECK_EQ_U64(accepted, 0);
    CHECK(refused(&cfg, orig, size - 3, err, sizeof(err)));
    CHECK_CONTAINS(err, "truncated");

    struct section_view s[64];
    size_t n = list_sections(orig, size, s, 64);
    CHECK(n >= 9);
    for (size_t i = 0; i < n; i++) {
        char name[5];
        memcpy(bytes, orig, size);
        bytes[s[i].payload + s[i].len / 2] ^= 0x10;
        bool r = refused(&cfg, bytes, size, err, sizeof(err));
        if (!check_record(r && strstr(err, "CRC mismatch"), __FILE__, __LINE__,
                          "flipped byte refused")) {
            fprintf(stderr, "    section %s: %s\n", state_tag_name(s[i].tag, name), err);
        }
    }
    memcpy(bytes, orig, size);
    bytes[8] = 2;
    CHECK(refused(&cfg, bytes, size, err, sizeof(err)));
    CHECK_CONTAINS(err, "state format version 2");
    memcpy(bytes, orig, size);
    memcpy(bytes, "FEMUSTAX", 8);
    CHECK(refused(&cfg, bytes, size, err, sizeof(err)));
    CHECK_CONTAINS(err, "not a femu state file");
    CHECK(refused(&cfg, orig, 0, err, sizeof(err)));
    CHECK_CONTAINS(err, "empty");

    /* configurations */
    struct ftl_config other = cfg;
    other.placement = FTL_PLACEMENT_HOTCOLD;
    CHECK(load_or_null(&other, path, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "recorded with placement=single, this device has placement=hotcold");
    other = cfg;
    other.fault_seed = 99;
    CHECK(load_or_null(&other, path, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "fault_seed");
    other = cfg;
    other.pg_rd_lat *= 3;
    other.read_uncor_ppm = 10;
    other.gc_policy = FTL_GC_FIFO;
    other.gc_thres_pcent_high = 90;
    other.hot_threshold = 7;
    struct ftl *ok = load_or_null(&other, path, 0, err, sizeof(err));
    CHECK(ok != NULL);
    ftl_destroy(ok);

    /* paths */
    CHECK(load_or_null(&cfg, dir, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "directory");
    char missing[300];
    snprintf(missing, sizeof(missing), "%s/missing", dir);
    CHECK(load_or_null(&cfg, missing, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "No such file");
    if (geteuid() != 0) {
        chmod(path, 0);
        CHECK(load_or_null(&cfg, path, 0, err, sizeof(err)) == NULL);
        CHECK_CONTAINS(err, "Permission denied");
        chmod(path, 0644);
    }

    /* CRC-valid files that do not hold together */
    char crafted[300];
    snprintf(crafted, sizeof(crafted), "%s/crafted", dir);
    rewrite_with(orig, size, crafted, STATE_TAG('F', 'L', 'I', 'N'), bad_heap_pos);
    CHECK(load_or_null(&cfg, crafted, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "section FLIN: line 3");
    CHECK_CONTAINS(err, "heap_pos 99999");
    rewrite_with(orig, size, crafted, STATE_TAG('F', 'Q', 'U', 'E'), bad_free_entry);
    CHECK(load_or_null(&cfg, crafted, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "section FQUE: free pool 0 out of range");
    rewrite_with(orig, size, crafted, STATE_TAG('F', 'B', 'L', 'K'), bad_block_count);
    CHECK(load_or_null(&cfg, crafted, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "inconsistent state: block");
    rewrite_with(orig, size, crafted, STATE_TAG('F', 'C', 'O', 'R'), bad_counter_count);
    CHECK(load_or_null(&cfg, crafted, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "counters");
    unlink(crafted);
    free(bytes);
    free(orig);
}

/* ---- atomicity and size ---- */

static void test_failed_save_keeps_old_file(void)
{
    char err[256] = "";
    struct ftl_config cfg = base_config();
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 10, NULL) == FTL_OK);
    CHECK(ftl_state_save_file(ftl, path, "test", SEC, err, sizeof(err)) == 0);
    size_t size, after;
    void *old = read_whole(path, &size);
    /* a translation page queued for a rewrite (only ever inside a request) is refused,
     * after the sections before DFTL's were written */
    cfg.mapping = FTL_MAPPING_DFTL;
    struct ftl *dftl = make_ftl(&cfg);
    dftl_note_update(dftl, 3);
    CHECK(ftl_state_save_file(dftl, path, "test", 0, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "section DFTL: 1 translation pages still queued");
    dftl_write_pending(dftl, false, 0);
    void *now = read_whole(path, &after);
    CHECK(after == size && memcmp(old, now, size) == 0);
    CHECK_EQ_U64(temporaries_left(dir), 0);
    /* a writer given up half way leaves the file too */
    struct state_writer *w = state_writer_open(path, err, sizeof(err));
    CHECK(ftl_state_save(ftl, w, SEC, err, sizeof(err)) == 0);
    state_writer_abort(w);
    free(now);
    now = read_whole(path, &after);
    CHECK(after == size && memcmp(old, now, size) == 0);
    CHECK_EQ_U64(temporaries_left(dir), 0);
    free(old);
    free(now);
    ftl_destroy(ftl);
    ftl_destroy(dftl);
}

/* A young FTL (FEMU's default 16 GiB, a few MiB written) stores few of its map bytes. */
static void test_young_file_is_small(void)
{
    char err[256] = "";
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    for (uint64_t i = 0; i < 64; i++) {
        CHECK(write_pages(ftl, i * 1000, i * 97, 16, NULL) == FTL_OK);
    }
    CHECK(ftl_state_save_file(ftl, path, "test", SEC, err, sizeof(err)) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint64_t dense = g->logical_pages * 4 + g->phys_pages * 4 + g->logical_pages * 2;
    CHECK((uint64_t)st.st_size * 20 < dense);
    struct ftl *back = load_or_null(&cfg, path, SEC, err, sizeof(err));
    CHECK(back != NULL);
    if (back) {
        check_same(ftl, back, "young");
    }
    ftl_destroy(back);
    ftl_destroy(ftl);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/ftl.state", dir);
    test_round_trips();
    test_round_trips_at_clock_zero();
    test_refusals();
    test_failed_save_keeps_old_file();
    test_young_file_is_small();
    unlink(path);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
