/*
 * The drive in front of the flash (front/): the PCIe link and the controller's cores,
 * against hand-computed cases. Link arithmetic (PCIe Base Specification facts): a byte
 * takes 8 / (rate x code) per lane; 2.5 GT/s with 8b/10b on one lane is 4 ns a byte, so
 * every figure below is a whole number of ns. Wire bytes: a memory request or write has
 * a 16-byte header, a completion 12, each TLP 8 bytes of framing, each TLP is answered
 * by an 8-byte Ack DLLP on the other direction; payloads are cut at Max_Payload_Size and
 * reads asked in 512-byte requests.
 */
#include <string.h>

#include "femu_ftl/engine.h"
#include "flash/ftl_handle.h"
#include "front/link_pipe.h"
#include "ftl_test_util.h"

static struct ftl_config base(void)
{
    struct ftl_config cfg = small_config(1, 2, 256, 16, 1);  /* pages of one 512-byte sector */
    return cfg;
}

static struct ftl_request req(enum ftl_op op, uint64_t arrival, uint64_t slba, uint64_t nlb)
{
    return (struct ftl_request){ .op = op, .arrival_ns = arrival, .slba = slba, .nlb = nlb };
}

/* The FTL's own completion of r, on a device without the model. */
static uint64_t flash_done(const struct ftl_config *with, struct ftl_request r)
{
    struct ftl_config cfg = *with;
    cfg.pcie_gen = 0;
    cfg.ctrl_cores = 0;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s;
    CHECK_EQ_U64(ftl_engine_serve(e, &r, &s), FTL_OK);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
    return s.done_ns;
}

static void test_off_changes_nothing(void)
{
    struct ftl_config cfg = base();
    CHECK_EQ_U64(cfg.pcie_gen, 0);
    CHECK_EQ_U64(cfg.ctrl_cores, 0);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s;
    struct ftl_request w = req(FTL_OP_WRITE, 1000, 0, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &w, &s), FTL_OK);
    CHECK_EQ_U64(s.done_ns, flash_done(&cfg, w));
    CHECK_EQ_U64(s.split.flash_ns, s.done_ns - 1000);
    CHECK_EQ_U64(s.split.link_ns + s.split.ctrl_ns + s.split.wait_ns, 0);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.link_up_bytes + c.link_down_bytes + c.ctrl_busy_ns + c.ctrl_cmds, 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* A 512-byte write over PCIe 1.0 x1 (4 ns a byte), MPS 128, one core at 1000 ns:
 *   SQE: read request up 16 + 8 = 24 B: 0-96; its Ack down 0-32; the completion down,
 *        64 + 12 + 8 = 84 B, from 96: 96-432; its Ack up 96-128.     command in at 432
 *   core: 432-1432
 *   data: one read request up 1432-1528 (Ack down 1432-1464); four completions of 128
 *        bytes, 512 + 4 x 20 = 592 B, from 1528: 1528-3896 (Acks up 1528-1656)
 *   FTL: takes it at 3896, done at D (its own flash time)
 *   CQE: write up 16 + 24 = 40 B, D to D + 160; MSI-X 4 + 24 = 28 B, to D + 272. */
static void test_write_hand_computed(void)
{
    struct ftl_config cfg = base();
    cfg.pcie_gen = 1, cfg.pcie_lanes = 1, cfg.pcie_mps = 128;
    cfg.ctrl_cores = 1, cfg.ctrl_write_ns = 1000;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s;
    struct ftl_request w = req(FTL_OP_WRITE, 0, 0, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &w, &s), FTL_OK);
    uint64_t d = flash_done(&cfg, req(FTL_OP_WRITE, 3896, 0, 1));
    CHECK_EQ_U64(s.done_ns, d + 272);
    CHECK_EQ_U64(s.split.flash_ns, d - 3896);
    CHECK_EQ_U64(s.split.link_ns, 96 + 336 + 96 + 2368 + 160 + 112);
    CHECK_EQ_U64(s.split.ctrl_ns, 1000);
    CHECK_EQ_U64(s.split.wait_ns, 0);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    /* up: SQE request 24, Ack 8, data request 24, 4 Acks 32, CQE 40, MSI-X 28 */
    CHECK_EQ_U64(c.link_up_bytes, 24 + 8 + 24 + 32 + 40 + 28);
    /* down: Ack 8, SQE 84, Ack 8, data 592, the CQE's and MSI-X's Acks 16 */
    CHECK_EQ_U64(c.link_down_bytes, 8 + 84 + 8 + 592 + 16);
    CHECK_EQ_U64(c.link_up_busy_ps, (uint64_t)(24 + 8 + 24 + 32 + 40 + 28) * 4000);
    CHECK_EQ_U64(c.ctrl_busy_ns, 1000);
    CHECK_EQ_U64(c.ctrl_cmds, 1);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* An unmapped 4 KiB read over PCIe 4.0 x4 (16 GT/s, 128b/130b: 8 x 130 / (16 x 128 x
 * 4) = 0.126953125 ns a byte), MPS 256, no cores, arriving at 0:
 *   SQE: request 24 B 0-3047 ps (3046.875 up), completion 84 B 3047-13712 ps: in at 14 ns
 *   FTL: nothing mapped, done at 14 ns
 *   data up: 16 TLPs, 4096 + 16 x 24 = 4480 B: 568750 ps, 14000-582750
 *   CQE 40 B: 5079 ps, to 587829; MSI-X 28 B: 3555 ps, to 591384: done at 592 ns. */
