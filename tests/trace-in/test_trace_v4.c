/* Unit tests for trace version 4 (FDP): the writer's U record and its version choice,
 * tools/trace-in/femu_trace.c reading W's placement and U back, and every U error naming the
 * file and line. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "temp_file.h"
#include "femu_trace.h"

#define TRACE_TEST_PREFIX "sim-trace4"
#include "trace_test_util.h"

/* The writer records a RUH update as U and a write's handle as W's last field; the
 * reader gives both back. */
static void test_writer_round_trip_v4(void)
{
    char err[512] = "", text[1024];
    const struct ftl_request reqs[] = {
        { .op = FTL_OP_WRITE, .arrival_ns = 10, .slba = 1, .nlb = 2, .stream = 3 },
        { .op = FTL_OP_RUH_UPDATE, .arrival_ns = 20, .stream = 3 },
        { .op = FTL_OP_RUH_UPDATE, .arrival_ns = 30, .stream = 0, .nsid = 2 },
        { .op = FTL_OP_ZONE_READ, .arrival_ns = 40, .slba = 2, .nlb = 1, .nsid = 2 },
    };
    struct trace_record r;
    const char *path = record_requests(4, 4096, reqs, sizeof(reqs) / sizeof(reqs[0]), 50, text,
                                       sizeof(text));
    if (path == NULL) {
        return;
    }
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    CHECK(t != NULL && trace_version(t) == 4);
    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.time_ns == 10 && r.lba == 8 && r.nsect == 16 &&
          r.stream == 3 && r.nsid == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_RUH_UPDATE && r.time_ns == 20 && r.stream == 3 && r.nsid == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_RUH_UPDATE && r.time_ns == 30 && r.stream == 0 && r.nsid == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_ZONE_READ);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END && r.time_ns == 50);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

/* A version-3 (or 2) writer has no U record: it fails once, then records nothing. */
static void test_older_writer_refuses_ruh_update(void)
{
    const struct ftl_request update = { .op = FTL_OP_RUH_UPDATE, .arrival_ns = 5 };
    char err[512] = "";
    for (int version = 2; version <= 3; version++) {
        const char *path = write_str("");
        struct io_trace_writer *w = io_trace_writer_open_version(path, "test", 0, 512,
                                                                 version, err, sizeof(err));
        CHECK(w != NULL);
        if (w == NULL) {
            return;
        }
        CHECK(io_trace_write_request(w, &update, err, sizeof(err)) == -1);
        CHECK_CONTAINS(err, "a reclaim unit handle update needs a version-4 trace");
        CHECK(io_trace_write_request(w, &update, err, sizeof(err)) == 0);
        io_trace_writer_close(w, 0, NULL, 0);
        unlink(path);
    }
}

static void test_version_choice(void)
{
    CHECK(io_trace_version_for(false, false) == 2);
    CHECK(io_trace_version_for(true, false) == 3);
    CHECK(io_trace_version_for(false, true) == 4);
    CHECK(io_trace_version_for(true, true) == 4);
    CHECK(IO_TRACE_VERSION == 8);
}

static void test_version4_records(void)
{
    char err[512] = "";
    const char *path = write_str("V 4\n# a comment\nW 5 0 8 1 2\nU 6 1 2\nU 7 3 0  # ok\n"
                                 "ZW 8 0 8 2\nE 9\n");
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;

    CHECK(t != NULL && trace_version(t) == 4);
    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE && r.stream == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_RUH_UPDATE &&
          r.time_ns == 6 && r.nsid == 1 && r.stream == 2 && r.line == 4);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_RUH_UPDATE &&
          r.nsid == 3 && r.stream == 0);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_ZONE_WRITE);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

static void test_version4_errors(void)
{
    EXPECT_ERROR("V 3\nU 0 1 0\n", 0, 2, "unknown op 'U'");     /* version 4's */
    EXPECT_ERROR("V 2\nU 0 1 0\n", 0, 2, "unknown op 'U'");
    EXPECT_ERROR("U 1 0\n", 0, 1, "unknown op 'U'");            /* version 1 */
    EXPECT_ERROR("V 4\nQ 0\n", 0, 2, "version 3: ZW ZA ZR ZM C; version 4: U; fields");
    EXPECT_ERROR("V 4\nU 0 1\n", 0, 2, "U: too few fields (want U t nsid ruh)");
    EXPECT_ERROR("V 4\nU 0 1 0 0\n", 0, 2, "U: trailing junk '0'");
    EXPECT_ERROR("V 4\nU x 1 0\n", 0, 2, "time 'x' is not a decimal number");
    EXPECT_ERROR("V 4\nU 9007199254740993 1 0\n", 0, 2, "beyond the latest");
    EXPECT_ERROR("V 4\nU 0 0 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 4\nU 0 1 -1\n", 0, 2, "ruh '-1' is not a decimal number");
    EXPECT_ERROR("V 4\nU 0 1 2147483648\n", 0, 2, "U: ruh 2147483648 is too large");
    EXPECT_ERROR("V 4\nU 0 1 99999999999999999999\n", 0, 2, "does not fit in 64 bits");
    EXPECT_ERROR("V 4\nE 5\nU 6 1 0\n", 1, 3, "U after the end record E");
    EXPECT_ERROR("V 4\nW 0 1 8 1 h\n", 0, 2, "placement 'h' is not a decimal number");
    EXPECT_ERROR("V 4\nW 0 1 8 1 2147483648\n", 0, 2, "W: placement 2147483648 is too large");
    EXPECT_ERROR("V 4\nW 0 1 8 1\n", 0, 2, "W: too few fields");
    EXPECT_ERROR("V 9\n", 0, 1, "trace version 9 is not supported (this reader knows 1 to 8)");
    EXPECT_ERROR("V 4 4\n", 0, 1, "want 'V 2' to 'V 8'");
}

int main(void)
{
    test_writer_round_trip_v4();
    test_older_writer_refuses_ruh_update();
    test_version_choice();
    test_version4_records();
    test_version4_errors();
    return check_summary();
}
