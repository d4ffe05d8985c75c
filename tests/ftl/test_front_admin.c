/*
 * FTL_OP_ADMIN, a command that moves data and gives the FTL no work (an admin command, or
 * an I/O command the device answers itself), through the engine's link and controller
 * model against hand-computed cases, and without the model: nothing at all. PCIe 1.0 x1
 * with 8b/10b is 4 ns a byte; MPS 128; a memory request or write has a 16-byte header, a
 * completion 12, each TLP 8 bytes of framing and an 8-byte Ack DLLP on the other
 * direction; reads are asked in 512-byte requests (the facts tests/ftl/test_front.c uses).
 */
#include <stdbool.h>
#include <string.h>

#include "femu_ftl/engine.h"
#include "ftl_test_util.h"

#define ADMIN_NS 1000
#define READ_NS 300

static struct ftl_config gen1_config(void)
{
    struct ftl_config cfg = small_config(1, 2, 256, 16, 1);
    cfg.pcie_gen = 1, cfg.pcie_lanes = 1, cfg.pcie_mps = 128;
    cfg.ctrl_cores = 1, cfg.ctrl_admin_ns = ADMIN_NS, cfg.ctrl_read_ns = READ_NS;
    return cfg;
}

static struct ftl_request admin(uint32_t flags, uint32_t in, uint32_t out)
{
    return (struct ftl_request){ .op = FTL_OP_ADMIN, .flags = flags, .data_in = in,
                                 .data_out = out };
}

