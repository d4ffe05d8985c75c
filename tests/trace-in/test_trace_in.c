/* Unit tests for tools/trace-in: each format's reader against hand-written lines with
 * known requests, detection, bad lines (FILE:LINE), skip-bad counts, gzip and xz input
 * made here, the LBA map, alignment and the clock. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <lzma.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "map.h"
#include "temp_file.h"
#include "trace_in.h"

static char path[256];

/* Every record of content read as format (TIN_AUTO: detected), into recs; the count, or
 * -1 with the error in err. */
static int read_all(const void *data, size_t len, const struct tin_options *opt,
                    struct tin_record *recs, int max, char *err, size_t errlen,
                    struct tin_counts *counts, enum tin_format *format)
{
    write_temp_file(path, sizeof(path), "trace-in", data, len);
    struct tin_options o = *opt;
    o.quiet = true;
    struct tin_reader *r = tin_open(path, &o, err, errlen);
    int n = 0, rc = -1;
    if (r) {
        while (n < max && (rc = tin_next(r, &recs[n], err, errlen)) == 1) {
            n++;
        }
        if (counts) {
            *counts = *tin_counts_of(r);
        }
        if (format) {
            *format = tin_format_of(r);
        }
        tin_close(r);
    }
    unlink(path);
    return rc < 0 ? -1 : n;
}

static int read_text(const char *text, const struct tin_options *opt, struct tin_record *recs,
                     int max, char *err, enum tin_format *format)
{
    return read_all(text, strlen(text), opt, recs, max, err, 512, NULL, format);
}

static void check_rec(const struct tin_record *r, enum tin_op op, uint64_t t, uint64_t off,
                      uint64_t len)
{
    CHECK(r->op == op);
    CHECK_EQ_U64(r->time_ns, t);
    CHECK_EQ_U64(r->offset, off);
    CHECK_EQ_U64(r->length, len);
}

static void test_msr(void)
{
    struct tin_options opt = { 0 };
    struct tin_record r[8];
    char err[512];
    enum tin_format f;
    const char *text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\r\n"
                       "128166372003061629,hm,1,Read,7014609920,24576,41286\r\n"
                       "128166372003061639,prn,0,write,4096,512,1\n";
    CHECK(read_text(text, &opt, r, 8, err, &f) == 2);
    CHECK(f == TIN_MSR);
    check_rec(&r[0], TIN_READ, UINT64_C(12816637200306162900), 7014609920, 24576);
    check_rec(&r[1], TIN_WRITE, UINT64_C(12816637200306163900), 4096, 512);
    CHECK(r[1].line == 3);
    opt.host = "prn";
    CHECK(read_text(text, &opt, r, 8, err, NULL) == 1);
    opt = (struct tin_options){ .disk_set = true, .disk = 1 };
    CHECK(read_text(text, &opt, r, 8, err, NULL) == 1 && r[0].op == TIN_READ);
    opt = (struct tin_options){ 0 };
    CHECK(read_text("1,h,0,Read,-5,4096,1\n", &(struct tin_options){ .format = TIN_MSR },
                    r, 8, err, NULL) == -1);
    CHECK_CONTAINS(err, ":1: Offset '-5' is not a byte offset");
    CHECK(read_text("1,h,0,Read,18446744073709551615,4096,1\n",
                    &(struct tin_options){ .format = TIN_MSR }, r, 8, err, NULL) == -1);
    CHECK_CONTAINS(err, ":1: Offset + Size overflows");
}

static void test_spc(void)
{
    struct tin_options opt = { 0 };
    struct tin_record r[8];
    char err[512];
    enum tin_format f;
    const char *text = "0,20941264,8192,W,0.551706\n"
                       "1,20939840,8192,r,0.554041,extra\n"
                       "1, 16, 512, R, 1.5\n";
    CHECK(read_text(text, &opt, r, 8, err, &f) == 3);
    CHECK(f == TIN_SPC);
    check_rec(&r[0], TIN_WRITE, 551706000, UINT64_C(20941264) * 512, 8192);
    CHECK(r[0].stream == 0 && r[1].stream == 1);
    check_rec(&r[2], TIN_READ, 1500000000, 16 * 512, 512);
    opt.asu = TIN_ASU_OFFSET;
    CHECK(read_text(text, &opt, r, 8, err, NULL) == 3);
    CHECK_EQ_U64(r[1].offset, TIN_ASU_REGION + UINT64_C(20939840) * 512);
    CHECK(r[1].stream == -1);
    opt = (struct tin_options){ .sector_size = 4096 };
    CHECK(read_text(text, &opt, r, 8, err, NULL) == 3);
    CHECK_EQ_U64(r[2].offset, 16 * 4096);
    CHECK(read_text("0,1,512,x,0.1\n", &(struct tin_options){ .format = TIN_SPC }, r, 8,
                    err, NULL) == -1);
    CHECK_CONTAINS(err, ":1: Opcode 'x' is not r or w");
}

