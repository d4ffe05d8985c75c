/*
 * State files of every earlier layout version still load (tests/ftl/fixtures/state: one
 * kept file per version and configuration, each written by that version's ftl-sim; the
 * README there says how). Each loads into an FTL of the configuration its CONF section
 * names, with ftl_check passing; its counters, paced GC's debt, FDP events and SLC cache
 * are the ones its FCOR holds (from layout 6 on, the sections of their own); a follow-up workload keeps it consistent; and its state
 * saved in this build's layout (debt, events and cache in sections of their own) loads
 * and saves again byte for byte, FDP events and all. Each of those three sections, damaged
 * or crafted out of range, is refused with one line naming it.
 */
#include "femu_ftl/fdp.h"
#include "femu_ftl/state.h"
#include "flash/debt.h"
#include "flash/ftl_handle.h"
#include "ftl_test_util.h"
#include "ftl_state_test_util.h"
#include "file_test_util.h"

#include <unistd.h>

static char dir[] = "/tmp/femu-test-state-versions-XXXXXX";
static char path_a[256], path_b[256];

/* Each kept file and the layout version its FCOR must carry. */
static const struct kept {
    const char *name;
    uint32_t layout;
    bool slc;          /* the SLC cache configuration (else FDP with DFTL) */
} kept[] = {
    { "v2-fdp-dftl.state", 2, false },
    { "v3-fdp-dftl.state", 3, false },
    { "v3-slc.state", 3, true },
    { "v4-fdp-dftl.state", 4, false },
    { "v4-slc.state", 4, true },
    { "v5-fdp-dftl.state", 5, false },
    { "v5-slc.state", 5, true },
    { "v6-fdp-dftl.state", 6, false },
    { "v6-slc.state", 6, true },
    { "v7-fdp-dftl.state", 7, false },
    { "v7-slc.state", 7, true },
    { "v8-fdp-dftl.state", 8, false },
    { "v8-slc.state", 8, true },
};

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Section tag's payload in a file's bytes and its length, or NULL (after the file's
 * 24-byte header, each section: 16 bytes with the tag at 0 and the length at 8, the
 * payload, a 4-byte CRC). */
static const unsigned char *find_section(const unsigned char *b, size_t size, uint32_t tag,
                                         uint64_t *len)
{
    for (size_t at = 24; at + 16 <= size;) {
        *len = le64(b + at + 8);
        if (le32(b + at) == tag) {
            return b + at + 16;
        }
        at += 16 + *len + 4;
    }
    return NULL;
}

/* The configuration a file's CONF section names, key by key. */
static struct ftl_config config_of(const unsigned char *b, size_t size)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    uint64_t len = 0;
    const unsigned char *conf = find_section(b, size, STATE_TAG_CONF, &len);
    CHECK(conf != NULL);
    char *text = strndup((const char *)conf, conf ? len : 0), *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '='), err[256] = "";
        CHECK(eq != NULL);
        *eq = '\0';
        if (!check_record(ftl_config_set(&cfg, line, eq + 1, err, sizeof(err)) == 0,
                          __FILE__, __LINE__, "CONF key")) {
            fprintf(stderr, "    %s\n", err);
        }
    }
    free(text);
    return cfg;
}

/* FCOR's counters, in every layout: the loaded FTL holds them, and 0 for the later ones. */
static void check_fcor_counters(const struct ftl *ftl, const unsigned char *f)
{
    uint32_t ncounters = le32(f + 4 + 64);
    struct ftl_counters c = counters(ftl);
    const uint64_t *mine = (const uint64_t *)&c;
    uint64_t differ = 0, later = 0;
    for (uint32_t i = 0; i < ncounters; i++) {
        differ += le64(f + 4 + 64 + 4 + 8 * i) != mine[i];
    }
    for (size_t i = ncounters; i < sizeof(c) / 8; i++) {
        later += mine[i];      /* counters the version did not have, and power-cut tallies */
    }
    CHECK_EQ_U64(differ, 0);
    CHECK_EQ_U64(later, 0);
    CHECK(c.host_write_pages > 0 && c.gc_moved_pages > 0);
}

/*
 * What the old FCOR (layouts before 6) holds after the counters, read at its offsets
 * (ftl_state_core.c's get_old_layout): paced GC's debt, the FDP events' count and the SLC
 * cache; the loaded FTL holds the same.
 */
