/* Unit tests for tools/trace-in/femu_trace.c: happy path and every error of trace versions 1,
 * 2 and 3, on temporary files; the FTL library's writer read back. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "temp_file.h"
#include "femu_trace.h"

#define TRACE_TEST_PREFIX "sim-trace"
#include "trace_test_util.h"

static void test_happy_path(void)
{
    const char *content =
        "# DFTL trace\n"
        "S 12345\n"
        "\n"
        "W 0 8 H\n"
        "W\t16\t8\tC   # cold write\n"
        "   R 100 1\n"
        "W 7 3\r\n"
        "  \t \n"
        "   # indented comment\n"
        "R 18446744073709551614 1\n"
        "W 0 18446744073709551615\n"
        "S 18446744073709551615";       /* no trailing newline */
    char err[512] = "";
    const char *path = write_str(content);
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;

    CHECK(t != NULL);
    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_SEED && r.seed == 12345 && r.line == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.lba == 0 && r.nsect == 8 &&
          r.stream == 1 && r.line == 4);    /* H: hot, stream 1 */
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.lba == 16 && r.nsect == 8 &&
          r.stream == 0 && r.line == 5);    /* C: cold, stream 0 */
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_READ && r.lba == 100 && r.nsect == 1 &&
          r.stream == -1 && r.line == 6);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.lba == 7 && r.nsect == 3 &&
          r.stream == -1 && r.line == 7);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_READ && r.lba == UINT64_MAX - 1 && r.nsect == 1 &&
          r.line == 10);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.lba == 0 && r.nsect == UINT64_MAX &&
          r.line == 11);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_SEED && r.seed == UINT64_MAX && r.line == 12);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);   /* EOF repeats */
    trace_close(t);
    unlink(path);
}

static void test_edge_files(void)
{
    char err[512] = "";
    struct trace_record r;
    struct trace_reader *t;
    const char *path;

    /* empty file, comments only, CRLF only */
    {
        const char *contents[] = { "", "# nothing\n\n", "\r\n\r\n",
                                   "   " };

        for (int i = 0; i < 4; i++) {
            path = write_str(contents[i]);
            t = trace_open(path, err, sizeof(err));
            CHECK(t != NULL && trace_next(t, &r, err, sizeof(err)) == 0);
            trace_close(t);
            unlink(path);
        }
    }

    /* a line of exactly TRACE_MAX_LINE bytes (plus CRLF) is fine, one
     * more byte is not */
    {
        static char buf[TRACE_MAX_LINE + 64];
        size_t n;

        strcpy(buf, "W 1 2 #");
        n = strlen(buf);
        memset(buf + n, 'x', TRACE_MAX_LINE - n);
        strcpy(buf + TRACE_MAX_LINE, "\r\nR 5 5\n");
        path = write_str(buf);
        t = trace_open(path, err, sizeof(err));
        CHECK(t != NULL);
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.lba == 1);
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.lba == 5 &&
              r.line == 2);
        CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
        trace_close(t);
        unlink(path);

        memset(buf + n, 'x', TRACE_MAX_LINE + 1 - n);
        strcpy(buf + TRACE_MAX_LINE + 1, "\n");
        EXPECT_ERROR(buf, 0, 1, "longer than 16384");
    }

    /* a very long line (1 MB) is rejected without trouble */
    {
        size_t big = 1 << 20;
        char *buf = malloc(big + 16);

        strcpy(buf, "W 1 1\nW ");
        memset(buf + 8, '1', big);
        strcpy(buf + 8 + big, "\n");
        EXPECT_ERROR(buf, 1, 2, "longer than");
        free(buf);
    }

    /* NUL byte */
    {
        const char data[] = "W 1 1\nW 2\0 1\n";

        path = write_tmp(data, sizeof(data) - 1);
        t = trace_open(path, err, sizeof(err));
        CHECK(t != NULL);
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
        CHECK(trace_next(t, &r, err, sizeof(err)) == -1);
        CHECK_CONTAINS(err, ":2: NUL byte");
        trace_close(t);
        unlink(path);
    }

    /* open errors and NULL arguments */
    CHECK(trace_open("/nonexistent/dir/trace.txt", err, sizeof(err)) ==
          NULL);
    CHECK_CONTAINS(err, "/nonexistent/dir/trace.txt: cannot open");
    CHECK(trace_open("", err, sizeof(err)) == NULL);
    CHECK(trace_open(NULL, NULL, 0) == NULL);
    CHECK(trace_next(NULL, &r, err, sizeof(err)) == -1);
    trace_close(NULL);

    /* "-" reads standard input */
    path = write_str("R 9 9\n");
    if (freopen(path, "r", stdin) != NULL) {
        t = trace_open("-", err, sizeof(err));
        CHECK(t != NULL);
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.lba == 9);
        CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
        trace_close(t);
    }
    unlink(path);
}

