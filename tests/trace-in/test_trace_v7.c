/* Unit tests for trace version 7 (commands without FTL work, FTL_OP_ADMIN): the writer's N
 * record, the version it needs and which a recording picks, tools/trace-in's reader
 * reading it back field for field, and every field's range refused in one line naming the
 * file and line (a version-6 trace holding one among them). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "temp_file.h"
#include "femu_trace.h"

#define TRACE_TEST_PREFIX "sim-trace7"
#include "trace_test_util.h"

/* An Identify, a Set Features with data, a zone report and one of the largest: written and
 * read back as the requests they were; nsid 0 is written as 1, as in every record. */
static void test_writer_round_trip_v7(void)
{
    char err[512] = "", text[2048];
    const struct ftl_request reqs[] = {
        { .op = FTL_OP_ADMIN, .arrival_ns = 10, .nsid = 0, .data_out = 4096 },
        { .op = FTL_OP_ADMIN, .arrival_ns = 11, .nsid = 0xffffffffu, .data_in = 64 },
        { .op = FTL_OP_WRITE, .arrival_ns = 12, .slba = 1, .nlb = 1 },
        { .op = FTL_OP_ADMIN, .arrival_ns = 13, .nsid = 2, .flags = FTL_REQ_IO,
          .data_out = 128 },
        { .op = FTL_OP_ADMIN, .arrival_ns = 14, .nsid = 1, .flags = FTL_REQ_IO,
          .data_in = UINT32_MAX, .data_out = UINT32_MAX },
    };
    struct trace_record r;
    const char *path = record_requests(7, 4096, reqs, sizeof(reqs) / sizeof(reqs[0]), 20, text,
                                       sizeof(text));
    if (path == NULL) {
        return;
    }
    CHECK(strncmp(text, "V 7\n", 4) == 0);
    /* the payload is in bytes, not in sectors: a 4 KiB-sector writer does not scale it */
    CHECK_CONTAINS(text, "\nN 10 1 admin 0 4096\nN 11 4294967295 admin 64 0\n"
                         "W 12 8 8 1 0\nN 13 2 io 0 128\n"
                         "N 14 1 io 4294967295 4294967295\nE 20\n");

    struct trace_reader *t = OPEN_TRACE(path, 7);
    if (t == NULL) {
        return;
    }
    for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
        const struct ftl_request *q = &reqs[i];
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
        if (q->op != FTL_OP_ADMIN) {
            CHECK(r.op == TRACE_WRITE);
            continue;
        }
        CHECK(r.op == TRACE_ADMIN && r.time_ns == q->arrival_ns);
        CHECK(r.nsid == (q->nsid ? q->nsid : 1));
        CHECK(r.io == ((q->flags & FTL_REQ_IO) != 0));
        CHECK(r.data_in == q->data_in && r.data_out == q->data_out);
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

/* Versions 2 to 6 have no N record: the writer fails once, naming version 7. */
static void test_writer_refuses(void)
{
    const struct ftl_request r = { .op = FTL_OP_ADMIN, .arrival_ns = 5, .data_out = 8 };

    for (int version = 2; version <= 6; version++) {
        EXPECT_WRITER_REFUSES(version, &r, "a command without FTL work (N) needs a "
                              "version-7 trace");
    }
}

/* 7 only with N records to come: every other recording keeps its version. */
static void test_version_choice(void)
{
    for (int b = 0; b < 16; b++) {
        bool kv = b & 1, zone = b & 2, fdp = b & 4, wc = b & 8;
        CHECK(io_trace_version_front(false, kv, zone, fdp, wc) ==
              io_trace_version_kv(kv, zone, fdp, wc));
        CHECK(io_trace_version_front(true, kv, zone, fdp, wc) == 7);
    }
}

static void test_version7_errors(void)
{
    EXPECT_ERROR("V 6\nW 0 1 8 1 0\nN 0 1 admin 0 4096\n", 1, 3,
                 "N: a command without FTL work needs a version-7 trace (this one is "
                 "version 6)");
    EXPECT_ERROR("V 2\nN 0 1 admin 0 0\n", 0, 2, "N: a command without FTL work needs a "
                 "version-7");
    EXPECT_ERROR("N 0 1 admin 0 0\n", 0, 1, "unknown op 'N'");
    EXPECT_ERROR("V 7\nN 0 1 admin 0\n", 0, 2, "N: too few fields (want N t nsid kind in "
                 "out)");
    EXPECT_ERROR("V 7\nN 0 1 admin 0 0 0\n", 0, 2, "N: trailing junk '0'");
    EXPECT_ERROR("V 7\nN 0 0 admin 0 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 7\nN 0 4294967296 admin 0 0\n", 0, 2, "nsid 4294967296 is not a "
                 "namespace id");
    EXPECT_ERROR("V 7\nN 9007199254740993 1 admin 0 0\n", 0, 2, "time 9007199254740993 ns");
    EXPECT_ERROR("V 7\nN x 1 admin 0 0\n", 0, 2, "time 'x' is not a decimal number");
    EXPECT_ERROR("V 7\nN 0 1 Admin 0 0\n", 0, 2, "N: kind 'Admin' is not admin or io");
    EXPECT_ERROR("V 7\nN 0 1 1 0 0\n", 0, 2, "N: kind '1' is not admin or io");
    EXPECT_ERROR("V 7\nN 0 1 io 4294967296 0\n", 0, 2, "N: in 4294967296 is over 4294967295");
    EXPECT_ERROR("V 7\nN 0 1 io 0 4294967296\n", 0, 2, "N: out 4294967296 is over "
                 "4294967295");
    EXPECT_ERROR("V 7\nN 0 1 io -1 0\n", 0, 2, "N: in '-1' is not a decimal number");
    EXPECT_ERROR("V 7\nN 0 1 io 0 99999999999999999999\n", 0, 2,
                 "N: out '99999999999999999999' does not fit in 64 bits");
    EXPECT_ERROR("V 7\nE 5\nN 6 1 admin 0 0\n", 1, 3, "N after the end record E");
    EXPECT_ERROR("V 7\nQ 0\n", 0, 2, "version 6: KS KR KD KE KL KC KX; version 7: N; "
                 "fields: femu_ftl/trace.h)");
    EXPECT_ERROR("V 6\nQ 0\n", 0, 2, "version 6: KS KR KD KE KL KC KX; fields");
}

/* No N record at all: version 7 reads as version 6 would; N is no block request to
 * anything but its own record. */
static void test_version7_reads(void)
{
    char err[512] = "";
    const char *path = write_str("V 7\nN 3 1 io 0 0 # a report of nothing\nKE 4 2 61\n"
                                 "W 5 8 8 1 0 fua\nWC 6 1 0\n");
    struct trace_reader *t = OPEN_TRACE(path, 0);
    struct trace_record r;

    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ADMIN && r.io && r.data_in == 0 && r.data_out == 0 && r.line == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_KV_EXIST && !r.io);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE && r.fua);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE_CACHE && !r.wce);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

int main(void)
{
    test_writer_round_trip_v7();
    test_writer_refuses();
    test_version_choice();
    test_version7_errors();
    test_version7_reads();
    return check_summary();
}