static void test_blkparse(void)
{
    struct tin_options opt = { 0 };
    struct tin_record r[8];
    char err[512];
    enum tin_format f;
    const char *text =
        "  8,0    3        1     0.000000000  1234  Q  WS 1000 + 8 [fio]\n"
        "  8,0    3        2     0.000001000  1234  G  WS 1000 + 8 [fio]\n"
        "  8,0    3        3     0.000100000  1234  C  WS 1000 + 8 [0]\n"
        "  8,0    1        4     0.500000000  99  Q   R 64 + 16 [cat]\n"
        "  8,0    1        5     0.600000000  99  Q   D 128 + 2048 [fstrim]\n"
        "  8,0    1        6     0.700000000  99  Q FWFS 256 + 8 [jbd2]\n"
        "  8,0    1        7     0.800000000  99  Q FWS [kworker]\n"
        "  8,0    1        8     0.900000000  99  Q  N 0 + 0 [x]\n"
        "CPU0 (8,0):\n"
        " Reads Queued:           1,        8KiB\t Writes Queued:           2,       8KiB\n"
        "Total (8,0):\n"
        "Throughput (R/W): 0KiB/s / 0KiB/s\n";
    CHECK(read_text(text, &opt, r, 8, err, &f) == 6);
    CHECK(f == TIN_BLKPARSE);
    check_rec(&r[0], TIN_WRITE, 0, 1000 * 512, 8 * 512);
    CHECK(r[0].sync && !r[0].fua);
    check_rec(&r[1], TIN_READ, 500000000, 64 * 512, 16 * 512);
    check_rec(&r[2], TIN_TRIM, 600000000, 128 * 512, 2048 * 512);
    check_rec(&r[3], TIN_FLUSH, 700000000, 0, 0);      /* the preflush ... */
    check_rec(&r[4], TIN_WRITE, 700000000, 256 * 512, 8 * 512);   /* ... then its write */
    CHECK(r[4].fua && r[4].sync && r[4].line == 6);
    check_rec(&r[5], TIN_FLUSH, 800000000, 0, 0);
    opt.complete_events = true;
    CHECK(read_text(text, &opt, r, 8, err, NULL) == 1);
    CHECK_EQ_U64(r[0].time_ns, 100000);
    CHECK(read_text("8,0 1 1 0.1 9 Q WQ 1 + 8 [x]\n", &(struct tin_options){ 0 }, r, 8, err,
                    NULL) == -1);
    CHECK_CONTAINS(err, ":1: RWBS 'WQ'");
}

static void test_fio(void)
{
    struct tin_options opt = { 0 };
    struct tin_record r[8];
    char err[512];
    enum tin_format f;
    const char *v2 = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n"
                     "/dev/sdb write 4096 8192\n/dev/sdb wait 1500 0\n"
                     "/dev/sdb read 0 4096\n/dev/sdb trim 0 1048576\n/dev/sdb sync 0 0\n"
                     "/dev/sdb close\n";
    CHECK(read_text(v2, &opt, r, 8, err, &f) == 4);
    CHECK(f == TIN_FIO);
    check_rec(&r[0], TIN_WRITE, 0, 4096, 8192);
    check_rec(&r[1], TIN_READ, 1500000, 0, 4096);
    check_rec(&r[2], TIN_TRIM, 1500000, 0, 1048576);
    check_rec(&r[3], TIN_FLUSH, 1500000, 0, 0);
    const char *v3 = "fio version 3 iolog\n0 f add\n2 f open\n10 f write 0 4096\n"
                     "25 f datasync 0 0\n30 f close\n";
    CHECK(read_text(v3, &opt, r, 8, err, NULL) == 2);
    check_rec(&r[0], TIN_WRITE, 10000, 0, 4096);
    check_rec(&r[1], TIN_FLUSH, 25000, 0, 0);
    CHECK(read_text("fio version 3 iolog\n0 a add\n1 b write 0 1\n", &opt, r, 8, err,
                    NULL) == -1);
    CHECK_CONTAINS(err, ":3: a second file 'b'");
    CHECK(read_text("garbage\n", &(struct tin_options){ .format = TIN_FIO }, r, 8, err,
                    NULL) == -1);
    CHECK_CONTAINS(err, ":1: not a fio iolog");
}