static void test_errors(void)
{
    EXPECT_ERROR("X 1 2\n", 0, 1, "unknown op 'X'");
    EXPECT_ERROR("w 1 2\n", 0, 1, "unknown op 'w'");
    EXPECT_ERROR("WRITE 1 2\n", 0, 1, "unknown op 'WRITE'");
    EXPECT_ERROR("W 1 2\n\n# c\nQ\n", 1, 4, "unknown op 'Q'");
    EXPECT_ERROR("S\n", 0, 1, "missing seed");
    EXPECT_ERROR("S 1 2\n", 0, 1, "trailing junk '2'");
    EXPECT_ERROR("S x\n", 0, 1, "seed 'x' is not a decimal number");
    EXPECT_ERROR("S -1\n", 0, 1, "not a decimal number");
    EXPECT_ERROR("S 18446744073709551616\n", 0, 1, "does not fit");
    EXPECT_ERROR("W\n", 0, 1, "missing lba and nsect");
    EXPECT_ERROR("W 5\n", 0, 1, "missing nsect");
    EXPECT_ERROR("R 5 # no count\n", 0, 1, "missing nsect");
    EXPECT_ERROR("R\n", 0, 1, "missing lba");
    EXPECT_ERROR("W abc 8\n", 0, 1, "lba 'abc' is not a decimal number");
    EXPECT_ERROR("W 0x10 8\n", 0, 1, "lba '0x10' is not a decimal");
    EXPECT_ERROR("W 1 8x\n", 0, 1, "nsect '8x' is not a decimal number");
    EXPECT_ERROR("W 1 -8\n", 0, 1, "nsect '-8'");
    EXPECT_ERROR("W 1 +8\n", 0, 1, "nsect '+8'");
    EXPECT_ERROR("W 99999999999999999999 8\n", 0, 1, "does not fit");
    EXPECT_ERROR("W 1 0\n", 0, 1, "nsect is 0");
    EXPECT_ERROR("R 7 0 \n", 0, 1, "nsect is 0");
    EXPECT_ERROR("W 18446744073709551615 1\n", 0, 1, "overflows");
    EXPECT_ERROR("R 2 18446744073709551614\n", 0, 1, "overflows");
    EXPECT_ERROR("W 1 8 X\n", 0, 1, "bad stream tag 'X'");
    EXPECT_ERROR("W 1 8 h\n", 0, 1, "bad stream tag 'h'");
    EXPECT_ERROR("W 1 8 HC\n", 0, 1, "bad stream tag 'HC'");
    EXPECT_ERROR("W 1 8 H junk\n", 0, 1, "trailing junk 'junk'");
    EXPECT_ERROR("W 1 8 H 1 2 3\n", 0, 1, "trailing junk '1'");
    EXPECT_ERROR("R 1 8 H\n", 0, 1, "trailing junk 'H'");
    EXPECT_ERROR("W 1 8#x\n", 0, 1, "nsect '8#x'");
    EXPECT_ERROR("W 1 8\rH\n", 0, 1, "nsect '8\rH'");
    EXPECT_ERROR("W 1 1\nW 2 2\nW 3 3 Q", 2, 3, "bad stream tag 'Q'");
}