static void check_old_fcor(const struct ftl *ftl, const unsigned char *f, uint64_t len,
                           uint32_t layout)
{
    uint32_t ncounters = le32(f + 4 + 64);
    const unsigned char *p = f + 4 + 64 + 4 + 8 * ncounters + 108 + (MAP_WP + 1) * 20;
    CHECK_EQ_U64(le32(p), ftl->gc_rate_valid);
    CHECK_EQ_U64(le32(p + 4), ftl->gc_rate_invalid);
    CHECK_EQ_U64(le64(p + 8), ftl->gc_owed);
    CHECK_EQ_U64(le32(p + 16), ftl->gc_debt_count);
    CHECK(ftl->gc_debt_count > 0);                      /* the file exercises the debt */
    p += 20;
    CHECK_EQ_U64(le32(p), ftl->fdp_event_count);
    CHECK_EQ_U64(le64(p + 4), ftl->fdp_events_lost);
    p += 12 + FTL_FDP_EVENT_RING * 25 + 16 * ((uint64_t)ftl->pgs_per_line + 1);
    if (layout >= 3) {
        CHECK_EQ_U64(le32(p), ftl->slc_wp.line);
        CHECK_EQ_U64(le32(p + 20), ftl->slc_head);
        CHECK_EQ_U64(le32(p + 28), ftl->slc_count);
        p += 36;
    }
    CHECK_EQ_U64((uint64_t)(f + len - p), 12 * (uint64_t)ftl->gc_debt_count);
    uint64_t ops_differ = 0;
    for (uint32_t i = 0; i < ftl->gc_debt_count; i++, p += 12) {
        const struct gc_debt_op *op = &ftl->gc_debt[(ftl->gc_debt_head + i) %
                                                   debt_capacity(ftl)];
        ops_differ += le32(p) != op->src || le32(p + 4) != op->dst || le32(p + 8) != op->unit;
    }
    CHECK_EQ_U64(ops_differ, 0);
}

/* Two files of size bytes are the same but for META's creation time and so the END CRC:
 * every FTL section byte for byte. */
static bool same_past_meta(const unsigned char *a, const unsigned char *b, size_t size)
{
    size_t from = 24 + 16 + le64(a + 24 + 8) + 4, end_bytes = 16 + 4 + 4;
    CHECK(le32(a + 24) == STATE_TAG_META && le64(a + 32) == le64(b + 32));
    CHECK(le32(a + size - end_bytes) == STATE_TAG_END);
    return memcmp(a + from, b + from, size - end_bytes - from) == 0;
}

/* ftl saved at now to path_a, loaded into a fresh FTL and saved again to path_b: the two
 * files hold the same bytes (but META's creation time) in this build's sections; returns
 * the loaded FTL. */
static struct ftl *round_trip(const struct ftl *ftl, const struct ftl_config *cfg,
                              uint64_t now)
{
    char err[512] = "";
    CHECK(ftl_state_save_file(ftl, path_a, "test", now, err, sizeof(err)) == 0);
    struct ftl *back = load_or_null(cfg, path_a, now, err, sizeof(err));
    if (!check_record(back != NULL, __FILE__, __LINE__, "the saved state loads")) {
        fprintf(stderr, "    %s\n", err);
        exit(1);
    }
    CHECK(ftl_state_save_file(back, path_b, "test", now, err, sizeof(err)) == 0);
    size_t na, nb;
    unsigned char *a = read_whole(path_a, &na), *b = read_whole(path_b, &nb);
    CHECK(na == nb && same_past_meta(a, b, na));
    uint64_t len;
    const unsigned char *core = find_section(a, na, STATE_TAG('F', 'C', 'O', 'R'), &len);
    CHECK(core && le32(core) == 9);     /* 9: the ZRWAs in ZONE and their counters */
    CHECK(find_section(a, na, STATE_TAG('F', 'D', 'B', 'T'), &len) != NULL);
    CHECK(find_section(a, na, STATE_TAG('F', 'E', 'V', 'T'), &len) != NULL);
    CHECK((find_section(a, na, STATE_TAG('F', 'S', 'L', 'C'), &len) != NULL) ==
          cfg->slc_cache);
    free(a);
    free(b);
    check_core_same(ftl, back, "round trip");
    return back;
}

/* path_b: path_a with section tag's payload replaced by len bytes of payload (dropped when
 * payload is NULL), every CRC valid. */
