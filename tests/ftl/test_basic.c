/* Host commands on a fresh FTL: mapping, striping, timing, trim, counters and errors. */
#include "flash/geometry.h"
#include "flash/p2l.h"
#include "map/page_map.h"
#include "place/write_count.h"
#include "ftl_test_util.h"

enum { RD = 40000, WR = 200000, ER = 2000000 };

/* 2 channels x 2 LUNs, 32 lines of 4 pages per block: 16 pages per line. */
static struct ftl_config tiny(void)
{
    struct ftl_config cfg = small_config(2, 2, 32, 4, 8);
    return cfg;
}

static void test_striping_and_maps(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    /* FEMU striping: channel first, then LUN, then page; ppa offsets are consecutive */
    for (uint64_t lpn = 0; lpn < 6; lpn++) {
        CHECK(write_pages(ftl, 0, lpn, 1, NULL) == FTL_OK);
    }
    uint32_t first = l2p_get(ftl, 0);
    for (uint32_t lpn = 0; lpn < 6; lpn++) {
        uint32_t ppa = l2p_get(ftl, lpn);
        CHECK_EQ_U64(ppa, first + lpn);
        CHECK_EQ_U64(ppa_lun(ftl, ppa) % 2, lpn % 2);       /* channel alternates */
        CHECK_EQ_U64(ppa_lun(ftl, ppa) / 2, (lpn / 2) % 2); /* then the LUN */
        CHECK_EQ_U64((ppa % ftl->pgs_per_line) / ftl->luns, lpn / 4);  /* then the page */
        CHECK_EQ_U64(p2l_get(ftl, ppa), lpn);
        CHECK(ftl_lpn_is_mapped(ftl, lpn));
        CHECK_EQ_U64(ftl_lpn_write_count(ftl, lpn), 1);
    }
    CHECK(!ftl_lpn_is_mapped(ftl, 6));
    /* an overwrite moves the page and leaves an invalid one behind */
    uint32_t old = l2p_get(ftl, 3);
    CHECK(write_pages(ftl, 0, 3, 1, NULL) == FTL_OK);
    CHECK(l2p_get(ftl, 3) != old);
    CHECK_EQ_U64(p2l_get(ftl, old), P2L_INVALID);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 3), 2);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.valid_pages, 6);
    CHECK_EQ_U64(g.open_lines, 1);
    CHECK_EQ_U64(g.max_written_lpn_plus_one, 6);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_timing(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;
    /* unwritten pages read for free */
    CHECK(read_pages(ftl, 1000, 0, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, 1000);
    /* four pages stripe over four LUNs: they program in parallel */
    CHECK(write_pages(ftl, 0, 0, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, WR);
    /* the next four land on the same LUNs: they queue behind the first */
    CHECK(write_pages(ftl, 0, 4, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2 * WR);
    /* a read waits for its LUN, then senses */
    CHECK(read_pages(ftl, 0, 0, 1, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2 * WR + RD);
    /* a read arriving after the LUN is idle costs only its own latency */
    CHECK(read_pages(ftl, 10 * WR, 1, 1, &done) == FTL_OK);
    CHECK_EQ_U64(done, 10 * WR + RD);
    /* a multi-page read completes with its slowest page */
    CHECK(read_pages(ftl, 20 * WR, 0, 8, &done) == FTL_OK);
    CHECK_EQ_U64(done, 20 * WR + 2 * RD);
    ftl_destroy(ftl);
}

static void test_channel_bus(void)
{
    struct ftl_config cfg = tiny();
    cfg.ch_xfer_lat = 10000;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;
    /* pages 0 and 2 share channel 0 (different LUNs): the second transfer waits */
    CHECK(write_pages(ftl, 0, 0, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2 * 10000 + WR);
    /* reads: both LUNs of channel 0 sense together, then transfer one after the other */
    CHECK(read_pages(ftl, 1000000, 0, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, 1000000 + RD + 2 * 10000);
    ftl_destroy(ftl);
}

static void test_partial_pages_and_counters(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;
    /* sectors 7..8 straddle pages 0 and 1 */
    struct ftl_io io = { .now_ns = 0, .slba = 7, .nlb = 2 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
    CHECK(ftl_lpn_is_mapped(ftl, 0) && ftl_lpn_is_mapped(ftl, 1));
    CHECK(ftl_read(ftl, &io, &done) == FTL_OK);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.host_write_cmds, 1);
    CHECK_EQ_U64(c.host_write_pages, 2);
    CHECK_EQ_U64(c.host_write_bytes, 1024);
    CHECK_EQ_U64(c.host_read_cmds, 1);
    CHECK_EQ_U64(c.host_read_pages, 2);
    CHECK_EQ_U64(c.host_read_bytes, 1024);
    CHECK_EQ_U64(c.nand_user_programs, 2);
    CHECK_EQ_U64(c.nand_user_reads, 2);
    CHECK_EQ_U64(c.wp_host_pages[0], 2);
    ftl_destroy(ftl);
}

static void test_trim(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;
    CHECK(write_pages(ftl, 0, 0, 8, &done) == FTL_OK);
    /* sectors 4..27 cover pages 1 and 2 wholly, 0 and 3 partly */
    struct ftl_io io = { .now_ns = 5, .slba = 4, .nlb = 24 };
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    CHECK_EQ_U64(done, 5);
    CHECK(ftl_lpn_is_mapped(ftl, 0));
    CHECK(!ftl_lpn_is_mapped(ftl, 1) && !ftl_lpn_is_mapped(ftl, 2));
    CHECK(ftl_lpn_is_mapped(ftl, 3));
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.host_trim_cmds, 1);
    CHECK_EQ_U64(c.host_trim_pages, 2);
    /* trimmed pages read for free again; write counts stay */
    CHECK(read_pages(ftl, 10 * WR, 1, 2, &done) == FTL_OK);
    CHECK_EQ_U64(done, 10 * WR);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 1), 1);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.valid_pages, 6);
    /* trimming an unmapped range is harmless; a sub-page trim unmaps nothing */
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    io = (struct ftl_io){ .slba = 0, .nlb = 7 };
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    CHECK(ftl_lpn_is_mapped(ftl, 0));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Trim walks the mapped-page bitmap: pages on either side of 64-page word edges, a
 * range starting and ending mid-word, and a whole-device range all unmap exactly the
 * mapped pages inside them. */
static void test_trim_sparse_word_edges(void)
{
    struct ftl_config cfg = tiny();
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, done;
    static const uint64_t marks[] = { 0, 1, 62, 63, 64, 65, 127, 128, 191, 200 };
    for (unsigned i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        CHECK(marks[i] < pages);
        CHECK(write_pages(ftl, 0, marks[i], 1, NULL) == FTL_OK);
    }
    struct ftl_io io = page_io(ftl, 7, 63, 128 - 63, 0);   /* pages 63..127 */
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    for (unsigned i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        bool inside = marks[i] >= 63 && marks[i] <= 127;
        CHECK(ftl_lpn_is_mapped(ftl, marks[i]) == !inside);
    }
    CHECK_CONSISTENT(ftl);
    io = page_io(ftl, 8, 0, pages, 0);
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.valid_pages, 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_errors(void)
{
    struct ftl_config cfg = tiny();
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 2;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t cap = ftl_geometry_of(ftl)->logical_sectors;
    uint64_t done = 12345;
    struct ftl_io io = { .slba = cap - 8, .nlb = 8 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_OK);   /* the last page is fine */
    io = (struct ftl_io){ .slba = cap - 8, .nlb = 9 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_E_RANGE);
    CHECK(ftl_read(ftl, &io, &done) == FTL_E_RANGE);
    CHECK(ftl_trim(ftl, &io, &done) == FTL_E_RANGE);
    io = (struct ftl_io){ .slba = UINT64_MAX - 2, .nlb = 8 };  /* would wrap around */
    CHECK(ftl_write(ftl, &io, &done) == FTL_E_RANGE);
    io = (struct ftl_io){ .slba = 0, .nlb = UINT64_MAX };
    CHECK(ftl_read(ftl, &io, &done) == FTL_E_RANGE);
    io = (struct ftl_io){ .slba = 0, .nlb = 0 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_E_INVAL);
    io = (struct ftl_io){ .slba = 0, .nlb = 8, .stream = 2 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_E_INVAL);
    io.stream = 1;
    CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.host_write_cmds, 2);   /* rejected commands change nothing */
    CHECK_EQ_U64(c.wp_host_pages[0], 1);
    CHECK_EQ_U64(c.wp_host_pages[1], 1);
    CHECK(strlen(ftl_status_str(FTL_E_RANGE)) > 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_write_count_saturates(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(wc_set(ftl, 5, UINT32_MAX - 1));
    CHECK(write_pages(ftl, 0, 5, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 5), UINT32_MAX);
    CHECK(write_pages(ftl, 0, 5, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 5), UINT32_MAX);
    ftl_destroy(ftl);
}

static void test_metadata_size(void)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    /* per physical page, the 2-byte per-LPN counter included: within the 10-byte budget
     * (test_lazy_metadata checks every shipped configuration and 1 TiB) */
    double per_page = (double)ftl_metadata_bytes(ftl) / (double)g->phys_pages;
    CHECK(per_page <= 10.0);
    ftl_destroy(ftl);
}

static void test_waf(void)
{
    struct ftl_counters a = { .host_write_pages = 10, .nand_user_programs = 10,
                              .nand_gc_programs = 4 };
    struct ftl_counters b = a;
    double waf = -1.0;

    CHECK(!ftl_waf(&a, &b, &waf) && waf == -1.0);   /* no host page: undefined */
    b.nand_gc_programs += 50;
    CHECK(!ftl_waf(&a, &b, &waf));                 /* GC alone does not define it */
    b.nand_user_programs += 100;
    b.host_write_pages += 100;
    CHECK(ftl_waf(&a, &b, &waf) && waf == 1.5);
    /* every flash program counts over the host's pages: a buffer absorbed 50 of 100 */
    b.host_write_pages += 100;
    b.nand_user_programs += 50;
    b.map_writes += 20;
    b.map_gc_moved_pages += 10;
    b.fallback_pages += 20;
    CHECK(ftl_waf(&a, &b, &waf) && waf == 1.25);   /* (150 + 50 + 20 + 10 + 20) / 200 */
}

int main(void)
{
    test_waf();
    test_striping_and_maps();
    test_timing();
    test_channel_bus();
    test_partial_pages_and_counters();
    test_trim();
    test_trim_sparse_word_edges();
    test_errors();
    test_write_count_saturates();
    test_metadata_size();
    return check_summary();
}