static void test_version2(void)
{
    const char *content =
        "# recorded\n"
        "V 2\n"
        "W 100 0 8 1 3\n"
        "R 250 16 1 2   # nsid 2\n"
        "D 300 1 0 8 64 0 128 16\n"
        "F 400 1\n"
        "P 500 steady-state\n"
        "A 1000000000\n"
        "W 90 8 8 1 0\n"              /* fetched before the advance, served after it */
        "Y 1100000000 8 16 3\n"
        "X 1200000000 2 64 128 1\n"
        "X 1300000000 1 0 8 0\n"
        "E 2000000000\n";
    char err[512] = "";
    const char *path = write_str(content);
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;

    CHECK(t != NULL);
    if (t == NULL) {
        return;
    }
    CHECK(trace_version(t) == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.time_ns == 100 && r.lba == 0 && r.nsect == 8 &&
          r.nsid == 1 && r.stream == 3 && r.line == 3);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_READ && r.time_ns == 250 && r.lba == 16 && r.nsect == 1 &&
          r.nsid == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_DEALLOCATE && r.time_ns == 300 && r.nsid == 1 && r.nranges == 3 &&
          r.ranges[0].lba == 0 && r.ranges[0].nsect == 8 && r.ranges[1].lba == 64 &&
          r.ranges[1].nsect == 0 && r.ranges[2].lba == 128 && r.ranges[2].nsect == 16);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_FLUSH && r.time_ns == 400 && r.nsid == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_PHASE && r.time_ns == 500 && strcmp(r.phase, "steady-state") == 0);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ADVANCE && r.time_ns == 1000000000);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_WRITE && r.time_ns == 90);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_VERIFY && r.time_ns == 1100000000 && r.lba == 8 && r.nsect == 16 &&
          r.nsid == 3);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_FORMAT && r.time_ns == 1200000000 && r.nsid == 2 && r.lba == 64 &&
          r.nsect == 128 && r.erase);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_FORMAT && r.nsid == 1 && r.lba == 0 && r.nsect == 8 && !r.erase);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_END && r.time_ns == 2000000000 && r.line == 13);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);

    /* Without a V record the trace is version 1, even when empty. */
    path = write_str("# nothing\n");
    t = trace_open(path, err, sizeof(err));
    CHECK(t != NULL && trace_version(t) == 1);
    CHECK(t != NULL && trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

static void test_version2_errors(void)
{
    static char many[TRACE_MAX_LINE];
    int n = snprintf(many, sizeof(many), "V 2\nD 0 1");

    for (int i = 0; i <= IO_TRACE_MAX_RANGES; i++) {
        n += snprintf(many + n, sizeof(many) - (size_t)n, " %d 8", i * 8);
    }
    snprintf(many + n, sizeof(many) - (size_t)n, "\n");
    EXPECT_ERROR(many, 0, 2, "more than 256 ranges");
    EXPECT_ERROR("V 9\n", 0, 1, "trace version 9 is not supported");
    EXPECT_ERROR("V 1\n", 0, 1, "trace version 1 is not supported");
    EXPECT_ERROR("V 2\nZW 0 0 8 2\n", 0, 2, "unknown op 'ZW'");   /* version 3's */
    EXPECT_ERROR("V 2\nC 0 1 0 0 8 8\n", 0, 2, "unknown op 'C'");
    EXPECT_ERROR("V\n", 0, 1, "want 'V 2'");
    EXPECT_ERROR("V 2 x\n", 0, 1, "want 'V 2'");
    EXPECT_ERROR("W 1 8\nV 2\n", 1, 2, "the version must be the first record");
    EXPECT_ERROR("V 2\nV 2\n", 0, 2, "the version must be the first record");
    EXPECT_ERROR("D 0 1 0 8\n", 0, 1, "a version-2 trace starts with 'V 2'");
    EXPECT_ERROR("V 2\nW 1 8\n", 0, 2, "W: too few fields");
    EXPECT_ERROR("V 2\nW 0 1 8 1 0 9\n", 0, 2, "trailing junk '9'");
    EXPECT_ERROR("V 2\nR 0 1 8 1 0\n", 0, 2, "trailing junk '0'");
    EXPECT_ERROR("V 2\nS 5\n", 0, 2, "unknown op 'S'");
    EXPECT_ERROR("V 2\nQ 5\n", 0, 2, "unknown op 'Q'");
    EXPECT_ERROR("V 2\nW x 1 8 1 0\n", 0, 2, "time 'x' is not a decimal number");
    EXPECT_ERROR("V 2\nW 0 1 8 0 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 2\nR 0 1 8 4294967296\n", 0, 2, "not a namespace id");
    EXPECT_ERROR("V 2\nW 0 1 0 1 0\n", 0, 2, "W: nsect is 0");
    EXPECT_ERROR("V 2\nW 0 1 8 1 2147483648\n", 0, 2, "stream 2147483648 is too large");
    EXPECT_ERROR("V 2\nR 0 18446744073709551615 1 1\n", 0, 2, "overflows");
    EXPECT_ERROR("V 2\nD 0 1 0\n", 0, 2, "D: too few fields");
    EXPECT_ERROR("V 2\nD 0 1 0 8 16\n", 0, 2, "a range needs lba and nsect");
    EXPECT_ERROR("V 2\nD 0 1 18446744073709551615 1\n", 0, 2, "overflows");
    EXPECT_ERROR("V 2\nF 0\n", 0, 2, "F: too few fields");
    EXPECT_ERROR("V 2\nP 0\n", 0, 2, "P: too few fields");
    EXPECT_ERROR("V 2\nP 0 "
                 "a123456789b123456789c123456789d123456789e123456789f123456789g123\n",
                 0, 2, "phase name longer than 63");
    EXPECT_ERROR("V 2\nA 0 1\n", 0, 2, "trailing junk '1'");
    EXPECT_ERROR("V 2\nE 5\nF 6 1\n", 1, 3, "F after the end record E");
    EXPECT_ERROR("V 2\nY 0 1 8\n", 0, 2, "Y: too few fields");
    EXPECT_ERROR("V 2\nY 0 1 8 1 0\n", 0, 2, "trailing junk '0'");
    EXPECT_ERROR("V 2\nY 0 1 0 1\n", 0, 2, "Y: nsect is 0");
    EXPECT_ERROR("V 2\nY 0 1 8 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 2\nX 0 1 0 8\n", 0, 2, "X: too few fields");
    EXPECT_ERROR("V 2\nX 0 1 0 8 1 1\n", 0, 2, "trailing junk '1'");
    EXPECT_ERROR("V 2\nX 0 1 0 8 2\n", 0, 2, "X: erase '2' is not 0 or 1");
    EXPECT_ERROR("V 2\nX 0 1 0 0 1\n", 0, 2, "X: nsect is 0");
    EXPECT_ERROR("V 2\nX 0 0 0 8 1\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 2\nX 0 1 18446744073709551615 8 0\n", 0, 2, "overflows");
}

/* What the FTL library's writer records, this reader reads back: every request kind,
 * in 4096-byte device sectors (8 trace sectors each). */
static void test_writer_round_trip(void)
{
    char err[512] = "";
    const char *path = write_str("");
    struct io_trace_writer *w = io_trace_writer_open(path, "test", 1000, 4096, err,
                                                     sizeof(err));
    static const struct ftl_range ranges[] = { { 2, 1 }, { 9, 0 } };
    const struct ftl_request reqs[] = {
        { .op = FTL_OP_WRITE, .arrival_ns = 1100, .slba = 1, .nlb = 2, .nsid = 1, .stream = 1 },
        { .op = FTL_OP_READ, .arrival_ns = 1200, .slba = 3, .nlb = 1 },
        { .op = FTL_OP_TRIM, .arrival_ns = 1300, .nsid = 2, .ranges = ranges, .nranges = 2 },
        { .op = FTL_OP_FLUSH, .arrival_ns = 1400, .nsid = 1 },
        { .op = FTL_OP_VERIFY, .arrival_ns = 1500, .slba = 4, .nlb = 3, .nsid = 2 },
        { .op = FTL_OP_FORMAT, .arrival_ns = 1600, .slba = 8, .nlb = 16, .nsid = 3,
          .flags = FTL_REQ_ERASE },
        { .op = FTL_OP_FORMAT, .arrival_ns = 1700, .slba = 0, .nlb = 8, .nsid = 1 },
    };
    const size_t n = sizeof(reqs) / sizeof(reqs[0]);

    CHECK(w != NULL);
    if (w == NULL) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        CHECK(io_trace_write_request(w, &reqs[i], err, sizeof(err)) == 0);
    }
    CHECK(io_trace_writer_close(w, 2000, err, sizeof(err)) == 0);

    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;
    static const enum trace_op kinds[] = { TRACE_WRITE, TRACE_READ, TRACE_DEALLOCATE,
                                           TRACE_FLUSH, TRACE_VERIFY, TRACE_FORMAT,
                                           TRACE_FORMAT };
    CHECK(t != NULL && trace_version(t) == 2);
    for (size_t i = 0; t != NULL && i < n; i++) {
        const struct ftl_request *q = &reqs[i];
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
        CHECK(r.op == kinds[i]);
        CHECK_EQ_U64(r.time_ns, q->arrival_ns - 1000);
        CHECK_EQ_U64(r.nsid, q->nsid ? q->nsid : 1);
        if (q->op == FTL_OP_TRIM) {
            CHECK(r.nranges == 2 && r.ranges[0].lba == 16 && r.ranges[0].nsect == 8 &&
                  r.ranges[1].lba == 72 && r.ranges[1].nsect == 0);
        } else if (q->op != FTL_OP_FLUSH) {
            CHECK_EQ_U64(r.lba, q->slba * 8);
            CHECK_EQ_U64(r.nsect, q->nlb * 8);
        }
        if (q->op == FTL_OP_FORMAT) {
            CHECK(r.erase == ((q->flags & FTL_REQ_ERASE) != 0));
        }
        if (q->op == FTL_OP_WRITE) {
            CHECK(r.stream == 1);
        }
    }
    CHECK(t != NULL && trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END &&
          r.time_ns == 1000);
    CHECK(t != NULL && trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

static void test_version3(void)
{
    const char *content =
        "V 3\n"
        "W 100 0 8 1 3\n"
        "ZW 200 4096 16 2\n"
        "ZA 300 8192 8 2   # append to the zone at 8192\n"
        "ZR 400 4096 24 2\n"
        "ZM 500 2 reset 8192 0\n"
        "ZM 600 2 finish 0 1\n"
        "ZM 700 2 open 4096 0\n"
        "ZM 800 2 close 4096 0\n"
        "ZM 900 2 offline 12288 0\n"
        "C 1000 2 16384 1 4096 8 0 16\n"
        "C 1100 1 64 0 0 8\n"
        "E 2000\n";
    char err[512] = "";
    const char *path = write_str(content);
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;

    CHECK(t != NULL);
    if (t == NULL) {
        return;
    }
    CHECK(trace_version(t) == 3);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE && r.stream == 3);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_WRITE && r.time_ns == 200 && r.lba == 4096 && r.nsect == 16 &&
          r.nsid == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_APPEND && r.time_ns == 300 && r.lba == 8192 && r.nsect == 8);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_READ && r.lba == 4096 && r.nsect == 24 && r.nsid == 2);
    static const struct { uint32_t action; uint64_t zslba; bool all; } mgmt[] = {
        { FTL_ZONE_ACTION_RESET, 8192, false }, { FTL_ZONE_ACTION_FINISH, 0, true },
        { FTL_ZONE_ACTION_OPEN, 4096, false }, { FTL_ZONE_ACTION_CLOSE, 4096, false },
        { FTL_ZONE_ACTION_OFFLINE, 12288, false },
    };
    for (size_t i = 0; i < sizeof(mgmt) / sizeof(mgmt[0]); i++) {
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
        CHECK(r.op == TRACE_ZONE_MGMT && r.zone_action == mgmt[i].action &&
              r.lba == mgmt[i].zslba && r.all == mgmt[i].all && r.nsid == 2 &&
              r.time_ns == 500 + 100 * i);
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_COPY && r.time_ns == 1000 && r.nsid == 2 && r.lba == 16384 &&
          r.zoned && r.nranges == 2 && r.ranges[0].lba == 4096 && r.ranges[0].nsect == 8 &&
          r.ranges[1].lba == 0 && r.ranges[1].nsect == 16);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_COPY && r.nsid == 1 && r.lba == 64 && !r.zoned && r.nranges == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