static void rewrite_section(uint32_t tag, const unsigned char *payload, uint64_t len)
{
    size_t size;
    unsigned char *b = read_whole(path_a, &size);
    char err[256];
    struct state_writer *w = state_writer_open(path_b, err, sizeof(err));
    for (size_t at = 24; at + 16 <= size && le32(b + at) != STATE_TAG_END;) {
        uint64_t n = le64(b + at + 8);
        if (le32(b + at) != tag) {
            state_writer_section(w, le32(b + at), b + at + 16, n);
        } else if (payload) {
            state_writer_section(w, tag, payload, len);
        }
        at += 16 + n + 4;
    }
    CHECK(state_writer_commit(w, err, sizeof(err)) == 0);
    free(b);
}

/* path_a with tag's payload edited (value in `bytes` bytes at off; or cut to `cut` bytes
 * when bytes is 0) is refused in one line naming want. */
static void check_edit_refused(const struct ftl_config *cfg, uint32_t tag, uint64_t off,
                               int bytes, uint64_t value, uint64_t cut, const char *want,
                               int line)
{
    size_t size;
    unsigned char *b = read_whole(path_a, &size);
    uint64_t len;
    const unsigned char *orig = find_section(b, size, tag, &len);
    unsigned char *copy = calloc(1, len + 8);
    memcpy(copy, orig, len);
    for (int i = 0; i < bytes; i++) {
        copy[off + i] = (unsigned char)(value >> (8 * i));
    }
    rewrite_section(tag, copy, bytes ? (off + bytes > len ? off + bytes : len) : cut);
    char err[512] = "";
    struct ftl *ftl = load_or_null(cfg, path_b, 0, err, sizeof(err));
    if (!check_record(!ftl && !strchr(err, '\n') && strstr(err, want), __FILE__, line,
                      "crafted section refused")) {
        fprintf(stderr, "    want \"%s\", got \"%s\"\n", want, ftl ? "(accepted)" : err);
    }
    ftl_destroy(ftl);
    free(copy);
    free(b);
}

/* A section of path_a dropped, of another version, padded, cut anywhere: refused. */
static void check_damage_refused(const struct ftl_config *cfg, uint32_t tag)
{
    char name[5], want[32];
    state_tag_name(tag, name);
    size_t size;
    unsigned char *b = read_whole(path_a, &size);
    uint64_t len;
    CHECK(find_section(b, size, tag, &len) != NULL);
    free(b);
    rewrite_section(tag, NULL, 0);
    char err[512] = "";
    struct ftl *ftl = load_or_null(cfg, path_b, 0, err, sizeof(err));
    snprintf(want, sizeof(want), "no %s section", name);
    CHECK(!ftl && strstr(err, want));
    ftl_destroy(ftl);
    snprintf(want, sizeof(want), "section %s", name);
    check_edit_refused(cfg, tag, 0, 4, 99, 0, "layout version 99", __LINE__);
    check_edit_refused(cfg, tag, len, 1, 0, 0, want, __LINE__);
    for (uint64_t cut = 0; cut < len; cut++) {
        check_edit_refused(cfg, tag, 0, 0, 0, cut, want, __LINE__);
    }
}

/* The file at path_a, in this build's layout: FDBT, FEVT and (with the cache) FSLC refused when damaged
 * or out of range; their field offsets follow the version u32. */
static void check_own_sections(const struct ftl_config *cfg, const struct ftl *ftl)
{
    const uint32_t debt = STATE_TAG('F', 'D', 'B', 'T'), events = STATE_TAG('F', 'E', 'V', 'T');
    check_damage_refused(cfg, debt);
    check_damage_refused(cfg, events);
    check_edit_refused(cfg, debt, 20, 4, ftl->gc_debt_count + 1, 0, "paced GC's owed work",
                       __LINE__);
    check_edit_refused(cfg, debt, 24, 4, ftl->luns, 0, "paced GC's owed work", __LINE__);
    check_edit_refused(cfg, events, 4, 4, FTL_FDP_EVENT_RING + 1, 0, "FDP events", __LINE__);
    if (ftl->fdp_event_count) {
        check_edit_refused(cfg, events, 32, 4, ftl->nwps, 0, "FDP events", __LINE__);
    }
    if (cfg->slc_cache) {
        const uint32_t slc = STATE_TAG('F', 'S', 'L', 'C');
        check_damage_refused(cfg, slc);
        check_edit_refused(cfg, slc, 4, 4, ftl->nunits, 0, "the SLC cache", __LINE__);
        check_edit_refused(cfg, slc, 36, 4, UINT32_MAX, 0, "the SLC cache", __LINE__);
    }
}

