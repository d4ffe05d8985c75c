/* Unit tests for trace version 5 (the volatile write cache): the writer's FUA marker on W
 * and its WC record, the version each needs, tools/trace-in/femu_trace.c reading both back, and
 * their errors naming the file and line. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "temp_file.h"
#include "femu_trace.h"

#define TRACE_TEST_PREFIX "sim-trace5"
#include "trace_test_util.h"

/* A FUA write ends with "fua", a plain one is version 4's line; WC records the switch. */
static void test_writer_round_trip_v5(void)
{
    char err[512] = "", text[1024];
    const struct ftl_request reqs[] = {
        { .op = FTL_OP_WRITE, .arrival_ns = 10, .slba = 8, .nlb = 4, .flags = FTL_REQ_FUA },
        { .op = FTL_OP_WRITE, .arrival_ns = 20, .slba = 1, .nlb = 1, .stream = 2 },
        { .op = FTL_OP_SET_WRITE_CACHE, .arrival_ns = 30 },
        { .op = FTL_OP_SET_WRITE_CACHE, .arrival_ns = 40, .nsid = 3, .flags = FTL_REQ_WCE },
    };
    struct trace_record r;
    const char *path = record_requests(5, 512, reqs, sizeof(reqs) / sizeof(reqs[0]), 50, text,
                                       sizeof(text));
    if (path == NULL) {
        return;
    }
    CHECK(strncmp(text, "V 5\n", 4) == 0);
    CHECK_CONTAINS(text, "\nW 10 8 4 1 0 fua\nW 20 1 1 1 2\nWC 30 1 0\nWC 40 3 1\nE 50\n");

    struct trace_reader *t = trace_open(path, err, sizeof(err));
    CHECK(t != NULL && trace_version(t) == 5);
    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.time_ns == 10 && r.lba == 8 && r.nsect == 4 && r.fua &&
          r.stream == 0);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.lba == 1 && r.stream == 2 && !r.fua);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE_CACHE && r.time_ns == 30 && r.nsid == 1 && !r.wce);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE_CACHE && r.time_ns == 40 && r.nsid == 3 && r.wce);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

/* Version 4 and older have neither: the writer fails once, naming what needs 5; a plain
 * write still goes into a version-2 trace unchanged. */
static void test_older_writer_refuses(void)
{
    const struct ftl_request fua = { .op = FTL_OP_WRITE, .arrival_ns = 5, .nlb = 1,
                                     .flags = FTL_REQ_FUA };
    const struct ftl_request wc = { .op = FTL_OP_SET_WRITE_CACHE, .arrival_ns = 5 };
    const struct ftl_request *asks[] = { &fua, &wc };
    char err[512] = "";

    for (int version = 2; version <= 4; version++) {
        for (int i = 0; i < 2; i++) {
            const char *path = write_str("");
            struct io_trace_writer *w = io_trace_writer_open_version(path, "test", 0, 512,
                                                                     version, err,
                                                                     sizeof(err));
            CHECK(w != NULL);
            if (w == NULL) {
                return;
            }
            CHECK(io_trace_write_request(w, asks[i], err, sizeof(err)) == -1);
            CHECK_CONTAINS(err, "a FUA write or a write cache switch needs a version-5 trace");
            CHECK(io_trace_write_request(w, asks[i], err, sizeof(err)) == 0);
            io_trace_writer_close(w, 0, NULL, 0);
            unlink(path);
        }
    }
}

static void test_version_choice(void)
{
    CHECK(io_trace_version_needed(false, false, false) == 2);
    CHECK(io_trace_version_needed(true, false, false) == 3);
    CHECK(io_trace_version_needed(false, true, false) == 4);
    CHECK(io_trace_version_needed(false, false, true) == 5);
    CHECK(io_trace_version_needed(true, true, true) == 5);
}

static void test_version5_errors(void)
{
    EXPECT_ERROR("V 4\nWC 0 1 1\n", 0, 2, "unknown op 'WC'");
    EXPECT_ERROR("V 4\nW 0 1 8 1 0 fua\n", 0, 2, "W: trailing junk 'fua'");
    EXPECT_ERROR("V 5\nW 0 1 8 1 0 fast\n", 0, 2, "W: trailing junk 'fast'");
    EXPECT_ERROR("V 5\nW 0 1 8 1 0 fua x\n", 0, 2, "W: trailing junk");
    EXPECT_ERROR("V 5\nWC 0 1\n", 0, 2, "WC: too few fields (want WC t nsid wce)");
    EXPECT_ERROR("V 5\nWC 0 1 1 0\n", 0, 2, "WC: trailing junk '0'");
    EXPECT_ERROR("V 5\nWC 0 1 2\n", 0, 2, "WC: wce '2' is not 0 or 1");
    EXPECT_ERROR("V 5\nWC 0 0 1\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 5\nE 5\nWC 6 1 0\n", 1, 3, "WC after the end record E");
    EXPECT_ERROR("V 5\nQ 0\n", 0, 2, "version 4: U; version 5: WC and W's fua; fields");
}

int main(void)
{
    test_writer_round_trip_v5();
    test_older_writer_refuses();
    test_version_choice();
    test_version5_errors();
    return check_summary();
}