/* Version 1's untimed zone and copy records, for hand-written compaction traces. */
static void test_version1_zone_records(void)
{
    const char *content =
        "W 0 8\n"
        "ZW 0 16\n"
        "ZA 4096 8\n"
        "ZR 0 8\n"
        "ZM reset 4096 0\n"
        "ZM close 0 1\n"
        "C 8192 1 0 16 4096 8\n"
        "C 100 0 0 8\n";
    char err[512] = "";
    const char *path = write_str(content);
    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;

    CHECK(t != NULL && trace_version(t) == 1);
    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE && r.nsid == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_WRITE && r.lba == 0 && r.nsect == 16 && r.nsid == 2 &&
          r.time_ns == 0);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_APPEND && r.lba == 4096 && r.nsect == 8 && r.nsid == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_READ && r.lba == 0 && r.nsect == 8);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_MGMT && r.zone_action == FTL_ZONE_ACTION_RESET &&
          r.lba == 4096 && !r.all);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_MGMT && r.zone_action == FTL_ZONE_ACTION_CLOSE && r.all);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_COPY && r.zoned && r.nsid == 2 && r.lba == 8192 && r.nranges == 2 &&
          r.ranges[1].lba == 4096 && r.ranges[1].nsect == 8);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_COPY && !r.zoned && r.nsid == 1 && r.lba == 100 && r.nranges == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