/* Writes of one page a request from now on, background GC between: still consistent. */
static void follow_up(struct ftl *ftl, uint64_t now)
{
    struct ftl_counters before = counters(ftl);
    uint64_t pages = ftl->geo.logical_pages, s = 7;
    for (uint32_t i = 0; i < 400; i++, now += 50000) {
        struct ftl_io io = page_io(ftl, now, next_rand(&s) % pages, 1, 0);
        uint64_t done;
        CHECK_EQ_U64(ftl_write(ftl, &io, &done), FTL_OK);
        ftl_background_gc(ftl, now);
    }
    CHECK_EQ_U64(counters(ftl).host_write_pages - before.host_write_pages, 400);
    CHECK_CONSISTENT(ftl);
}

/* A file of layout 6 on: the debt's, the events' and the SLC cache's counts in their own
 * sections (offsets after each one's version u32), as the loaded FTL holds them. */
static void check_own_fields(const struct ftl *ftl, const unsigned char *b, size_t size)
{
    uint64_t len;
    const unsigned char *debt = find_section(b, size, STATE_TAG('F', 'D', 'B', 'T'), &len);
    const unsigned char *events = find_section(b, size, STATE_TAG('F', 'E', 'V', 'T'), &len);
    CHECK(debt && events);
    CHECK_EQ_U64(le32(debt + 20), ftl->gc_debt_count);
    CHECK(ftl->gc_debt_count > 0);                      /* the file exercises the debt */
    CHECK_EQ_U64(le32(events + 4), ftl->fdp_event_count);
    const unsigned char *slc = find_section(b, size, STATE_TAG('F', 'S', 'L', 'C'), &len);
    CHECK((slc != NULL) == ftl->cfg.slc_cache);
    if (slc) {
        CHECK_EQ_U64(le32(slc + 4), ftl->slc_wp.line);
        CHECK_EQ_U64(le32(slc + 24), ftl->slc_head);
        CHECK_EQ_U64(le32(slc + 32), ftl->slc_count);
    }
}

static void test_kept(const struct kept *k)
{
    char file[512], err[512] = "";
    snprintf(file, sizeof(file), "%s/%s", STATE_FIXTURES_DIR, k->name);
    size_t size;
    unsigned char *bytes = read_whole(file, &size);
    uint64_t len = 0;
    const unsigned char *fcor = find_section(bytes, size, STATE_TAG('F', 'C', 'O', 'R'), &len);
    CHECK(fcor && le32(fcor) == k->layout);
    struct ftl_config cfg = config_of(bytes, size);
    CHECK(cfg.slc_cache == k->slc);
    struct ftl *ftl = load_or_null(&cfg, file, 0, err, sizeof(err));
    if (!check_record(ftl != NULL, __FILE__, __LINE__, k->name)) {
        fprintf(stderr, "    %s\n", err);
        free(bytes);
        return;
    }
    check_fcor_counters(ftl, fcor);
    if (k->layout < 6) {
        check_old_fcor(ftl, fcor, len, k->layout);
    } else {
        check_own_fields(ftl, bytes, size);
    }
    CHECK(!k->slc || ftl->slc_count > 0 || ftl->slc_wp.line != NO_LINE);
    if (!k->slc) {      /* a page on handle 1, whose update raises an event FEVT carries */
        struct ftl_io io = page_io(ftl, 0, 0, 1, 1);
        uint64_t done;
        CHECK_EQ_U64(ftl_write(ftl, &io, &done), FTL_OK);
        CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 1, done, NULL), FTL_OK);
        CHECK(ftl->fdp_event_count > 0);
    }
    struct ftl *back = round_trip(ftl, &cfg, 0);
    CHECK_EQ_U64(back->fdp_event_count, ftl->fdp_event_count);
    CHECK_EQ_U64(back->gc_debt_count, ftl->gc_debt_count);
    if (k->layout == 5) {       /* path_a: this build's layout, once per configuration */
        check_own_sections(&cfg, back);
    }
    follow_up(back, idle_time(back));
    ftl_destroy(back);
    ftl_destroy(ftl);
    free(bytes);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path_a, sizeof(path_a), "%s/a.state", dir);
    snprintf(path_b, sizeof(path_b), "%s/b.state", dir);
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        test_kept(&kept[i]);
    }
    unlink(path_a);
    unlink(path_b);
    CHECK(rmdir(dir) == 0);
    return check_summary();
}
