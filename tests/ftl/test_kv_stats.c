/*
 * The key-value columns of stats.csv (hw/femu/ftl/STATS.md): their names at the end of
 * the header, a second's counts and gauges, and kv_waf = flash pages programmed x page
 * bytes / value bytes stored (empty in a second that stored none).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/engine.h"
#include "femu_ftl/stats.h"
#include "ftl_test_util.h"
#include "temp_dir_util.h"

#define S 1000000000ull

static char dir[512];

static const char *const kv_columns[] = {
    "kv_stores", "kv_retrieves", "kv_deletes", "kv_exists", "kv_lists", "kv_store_bytes",
    "kv_retrieve_bytes", "kv_index_hits", "kv_index_misses", "kv_index_page_reads",
    "kv_index_page_writes", "kv_compactions", "kv_compaction_pages", "kv_keys",
    "kv_live_bytes", "kv_waf",
};
#define NKV (sizeof(kv_columns) / sizeof(kv_columns[0]))


/* Line n of stats.csv (0: the header), split at commas into cells; how many. */
static size_t stats_cells(int n, char *line, size_t size, char **cells, size_t max)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/stats.csv", dir);
    FILE *f = fopen(path, "r");
    size_t count = 0;
    line[0] = '\0';
    for (int i = 0; f && i <= n; i++) {
        if (!fgets(line, (int)size, f)) {
            line[0] = '\0';
        }
    }
    if (f) {
        fclose(f);
    }
    line[strcspn(line, "\n")] = '\0';
    for (char *p = line; count < max; count++) {
        cells[count] = p;
        p = strchr(p, ',');
        if (!p) {
            count++;
            break;
        }
        *p++ = '\0';
    }
    return count;
}

static struct ftl_request kv_request(enum ftl_op op, uint64_t now, const char *key,
                                     uint32_t bytes)
{
    struct ftl_request q = { .op = op, .arrival_ns = now, .nsid = 1, .kv_bytes = bytes,
                             .value_tag = now };
    q.key.len = (uint8_t)strlen(key);
    memcpy(q.key.bytes, key, q.key.len);
    return q;
}

static void test_columns(void)
{
    temp_dir_make(dir, sizeof(dir), "kv-stats");
    struct ftl_config cfg = small_config(2, 2, 64, 64, 8);
    cfg.devsz_mb = 4;
    cfg.kv_segment_pages = 4;
    cfg.kv_max_value = 8192;
    struct ftl *ftl = make_ftl(&cfg);
    char err[512] = "";
    CHECK(ftl_kv_create(ftl, 1, 0, ftl_kv_region_sectors(ftl, 65536), 65536, err,
                        sizeof(err)) == 0);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    CHECK(w != NULL);
    struct ftl_engine *e = ftl_engine_create(ftl, w, NULL);
    /* second 1: four records of 8 + 4 + 1012 bytes fill one page, one program */
    const char *keys[] = { "k000", "k001", "k002", "k003" };
    for (int i = 0; i < 4; i++) {
        struct ftl_request q = kv_request(FTL_OP_KV_STORE, S / 10 + (uint64_t)i * S / 10,
                                          keys[i], 1012);
        CHECK_EQ_U64(ftl_engine_serve(e, &q, NULL), FTL_OK);
    }
    struct ftl_request q = kv_request(FTL_OP_KV_RETRIEVE, S / 2, "k002", 100);
    CHECK_EQ_U64(ftl_engine_serve(e, &q, NULL), FTL_OK);
    /* second 2: a delete, nothing stored */
    q = kv_request(FTL_OP_KV_DELETE, S + S / 2, "k000", 0);
    CHECK_EQ_U64(ftl_engine_serve(e, &q, NULL), FTL_OK);
    CHECK(ftl_stats_close(w, 2 * S, err, sizeof(err)) == 0);
    ftl_engine_destroy(e);

    static char head[8192], row[8192];
    char *h[512], *r[512];
    size_t nh = stats_cells(0, head, sizeof(head), h, 512);
    CHECK(nh > NKV);
    for (size_t i = 0; i < NKV && nh > NKV; i++) {
        CHECK(strcmp(h[nh - NKV + i], kv_columns[i]) == 0);
    }
    size_t nr = stats_cells(1, row, sizeof(row), r, 512);
    CHECK_EQ_U64(nr, nh);
    if (nr == nh && nh > NKV) {
        char **kv = &r[nh - NKV];
        CHECK(!strcmp(kv[0], "4") && !strcmp(kv[1], "1") && !strcmp(kv[2], "0"));
        CHECK(!strcmp(kv[5], "4048") && !strcmp(kv[6], "100"));
        CHECK(!strcmp(kv[7], "4") && !strcmp(kv[8], "1"));     /* one index page: 1 miss */
        CHECK(!strcmp(kv[13], "4") && !strcmp(kv[14], "4048"));
        CHECK(!strcmp(kv[15], "1.0119"));                      /* 4096 / 4048 */
    }
    nr = stats_cells(2, row, sizeof(row), r, 512);
    CHECK_EQ_U64(nr, nh);
    if (nr == nh && nh > NKV) {
        char **kv = &r[nh - NKV];
        CHECK(!strcmp(kv[2], "1") && !strcmp(kv[13], "3") && !strcmp(kv[14], "3036"));
        CHECK(!strcmp(kv[15], ""));
    }
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

int main(void)
{
    test_columns();
    return check_summary();
}