static void test_mqsim_disksim(void)
{
    struct tin_options opt = { 0 };
    struct tin_record r[8];
    char err[512];
    enum tin_format f;
    CHECK(read_text("4851300 1 524288 16 0\n4864300 1 524304 16 1\n", &opt, r, 8, err,
                    &f) == 2);
    CHECK(f == TIN_MQSIM);
    check_rec(&r[0], TIN_WRITE, 4851300, UINT64_C(524288) * 512, 16 * 512);
    CHECK(r[1].op == TIN_READ);
    CHECK(read_text("0.000000 0 1000 8 1\n2.5 0 64 16 0\n", &opt, r, 8, err, &f) == 2);
    CHECK(f == TIN_DISKSIM);
    check_rec(&r[0], TIN_READ, 0, 1000 * 512, 8 * 512);
    check_rec(&r[1], TIN_WRITE, 2500000, 64 * 512, 16 * 512);
    CHECK(read_text("1 0 1 1 2\n", &(struct tin_options){ .format = TIN_MQSIM }, r, 8, err,
                    NULL) == -1);
    CHECK_CONTAINS(err, ":1: type '2' is not 0 (write) or 1 (read)");
    CHECK(read_text("1 0 36028797018963968 1 0\n", &(struct tin_options){ .format = TIN_MQSIM },
                    r, 8, err, NULL) == -1);
    CHECK_CONTAINS(err, "beyond 2^64 bytes");
}

static void test_femu(void)
{
    struct tin_options opt = { 0 };
    struct tin_record r[8];
    char err[512];
    enum tin_format f;
    CHECK(read_text("V 2\nP 0 workload\nW 10 8 16 1 3\nD 20 1 0 8 100 8\nF 30 1\n", &opt, r,
                    8, err, &f) == 4);
    CHECK(f == TIN_FEMU);
    check_rec(&r[0], TIN_WRITE, 10, 8 * 512, 16 * 512);
    CHECK(r[0].stream == 3);
    check_rec(&r[1], TIN_TRIM, 20, 0, 8 * 512);
    check_rec(&r[2], TIN_TRIM, 20, 100 * 512, 8 * 512);
    check_rec(&r[3], TIN_FLUSH, 30, 0, 0);
    CHECK(read_text("S 1\nW 0 8 H\nR 8 8\n", &opt, r, 8, err, &f) == 2);
    CHECK(f == TIN_FEMU && !r[0].timed);
}

static void test_bad_lines_skipped_and_counted(void)
{
    struct tin_options opt = { .skip_bad = true };
    struct tin_record r[8];
    struct tin_counts c;
    char err[512];
    const char *text = "1 0 8 8 0\n2 0 x 8 0\n3 0 16 0 1\n4 0 24 8 7\n5 0 32 8 1\n";
    CHECK(read_all(text, strlen(text), &opt, r, 8, err, sizeof(err), &c, NULL) == 2);
    CHECK_EQ_U64(c.bad, 2);
    CHECK_EQ_U64(c.zero_length, 1);
    CHECK_EQ_U64(c.records, 2);
    opt.skip_bad = false;
    CHECK(read_all(text, strlen(text), &opt, r, 8, err, sizeof(err), &c, NULL) == -1);
    CHECK_CONTAINS(err, ":2: start sector 'x' is not a number");
}

static void test_hostile_input(void)
{
    struct tin_record r[8];
    char err[512];
    char *longline = malloc(10000);
    memset(longline, '1', 9999);
    longline[9999] = '\n';
    CHECK(read_all(longline, 10000, &(struct tin_options){ .format = TIN_MQSIM }, r, 8, err,
                   sizeof(err), NULL, NULL) == -1);
    CHECK_CONTAINS(err, ":1: line longer than 4096 bytes");
    free(longline);
    CHECK(read_all("1 0 8 8 0\n\0\n", 12, &(struct tin_options){ .format = TIN_MQSIM }, r, 8,
                   err, sizeof(err), NULL, NULL) == -1);
    CHECK_CONTAINS(err, ":2: NUL byte");
    CHECK(read_text("hello world\n", &(struct tin_options){ 0 }, r, 8, err, NULL) == -1);
    CHECK_CONTAINS(err, "cannot tell the trace format");
    CHECK(read_text("", &(struct tin_options){ 0 }, r, 8, err, NULL) == -1);
    CHECK_CONTAINS(err, "empty file");
}

static const char compressed_text[] = "0,1,4096,w,0.5\n0,9,512,r,1.0\n";