static void test_zone_record_errors(void)
{
    /* version 1 */
    EXPECT_ERROR("ZW 0\n", 0, 1, "ZW: too few fields");
    EXPECT_ERROR("ZW 0 8 2\n", 0, 1, "ZW: trailing junk '2'");
    EXPECT_ERROR("ZA 0 0\n", 0, 1, "ZA: nsect is 0");
    EXPECT_ERROR("ZA x 8\n", 0, 1, "zslba 'x' is not a decimal number");
    EXPECT_ERROR("ZR 18446744073709551615 1\n", 0, 1, "ZR: lba + nsect overflows");
    EXPECT_ERROR("ZM reset 0\n", 0, 1, "ZM: too few fields");
    EXPECT_ERROR("ZM erase 0 0\n", 0, 1, "ZM: action 'erase' is not one of open, close");
    EXPECT_ERROR("ZM reset 0 2\n", 0, 1, "ZM: all '2' is not 0 or 1");
    EXPECT_ERROR("C 0 1 8\n", 0, 1, "C: too few fields");
    EXPECT_ERROR("C 0 1 8 8 16\n", 0, 1, "C: a range needs lba and nsect");
    EXPECT_ERROR("C 0 3 8 8\n", 0, 1, "C: zoned '3' is not 0 or 1");
    EXPECT_ERROR("C 0 1 18446744073709551615 2\n", 0, 1, "C: lba + nsect overflows");
    EXPECT_ERROR("Z 0 8\n", 0, 1, "unknown op 'Z' (want S, W, R, ZW, ZA, ZR, ZM or C");
    /* version 3 */
    EXPECT_ERROR("V 3\nZW 0 0 8\n", 0, 2, "ZW: too few fields");
    EXPECT_ERROR("V 3\nZW 0 0 8 2 1\n", 0, 2, "ZW: trailing junk '1'");
    EXPECT_ERROR("V 3\nZA 0 0 8 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 3\nZR t 0 8 2\n", 0, 2, "time 't' is not a decimal number");
    EXPECT_ERROR("V 3\nZM 0 2 reset 0\n", 0, 2, "ZM: too few fields");
    EXPECT_ERROR("V 3\nZM 0 2 reset 0 0 0\n", 0, 2, "ZM: trailing junk '0'");
    EXPECT_ERROR("V 3\nZM 0 0 reset 0 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 3\nC 0 2 0 1\n", 0, 2, "C: too few fields");
    EXPECT_ERROR("V 3\nE 5\nZW 6 0 8 2\n", 1, 3, "ZW after the end record E");
    EXPECT_ERROR("V 3\nQ 0\n", 0, 2, "E t; version 3: ZW ZA ZR ZM C; fields: "
                 "femu_ftl/trace.h)");
    static char many[TRACE_MAX_LINE];
    int n = snprintf(many, sizeof(many), "V 3\nC 0 2 0 1");
    for (int i = 0; i <= IO_TRACE_MAX_RANGES; i++) {
        n += snprintf(many + n, sizeof(many) - (size_t)n, " %d 8", i * 8);
    }
    snprintf(many + n, sizeof(many) - (size_t)n, "\n");
    EXPECT_ERROR(many, 0, 2, "C: more than 256 ranges");
}