static void test_gen4_read_hand_computed(void)
{
    struct ftl_config cfg = small_config(1, 2, 64, 16, 8);
    cfg.pcie_gen = 4;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s;
    struct ftl_request r = req(FTL_OP_READ, 0, 0, 8);
    CHECK_EQ_U64(ftl_engine_serve(e, &r, &s), FTL_OK);
    CHECK_EQ_U64(s.done_ns, 592);
    CHECK_EQ_U64(s.split.flash_ns, 0);
    /* own transfers: 3047 + 10665 + 568750 + 5079 + 3555 ps = 591096, rounded up */
    CHECK_EQ_U64(s.split.link_ns, 592);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* Two cores at 1000 ns a read, no link: three reads at 0 end at 1000, 1000 and 2000;
 * the third waited 1000 for a core. */
static void test_cores_queue(void)
{
    struct ftl_config cfg = base();
    cfg.ctrl_cores = 2, cfg.ctrl_read_ns = 1000;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s[3];
    for (int i = 0; i < 3; i++) {
        struct ftl_request r = req(FTL_OP_READ, 0, (uint64_t)i, 1);
        CHECK_EQ_U64(ftl_engine_serve(e, &r, &s[i]), FTL_OK);
    }
    CHECK_EQ_U64(s[0].done_ns, 1000);
    CHECK_EQ_U64(s[1].done_ns, 1000);
    CHECK_EQ_U64(s[2].done_ns, 2000);
    CHECK_EQ_U64(s[2].split.ctrl_ns, 1000);
    CHECK_EQ_U64(s[2].split.wait_ns, 1000);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.ctrl_busy_ns, 3000);
    CHECK_EQ_U64(c.ctrl_cmds, 3);
    CHECK_EQ_U64(c.link_up_bytes, 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* Dataset Management: 100 ns a range on one core; three ranges cost 300. */
static void test_dsm_ranges(void)
{
    struct ftl_config cfg = base();
    cfg.ctrl_cores = 1, cfg.ctrl_dsm_range_ns = 100;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_range ranges[3] = { { 0, 1 }, { 4, 1 }, { 8, 1 } };
    struct ftl_request t = req(FTL_OP_TRIM, 50, 0, 0);
    t.ranges = ranges, t.nranges = 3;
    struct ftl_served s;
    CHECK_EQ_U64(ftl_engine_serve(e, &t, &s), FTL_OK);
    CHECK_EQ_U64(s.split.ctrl_ns, 300);
    CHECK(s.done_ns >= 350);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.ctrl_busy_ns, 300);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* DFTL: each cached-map miss adds ctrl_map_miss_ns of core time to the command. Pages
 * of 512 bytes: a translation page holds 128 entries and the CMT 128 entries, so after
 * LPN 0 is written, 128 reads of translation page 2's LPNs evict its entry. */
static void test_map_miss_cost(void)
{
    struct ftl_config cfg = base();
    cfg.mapping = FTL_MAPPING_DFTL, cfg.cmt_entries = 128;
    cfg.ctrl_cores = 1, cfg.ctrl_read_ns = 1000, cfg.ctrl_map_miss_ns = 500;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s;
    struct ftl_counters before, after;
    uint64_t t = 0;
    struct ftl_request w = req(FTL_OP_WRITE, t, 0, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &w, &s), FTL_OK);
    for (uint64_t k = 0; k < 128; k++) {
        struct ftl_request other = req(FTL_OP_READ, s.done_ns, 256 + k, 1);
        CHECK_EQ_U64(ftl_engine_serve(e, &other, &s), FTL_OK);
    }
    t = s.done_ns;
    ftl_get_counters(ftl, &before);
    struct ftl_request r = req(FTL_OP_READ, t, 0, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &r, &s), FTL_OK);
    ftl_get_counters(ftl, &after);
    CHECK_EQ_U64(after.cmt_misses - before.cmt_misses, 1);
    CHECK_EQ_U64(s.split.ctrl_ns, 1000 + 500);
    CHECK_EQ_U64(after.ctrl_busy_ns - before.ctrl_busy_ns, 1000 + 500);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* A pipe lends its gaps: [0,10) and [20,25) busy, 15 more from 0 take [10,20) and
 * [25,30); everything merges into one span. */
static void test_pipe_fills_gaps(void)
{
    static struct link_pipe p;
    memset(&p, 0, sizeof(p));
    CHECK_EQ_U64(link_pipe_fill(&p, 0, 10), 10);
    CHECK_EQ_U64(link_pipe_fill(&p, 20, 5), 25);
    CHECK_EQ_U64(p.count, 2);
    CHECK_EQ_U64(link_pipe_fill(&p, 0, 15), 30);
    CHECK_EQ_U64(p.count, 1);
    CHECK_EQ_U64(p.spans[0].start, 0);
    CHECK_EQ_U64(p.spans[0].end, 30);
    link_pipe_prune(&p, 30);
    CHECK_EQ_U64(p.count, 0);
    /* full: the oldest gap is given up, nothing overlaps */
    for (uint64_t i = 0; i < LINK_PIPE_SPANS + 5; i++) {
        link_pipe_fill(&p, 10 * i, 5);
    }
    CHECK_EQ_U64(p.count, LINK_PIPE_SPANS);
    for (uint32_t i = 1; i < p.count; i++) {
        CHECK(p.spans[i - 1].end < p.spans[i].start);
    }
    CHECK_EQ_U64(p.spans[p.count - 1].end, 10 * (LINK_PIPE_SPANS + 4) + 5);
}

/* The FTL takes commands in arrival order: a read behind a long write transfer reaches
 * it no earlier than the write did. */
static void test_ftl_order(void)
{
    struct ftl_config cfg = small_config(1, 2, 64, 16, 8);
    cfg.pcie_gen = 1, cfg.pcie_lanes = 1, cfg.pcie_mps = 128;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served w, r;
    struct ftl_request wr = req(FTL_OP_WRITE, 0, 0, 64);    /* 32 KiB: ~140 us in */
    struct ftl_request rd = req(FTL_OP_READ, 1, 512, 8);
    CHECK_EQ_U64(ftl_engine_serve(e, &wr, &w), FTL_OK);
    CHECK_EQ_U64(ftl_engine_serve(e, &rd, &r), FTL_OK);
    uint64_t write_at_ftl = w.done_ns - w.split.flash_ns;   /* no CQE wait before it */
    CHECK(r.done_ns > write_at_ftl);
    CHECK(r.split.wait_ns > 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

static void test_bad_keys(void)
{
    struct ftl_config cfg = base();
    char err[256];
    CHECK(ftl_config_set(&cfg, "pcie_gen", "6", err, sizeof(err)) == -1);
    CHECK(strncmp(err, "pcie_gen:", 9) == 0);
    CHECK(ftl_config_set(&cfg, "ctrl_read_ns", "-1", err, sizeof(err)) == -1);
    CHECK(strncmp(err, "ctrl_read_ns:", 13) == 0);
    CHECK(ftl_config_set(&cfg, "pcie_mps", "1024", err, sizeof(err)) == -1);
    cfg = base();
    cfg.pcie_lanes = 3;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == -1);
    CHECK(strncmp(err, "pcie_lanes: 3 ", 14) == 0);
    cfg = base();
    cfg.pcie_mps = 384;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == -1);
    CHECK(strncmp(err, "pcie_mps: 384 ", 14) == 0);
}

int main(void)
{
    test_off_changes_nothing();
    test_write_hand_computed();
    test_gen4_read_hand_computed();
    test_cores_queue();
    test_dsm_ranges();
    test_map_miss_cost();
    test_pipe_fills_gaps();
    test_ftl_order();
    test_bad_keys();
    return check_summary();
}