/* Serve r alone on a fresh engine over cfg; its counters after in *c. */
static struct ftl_served serve_alone(const struct ftl_config *cfg, struct ftl_request r,
                                     struct ftl_counters *c)
{
    struct ftl *ftl = make_ftl(cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served s;
    CHECK_EQ_U64(ftl_engine_serve(e, &r, &s), FTL_OK);
    ftl_get_counters(ftl, c);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
    return s;
}

/* No FTL work whatever the model: no read, write, program or GC counted. */
static void check_no_ftl_work(const struct ftl_counters *c)
{
    CHECK_EQ_U64(c->host_read_cmds + c->host_write_cmds + c->host_flush_cmds, 0);
    CHECK_EQ_U64(c->host_read_pages + c->host_write_pages, 0);
    CHECK_EQ_U64(c->nand_user_reads + c->nand_user_programs + c->nand_erases, 0);
    CHECK_EQ_U64(c->gc_runs + c->gc_moved_pages + c->gc_erased_blocks, 0);
}

/* An Identify (4096 bytes out) arriving at 0:
 *   SQE: read request up 24 B: 0-96 (its Ack down 0-32); completion down 64 + 12 + 8 =
 *        84 B: 96-432 (its Ack up 96-128)
 *   core: 432-1432 (ctrl_admin_ns); no PRP list (one page), no data in: the FTL takes it
 *        at 1432 and is done at once
 *   data up: 32 TLPs, 4096 + 32 x 24 = 4864 B: 1432-20888 (32 Acks down, 256 B)
 *   CQE 16 + 24 = 40 B: 20888-21048; MSI-X 4 + 24 = 28 B: 21048-21160: done at 21160. */
static void test_identify_hand_computed(void)
{
    struct ftl_config cfg = gen1_config();
    struct ftl_counters c;
    struct ftl_served s = serve_alone(&cfg, admin(0, 0, 4096), &c);
    CHECK_EQ_U64(s.done_ns, 21160);
    CHECK_EQ_U64(s.split.flash_ns, 0);
    CHECK_EQ_U64(s.split.link_ns, 96 + 336 + 19456 + 160 + 112);
    CHECK_EQ_U64(s.split.ctrl_ns, ADMIN_NS);
    CHECK_EQ_U64(s.split.wait_ns, 0);
    /* up: SQE request 24, its completion's Ack 8, data 4864, CQE 40, MSI-X 28 */
    CHECK_EQ_U64(c.link_up_bytes, 24 + 8 + 4864 + 40 + 28);
    /* down: the request's Ack 8, SQE 84, 32 data Acks 256, CQE's and MSI-X's Acks 16 */
    CHECK_EQ_U64(c.link_down_bytes, 8 + 84 + 256 + 16);
    CHECK_EQ_U64(c.ctrl_busy_ns, ADMIN_NS);
    CHECK_EQ_U64(c.ctrl_cmds, 1);
    check_no_ftl_work(&c);
}

/* A Namespace Management create (4096 bytes in) arriving at 0:
 *   SQE 0-432 as above; core 432-1432
 *   data in: 8 read requests up, 8 x 24 = 192 B: 1432-2200, their 8 Acks down (64 B):
 *        1432-1688; the first completion may start once the first request is across
 *        (1528), but the down direction is busy with those Acks until 1688: 32
 *        completions, 4096 + 32 x 20 = 4736 B: 1688-20632; their 32 Acks up (256 B) fill
 *        the up direction's free time after the requests: 2200-3224
 *   the FTL takes it at 20632, done at once; CQE 20632-20792; MSI-X 20792-20904.
 * Its own transfers (20416 ns, the requests overlapping the completions) and its core
 * time cover its whole trip: no wait. */
static void test_data_in_hand_computed(void)
{
    struct ftl_config cfg = gen1_config();
    struct ftl_counters c;
    struct ftl_served s = serve_alone(&cfg, admin(0, 4096, 0), &c);
    CHECK_EQ_U64(s.done_ns, 20904);
    CHECK_EQ_U64(s.split.link_ns, 96 + 336 + 768 + 18944 + 160 + 112);
    CHECK_EQ_U64(s.split.ctrl_ns, ADMIN_NS);
    CHECK_EQ_U64(s.split.wait_ns, 0);
    CHECK_EQ_U64(c.link_up_bytes, 24 + 8 + 192 + 256 + 40 + 28);
    CHECK_EQ_U64(c.link_down_bytes, 8 + 84 + 64 + 4736 + 16);
    check_no_ftl_work(&c);
}

/* A zone report of 128 bytes, an I/O command: ctrl_read_ns, not ctrl_admin_ns.
 *   SQE 0-432; core 432-732; data up 128 + 24 = 152 B: 732-1340; CQE 1340-1500; MSI-X
 *   1500-1612. */
static void test_io_kind_costs_a_read(void)
{
    struct ftl_config cfg = gen1_config();
    struct ftl_counters c;
    struct ftl_served s = serve_alone(&cfg, admin(FTL_REQ_IO, 0, 128), &c);
    CHECK_EQ_U64(s.done_ns, 1612);
    CHECK_EQ_U64(s.split.ctrl_ns, READ_NS);
    CHECK_EQ_U64(c.ctrl_busy_ns, READ_NS);
    CHECK_EQ_U64(c.link_up_bytes, 24 + 8 + 152 + 40 + 28);
    check_no_ftl_work(&c);
}

/* A log page of 12 KiB: three memory pages, so its PRP list (two 8-byte entries) is read
 * before the data goes up: one read request up 24 B, a completion of 16 + 12 + 8 = 36 B
 * down. */
static void test_prp_list(void)
{
    struct ftl_config cfg = gen1_config();
    struct ftl_counters c;
    (void)serve_alone(&cfg, admin(0, 0, 12288), &c);
    uint64_t data_up = 12288 + (12288 / 128) * 24;
    CHECK_EQ_U64(c.link_up_bytes, 24 + 8 + 24 + 8 + data_up + 40 + 28);
    CHECK_EQ_U64(c.link_down_bytes, 8 + 84 + 8 + 36 + (12288 / 128) * 8 + 16);
}

/* Without the model: done at arrival, nothing counted, no FTL work. */
static void test_off_costs_nothing(void)
{
    struct ftl_config cfg = small_config(1, 2, 256, 16, 1);
    struct ftl_counters c;
    struct ftl_request r = admin(0, 4096, 4096);
    r.arrival_ns = 777;
    struct ftl_served s = serve_alone(&cfg, r, &c);
    CHECK_EQ_U64(s.done_ns, 777);
    CHECK_EQ_U64(s.split.flash_ns + s.split.link_ns + s.split.ctrl_ns + s.split.wait_ns, 0);
    CHECK_EQ_U64(c.link_up_bytes + c.link_down_bytes + c.ctrl_busy_ns + c.ctrl_cmds, 0);
    check_no_ftl_work(&c);
}

/* Two writes, with or without an Identify between them: the FTL sees the same two writes
 * (its counters agree); with it the second write, whose SQE request goes up while the
 * Identify's 4 KiB are on the up direction, waits for the link. */
static void run_writes(bool identify, struct ftl_counters *c, struct ftl_served *last)
{
    struct ftl_config cfg = gen1_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_request w0 = { .op = FTL_OP_WRITE, .slba = 0, .nlb = 1 };
    struct ftl_request id = admin(0, 0, 4096);
    struct ftl_request w1 = { .op = FTL_OP_WRITE, .arrival_ns = 2000, .slba = 1, .nlb = 1 };
    CHECK_EQ_U64(ftl_engine_serve(e, &w0, last), FTL_OK);
    id.arrival_ns = 1;
    if (identify) {
        CHECK_EQ_U64(ftl_engine_serve(e, &id, last), FTL_OK);
    }
    CHECK_EQ_U64(ftl_engine_serve(e, &w1, last), FTL_OK);
    ftl_get_counters(ftl, c);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

static void test_between_writes(void)
{
    struct ftl_counters with, without;
    struct ftl_served s_with, s_without;
    run_writes(true, &with, &s_with);
    run_writes(false, &without, &s_without);
    CHECK_EQ_U64(with.host_write_pages, 2);
    CHECK_EQ_U64(with.host_write_pages, without.host_write_pages);
    CHECK_EQ_U64(with.nand_user_programs, without.nand_user_programs);
    CHECK_EQ_U64(with.ctrl_cmds, 3);
    CHECK(s_with.split.wait_ns > s_without.split.wait_ns);
    CHECK(s_with.done_ns > s_without.done_ns);
}

int main(void)
{
    test_identify_hand_computed();
    test_data_in_hand_computed();
    test_io_kind_costs_a_read();
    test_prp_list();
    test_off_costs_nothing();
    test_between_writes();
    return check_summary();
}