static void test_gzip(void)
{
    char gz[256], err[512];
    struct tin_record r[8];
    enum tin_format f;
    write_temp_file(gz, sizeof(gz), "trace-in-gz", "", 0);
    /* two members, as concatenated gzip files are */
    for (int member = 0; member < 2; member++) {
        gzFile z = gzopen(gz, member ? "ab" : "wb");
        CHECK(z && gzputs(z, compressed_text) > 0 && gzclose(z) == Z_OK);
    }
    struct tin_options opt = { .quiet = true };
    struct tin_reader *t = tin_open(gz, &opt, err, sizeof(err));
    int n = 0;
    while (t && n < 8 && tin_next(t, &r[n], err, sizeof(err)) == 1) {
        n++;
    }
    CHECK(t && n == 4);
    f = t ? tin_format_of(t) : TIN_AUTO;
    CHECK(f == TIN_SPC);
    check_rec(&r[3], TIN_READ, 1000000000, 9 * 512, 512);
    CHECK(r[3].line == 4);
    tin_close(t);
    /* cut short: an error, never a silent end */
    FILE *fh = fopen(gz, "r+b");
    fseek(fh, 0, SEEK_END);
    long size = ftell(fh);
    fclose(fh);
    CHECK(truncate(gz, size / 2 - 4) == 0);
    t = tin_open(gz, &opt, err, sizeof(err));
    int rc = 1;
    while (t && (rc = tin_next(t, &r[0], err, sizeof(err))) == 1) {
    }
    CHECK(!t || rc == -1);
    tin_close(t);
    unlink(gz);
}

static void test_xz(void)
{
    uint8_t out[1024];
    size_t out_len = 0;
    char err[512];
    struct tin_record r[8];
    CHECK(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)compressed_text,
                                  strlen(compressed_text), out, &out_len,
                                  sizeof(out)) == LZMA_OK);
    enum tin_format f;
    CHECK(read_all(out, out_len, &(struct tin_options){ 0 }, r, 8, err, sizeof(err), NULL,
                   &f) == 2);
    CHECK(f == TIN_SPC);
    check_rec(&r[0], TIN_WRITE, 500000000, 512, 4096);
    CHECK(read_all(out, out_len - 8, &(struct tin_options){ 0 }, r, 8, err, sizeof(err),
                   NULL, NULL) == -1);
    CHECK_CONTAINS(err, "xz");
}

static void test_map_align_clock(void)
{
    char err[256];
    struct tin_map m = { .mode = TIN_MAP_MODULO, .device_bytes = 1 << 20 };
    struct tin_record rec = { .op = TIN_WRITE, .offset = (1 << 20) + 4096, .length = 4096,
                              .line = 7 };
    CHECK(tin_map_apply(&m, "t", &rec, err, sizeof(err)) == 0);
    CHECK_EQ_U64(rec.offset, 4096);
    rec.offset = (3 << 20) - 1024;  /* would cross the end: ends there */
    CHECK(tin_map_apply(&m, "t", &rec, err, sizeof(err)) == 0);
    CHECK_EQ_U64(rec.offset, (1 << 20) - 4096);
    CHECK_EQ_U64(m.remapped, 2);
    rec.length = 2 << 20;
    CHECK(tin_map_apply(&m, "t", &rec, err, sizeof(err)) == 1 && m.dropped == 1);
    m = (struct tin_map){ .mode = TIN_MAP_SCALE, .device_bytes = 1 << 20, .extent = 4 << 20 };
    rec = (struct tin_record){ .op = TIN_READ, .offset = 2 << 20, .length = 512, .line = 7 };
    CHECK(tin_map_apply(&m, "t", &rec, err, sizeof(err)) == 0);
    CHECK_EQ_U64(rec.offset, 1 << 19);
    m.mode = TIN_MAP_REFUSE;
    rec.offset = 1 << 20;
    CHECK(tin_map_apply(&m, "t", &rec, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "t:7: bytes 1048576..1049087");
    uint64_t first, count;
    tin_align(1000, 100, 512, &first, &count);
    CHECK(first == 1 && count == 2);
    tin_align(4096, 4096, 4096, &first, &count);
    CHECK(first == 1 && count == 1);
    struct tin_clock c;
    uint64_t t;
    CHECK(tin_clock_parse("scale=0.5", &c) == 0);
    CHECK(tin_clock_parse("scale=0", &c) == -1 && tin_clock_parse("fast", &c) == -1);
    CHECK(tin_clock_parse("scale=2", &c) == 0);
    rec = (struct tin_record){ .timed = true, .time_ns = 1000 };
    CHECK(tin_clock_ns(&c, "t", &rec, &t, err, sizeof(err)) == 0 && t == 0);
    rec.time_ns = 1500;
    CHECK(tin_clock_ns(&c, "t", &rec, &t, err, sizeof(err)) == 0 && t == 1000);
    rec.time_ns = 500;     /* earlier than the first: at 0 */
    CHECK(tin_clock_ns(&c, "t", &rec, &t, err, sizeof(err)) == 0 && t == 0);
    rec.time_ns = UINT64_MAX;
    CHECK(tin_clock_ns(&c, "t", &rec, &t, err, sizeof(err)) == -1);
}

int main(void)
{
    test_msr();
    test_spc();
    test_blkparse();
    test_fio();
    test_mqsim_disksim();
    test_femu();
    test_bad_lines_skipped_and_counted();
    test_hostile_input();
    test_gzip();
    test_xz();
    test_map_align_clock();
    return check_summary();
}