/* Version 3 from the writer: zone and copy requests as the engine serves them (an
 * admitted append is written as an append to its zone start), in 4096-byte sectors. */
static void test_writer_round_trip_v3(void)
{
    char err[512] = "";
    const char *path = write_str("");
    struct io_trace_writer *w = io_trace_writer_open_version(path, "test", 0, 4096, 3, err,
                                                             sizeof(err));
    static const struct ftl_range sources[] = { { 512, 2 }, { 1024, 1 } };
    static const struct ftl_range changed[] = { { 0, 256 } };
    const struct ftl_request reqs[] = {
        { .op = FTL_OP_ZONE_WRITE, .arrival_ns = 10, .slba = 0, .nlb = 2, .nsid = 2 },
        { .op = FTL_OP_ZONE_WRITE, .arrival_ns = 20, .slba = 256, .nlb = 1, .nsid = 2,
          .flags = FTL_REQ_APPEND | FTL_REQ_ADMITTED, .assigned = 300 },
        { .op = FTL_OP_ZONE_READ, .arrival_ns = 30, .slba = 2, .nlb = 4, .nsid = 2 },
        { .op = FTL_OP_ZONE_MGMT, .arrival_ns = 40, .slba = 256, .nsid = 2,
          .zone_action = FTL_ZONE_ACTION_RESET },
        { .op = FTL_OP_ZONE_MGMT, .arrival_ns = 50, .nsid = 2,
          .zone_action = FTL_ZONE_ACTION_FINISH, .flags = FTL_REQ_ZONE_ALL | FTL_REQ_ADMITTED,
          .ranges = changed, .nranges = 1 },
        { .op = FTL_OP_COPY, .arrival_ns = 60, .slba = 768, .nlb = 3, .nsid = 2,
          .flags = FTL_REQ_ZONED, .ranges = sources, .nranges = 2 },
        { .op = FTL_OP_COPY, .arrival_ns = 70, .slba = 8, .nlb = 2, .ranges = sources,
          .nranges = 1 },
    };
    const size_t n = sizeof(reqs) / sizeof(reqs[0]);

    CHECK(w != NULL);
    if (w == NULL) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        CHECK(io_trace_write_request(w, &reqs[i], err, sizeof(err)) == 0);
    }
    CHECK(io_trace_writer_close(w, 100, err, sizeof(err)) == 0);

    struct trace_reader *t = trace_open(path, err, sizeof(err));
    struct trace_record r;
    CHECK(t != NULL && trace_version(t) == 3);
    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_WRITE && r.time_ns == 10 && r.lba == 0 && r.nsect == 16 &&
          r.nsid == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_APPEND && r.lba == 2048 && r.nsect == 8);  /* the zone start */
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_READ && r.lba == 16 && r.nsect == 32);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_MGMT && r.zone_action == FTL_ZONE_ACTION_RESET &&
          r.lba == 2048 && !r.all);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_ZONE_MGMT && r.zone_action == FTL_ZONE_ACTION_FINISH && r.all);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_COPY && r.zoned && r.lba == 768 * 8 && r.nranges == 2 &&
          r.ranges[0].lba == 512 * 8 && r.ranges[0].nsect == 16 &&
          r.ranges[1].lba == 1024 * 8 && r.ranges[1].nsect == 8 && r.nsid == 2);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_COPY && !r.zoned && r.lba == 64 && r.nranges == 1 && r.nsid == 1);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END && r.time_ns == 100);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);

    /* a version-2 writer refuses a zone command once, then records nothing */
    path = write_str("");
    w = io_trace_writer_open(path, "test", 0, 512, err, sizeof(err));
    CHECK(w != NULL);
    if (w == NULL) {
        return;
    }
    CHECK(io_trace_write_request(w, &reqs[0], err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "a zone or copy command needs a version-3 trace");
    CHECK(io_trace_write_request(w, &reqs[0], err, sizeof(err)) == 0);
    io_trace_writer_close(w, 0, NULL, 0);
    CHECK(io_trace_writer_open_version(path, "test", 0, 512, 9, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "trace version 9: this writer writes 2 to 8");
    unlink(path);
}

int main(void)
{
    test_writer_round_trip();
    test_writer_round_trip_v3();
    test_version3();
    test_version1_zone_records();
    test_zone_record_errors();
    test_happy_path();
    test_edge_files();
    test_errors();
    test_version2();
    test_version2_errors();
    return check_summary();
}
