/* Unit tests for trace version 8 (NVMe power management, FTL_OP_POWER): the writer's PS,
 * PA and PG records, the version they need and which a recording picks, tools/trace-in's
 * reader reading them back field for field, every field's range refused in one line
 * naming the file and line, and a recording with power commands and idle gaps replayed
 * through a fresh engine to the same power-state counters. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "temp_file.h"
#include "femu_trace.h"

#define TRACE_TEST_PREFIX "sim-trace8"
#include "trace_test_util.h"

#define MS 1000000ull

static const struct ftl_power_cmd set3 = { .action = FTL_POWER_SET_STATE, .ps = 3 };
static const struct ftl_power_cmd get = { .action = FTL_POWER_GET_STATE };
static const struct ftl_power_cmd off = { .action = FTL_POWER_SET_APST };

/* PS0-2 -> PS3 after 100 ms, PS3 -> PS4 after 2000 ms (what --apst linux gives a drive
 * whose PS4 takes 25 ms to enter and leave). */
static struct ftl_power_cmd table(void)
{
    struct ftl_power_cmd t = { .action = FTL_POWER_SET_APST, .apst_enabled = true };
    for (int s = 0; s < 3; s++) {
        t.apst[s] = (struct ftl_apst_entry){ 100, 3 };
    }
    t.apst[3] = (struct ftl_apst_entry){ 2000, 4 };
    return t;
}

static struct ftl_request power(uint64_t at, const struct ftl_power_cmd *cmd)
{
    return (struct ftl_request){ .op = FTL_OP_POWER, .arrival_ns = at, .power = cmd };
}

/* Every record kind written and read back as the command it was; an entry without an idle
 * time is written 0:0; the commands no record can hold are left out. */
static void test_writer_round_trip_v8(void)
{
    char err[512] = "", text[2048];
    struct ftl_power_cmd full = table(), last = { .action = FTL_POWER_SET_APST };
    struct ftl_power_cmd far = { .action = FTL_POWER_SET_STATE, .ps = 32 };
    struct ftl_power_cmd long_idle = table(), bad_action = get;
    last.apst[31] = (struct ftl_apst_entry){ 0xffffff, 31 };
    last.apst[5] = (struct ftl_apst_entry){ 0, 9 };
    long_idle.apst[0].itpt_ms = 0x1000000;
    bad_action.action = (enum ftl_power_action)9;
    const struct ftl_request reqs[] = {
        power(10, &full), power(11, &set3), power(12, &get), power(13, &off),
        power(14, &last), power(15, NULL), power(16, &far), power(17, &long_idle),
        power(18, &bad_action),
    };
    struct trace_record r;
    const char *path = record_requests(8, 512, reqs, sizeof(reqs) / sizeof(reqs[0]), 20, text,
                                       sizeof(text));
    if (path == NULL) {
        return;
    }
    CHECK(strncmp(text, "V 8\n", 4) == 0);
    CHECK_CONTAINS(text, "\nPA 10 1 100:3 100:3 100:3 2000:4\nPS 11 3\nPG 12\nPA 13 0\n"
                         "PA 14 0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 "
                         "0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 "
                         "16777215:31\nE 20\n");

    struct trace_reader *t = OPEN_TRACE(path, 8);
    if (t == NULL) {
        return;
    }
    const struct ftl_power_cmd *want[] = { &full, &set3, &get, &off };
    for (size_t i = 0; i < 4; i++) {
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
        CHECK(r.op == TRACE_POWER && r.time_ns == 10 + i);
        CHECK(memcmp(&r.power, want[i], sizeof(r.power)) == 0);
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_POWER);
    last.apst[5] = (struct ftl_apst_entry){ 0, 0 };
    CHECK(memcmp(&r.power, &last, sizeof(r.power)) == 0);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

/* Versions 2 to 7 have no power record: the writer fails once, naming version 8. */
static void test_writer_refuses(void)
{
    const struct ftl_request r = power(5, &get);

    for (int version = 2; version <= 7; version++) {
        EXPECT_WRITER_REFUSES(version, &r, "a power management command (PS, PA, PG) needs "
                              "a version-8 trace");
    }
}

/* 8 only with power commands to come: every other recording keeps its version. */
static void test_version_choice(void)
{
    for (int b = 0; b < 32; b++) {
        bool front = b & 1, kv = b & 2, zone = b & 4, fdp = b & 8, wc = b & 16;
        CHECK(io_trace_version_power(false, front, kv, zone, fdp, wc) ==
              io_trace_version_front(front, kv, zone, fdp, wc));
        CHECK(io_trace_version_power(true, front, kv, zone, fdp, wc) == 8);
    }
}

static void test_version8_errors(void)
{
    EXPECT_ERROR("V 7\nW 0 1 8 1 0\nPS 0 1\n", 1, 3, "PS: a power management command "
                 "needs a version-8 trace (this one is version 7)");
    EXPECT_ERROR("V 2\nPG 0\n", 0, 2, "PG: a power management command needs a version-8");
    EXPECT_ERROR("PS 0 1\n", 0, 1, "unknown op 'PS'");
    EXPECT_ERROR("V 8\nPS 0\n", 0, 2, "PS: too few fields (want PS t ps)");
    EXPECT_ERROR("V 8\nPS\n", 0, 2, "PS: too few fields (no time)");
    EXPECT_ERROR("V 8\nPS 0 1 2\n", 0, 2, "PS: trailing junk '2'");
    EXPECT_ERROR("V 8\nPG 0 1\n", 0, 2, "PG: trailing junk '1'");
    EXPECT_ERROR("V 8\nPS 0 32\n", 0, 2, "PS: state 32 is over 31");
    EXPECT_ERROR("V 8\nPS 0 -1\n", 0, 2, "PS: state '-1' is not a decimal number");
    EXPECT_ERROR("V 8\nPS x 1\n", 0, 2, "time 'x' is not a decimal number");
    EXPECT_ERROR("V 8\nPG 9007199254740993\n", 0, 2, "time 9007199254740993 ns");
    EXPECT_ERROR("V 8\nPA 0\n", 0, 2, "PA: too few fields (want PA t apste itpt:itps...)");
    EXPECT_ERROR("V 8\nPA 0 2\n", 0, 2, "PA: apste 2 is over 1");
    EXPECT_ERROR("V 8\nPA 0 1 100\n", 0, 2, "PA: entry 0 '100' is not itpt:itps");
    EXPECT_ERROR("V 8\nPA 0 1 0:0 100:32\n", 0, 2, "PA: entry 1's itps 32 is over 31");
    EXPECT_ERROR("V 8\nPA 0 1 16777216:3\n", 0, 2, "PA: entry 0's itpt 16777216 is over "
                 "16777215");
    EXPECT_ERROR("V 8\nPA 0 1 :3\n", 0, 2, "PA: entry 0's itpt is empty");
    EXPECT_ERROR("V 8\nPA 0 1 5:\n", 0, 2, "PA: entry 0's itps is empty");
    EXPECT_ERROR("V 8\nPA 0 1 5:3:1\n", 0, 2, "PA: entry 0's itps '3:1' is not a decimal");
    EXPECT_ERROR("V 8\nPA 0 1 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 "
                 "0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0 0:0\n",
                 0, 2, "PA: 33 entries, more than the 32 power states NVMe has");
    EXPECT_ERROR("V 8\nE 5\nPG 6\n", 1, 3, "PG after the end record E");
    EXPECT_ERROR("V 8\nQ 0\n", 0, 2, "version 7: N; version 8: PS PA PG; fields");
}

/* A state the reader cannot check (ps_count is the drive's): read as written. */
static void test_version8_reads(void)
{
    char err[512] = "";
    const char *path = write_str("V 8\nPS 3 31 # the deepest NVMe has\nPA 4 0 7:31\n"
                                 "N 5 1 admin 0 0\n");
    struct trace_reader *t = OPEN_TRACE(path, 0);
    struct trace_record r;

    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_POWER && r.power.action == FTL_POWER_SET_STATE && r.power.ps == 31);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_POWER);
    CHECK(!r.power.apst_enabled && r.power.apst[0].itpt_ms == 7 && r.power.apst[0].itps == 31);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_ADMIN);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

static struct ftl_config power_config(void)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    cfg.nchs = 1, cfg.luns_per_ch = 2, cfg.blks_per_pl = 64, cfg.pgs_per_blk = 16;
    cfg.secs_per_pg = 8, cfg.devsz_mb = 1;
    cfg.ps_count = 5;
    cfg.ps[1] = (struct ftl_ps_desc){ .max_mw = 12000, .idle_mw = 3000, .perf_pcent = 50 };
    cfg.ps[2] = (struct ftl_ps_desc){ .max_mw = 5000, .idle_mw = 2000, .perf_pcent = 25 };
    cfg.ps[3] = (struct ftl_ps_desc){ .max_mw = 50, .idle_mw = 50, .enlat_us = 1000,
                                      .exlat_us = 2000, .nonop = 1 };
    cfg.ps[4] = (struct ftl_ps_desc){ .max_mw = 5, .idle_mw = 5, .enlat_us = 5000,
                                      .exlat_us = 20000, .nonop = 1 };
    return cfg;
}

/* The request a record of the recording below stands for (its power command in *p). */
static bool replayed(const struct trace_record *r, struct ftl_power_cmd *p,
                     struct ftl_request *q)
{
    *q = (struct ftl_request){ .arrival_ns = r->time_ns, .slba = r->lba, .nlb = r->nsect,
                               .nsid = r->nsid };
    switch (r->op) {
    case TRACE_WRITE:
        q->op = FTL_OP_WRITE;
        return true;
    case TRACE_READ:
        q->op = FTL_OP_READ;
        return true;
    case TRACE_POWER:
        *p = r->power;
        q->op = FTL_OP_POWER;
        q->power = p;
        return true;
    default:
        return false;
    }
}

/*
 * A recording: the table and PS1 at 0, writes and reads with idle gaps (long enough for
 * PS3 and PS4), a host move to PS3, a Get, PS7 (refused: no such state), the table off;
 * replayed through a fresh engine, the counters (power states' among them) are the same.
 */
static void test_replay_same_counters(void)
{
    struct ftl_config cfg = power_config();
    char err[512] = "";
    struct ftl_power_cmd t = table(), seven = { .action = FTL_POWER_SET_STATE, .ps = 7 };
    struct ftl_power_cmd one = { .action = FTL_POWER_SET_STATE, .ps = 1 };
    const char *path = write_str("");
    struct ftl *a = ftl_create(&cfg, err, sizeof(err)), *b = ftl_create(&cfg, err, sizeof(err));
    struct io_trace_writer *w = io_trace_writer_open_version(path, "test", 0, 512, 8, err,
                                                             sizeof(err));
    CHECK(a && b && w);
    if (!a || !b || !w) {
        return;
    }
    struct ftl_engine *e = ftl_engine_create(a, NULL, NULL);
    ftl_engine_record(e, w);
    const struct ftl_request reqs[] = {
        power(0, &t), power(0, &one),
        { .op = FTL_OP_WRITE, .arrival_ns = 0, .slba = 0, .nlb = 8 },
        { .op = FTL_OP_WRITE, .arrival_ns = 50 * MS, .slba = 8, .nlb = 16 },
        { .op = FTL_OP_READ, .arrival_ns = 400 * MS, .slba = 0, .nlb = 8 },
        { .op = FTL_OP_READ, .arrival_ns = 3000 * MS, .slba = 8, .nlb = 8 },
        power(3001 * MS, &set3), power(3002 * MS, &get),
        { .op = FTL_OP_WRITE, .arrival_ns = 3003 * MS, .slba = 16, .nlb = 8 },
        power(3004 * MS, &seven), power(3005 * MS, &off),
        { .op = FTL_OP_READ, .arrival_ns = 9000 * MS, .slba = 16, .nlb = 8 },
    };
    int refused = 0;
    for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
        refused += ftl_engine_serve(e, &reqs[i], NULL) == FTL_E_INVAL;
    }
    ftl_engine_advance(e, 12000 * MS);
    CHECK_EQ_U64(refused, 1);
    CHECK(io_trace_writer_close(w, 12000 * MS, err, sizeof(err)) == 0);
    ftl_engine_destroy(e);

    struct trace_reader *rd = trace_open(path, err, sizeof(err));
    struct ftl_engine *f = ftl_engine_create(b, NULL, NULL);
    struct trace_record r;
    struct ftl_power_cmd p;
    struct ftl_request q;
    uint64_t end = 0;
    CHECK(rd != NULL);
    while (rd && trace_next(rd, &r, err, sizeof(err)) == 1) {
        if (replayed(&r, &p, &q)) {
            ftl_engine_serve(f, &q, NULL);
        } else if (r.op == TRACE_ADVANCE || r.op == TRACE_END) {
            ftl_engine_advance(f, r.time_ns);
            end = r.time_ns;
        }
    }
    CHECK_EQ_U64(end, 12000 * MS);
    struct ftl_counters ca, cb;
    ftl_get_counters(a, &ca);
    ftl_get_counters(b, &cb);
    CHECK(memcmp(&ca, &cb, sizeof(ca)) == 0);
    /* the recording went through PS1, PS3 and PS4 (exits from both) */
    CHECK(ca.ps_time_ns[1] > 0 && ca.ps_time_ns[3] > 0 && ca.ps_time_ns[4] > 0);
    CHECK(ca.ps_exits >= 3 && ca.ps_exit_wait_ns > 0);
    uint64_t total = 0;
    for (int s = 0; s < FTL_PS_MAX; s++) {
        total += ca.ps_time_ns[s];
    }
    CHECK_EQ_U64(total, 12000 * MS);
    trace_close(rd);
    ftl_engine_destroy(f);
    ftl_destroy(a);
    ftl_destroy(b);
    unlink(path);
}

int main(void)
{
    test_writer_round_trip_v8();
    test_writer_refuses();
    test_version_choice();
    test_version8_errors();
    test_version8_reads();
    test_replay_same_counters();
    return check_summary();
}
