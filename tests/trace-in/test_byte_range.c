/* The one address bound of every reader (tools/trace-in/byte_range.h): a range ends
 * within 2^64 bytes, checked before any product. A femu W or D of more than 2^55 sectors
 * used to pass the bound by wrapping and came out as a small request at a low address;
 * an SPC ASU of 2^24 or more under --trace-asu offset landed on ASU 0's region. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <unistd.h>

#include "byte_range.h"
#include "check.h"
#include "temp_file.h"
#include "trace_in.h"

static char path[256];

/* The first record of text read as format: 1, or -1 with err. */
static int first_record(const char *text, const struct tin_options *opt,
                        struct tin_record *rec, char *err, size_t errlen)
{
    write_temp_file(path, sizeof(path), "byte-range", text, strlen(text));
    struct tin_options o = *opt;
    o.quiet = true;
    struct tin_reader *r = tin_open(path, &o, err, errlen);
    int rc = r ? tin_next(r, rec, err, errlen) : -1;
    tin_close(r);
    unlink(path);
    return rc;
}

static void test_helper(void)
{
    uint64_t off = 7, len = 7;
    CHECK(tin_byte_range(0, UINT64_MAX / 512, 512, &off, &len) && off == 0 &&
          len == UINT64_MAX / 512 * 512);
    CHECK(!tin_byte_range(1, UINT64_MAX / 512, 512, &off, &len));
    /* 2^55 + 8 sectors: * 512 wraps to 4 KiB; the old bound let it through */
    CHECK(!tin_byte_range(0, (UINT64_C(1) << 55) + 8, 512, &off, &len));
    CHECK(!tin_byte_range(UINT64_MAX, 0, 2, &off, &len));
    CHECK(tin_byte_range(UINT64_MAX, 0, 1, &off, &len) && off == UINT64_MAX && len == 0);
}

static void test_femu_huge_counts_are_refused(void)
{
    struct tin_options femu = { .format = TIN_FEMU };
    struct tin_record rec;
    char err[512] = "";
    CHECK(first_record("W 8 36028797018963976\n", &femu, &rec, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, ":1: lba 8 + nsect 36028797018963976 is beyond 2^64 bytes");
    CHECK(first_record("V 2\nW 0 0 1 1 0\nD 1 1 0 8 16 36028797018963976\n", &femu, &rec,
                       err, sizeof(err)) == 1);
    CHECK(first_record("V 2\nD 1 1 0 8 16 36028797018963976\n", &femu, &rec, err,
                       sizeof(err)) == -1);
    CHECK_CONTAINS(err, ":2: a range is beyond 2^64 bytes");
    /* 2^55 - 8 sectors from 0 end within 2^64 bytes; from 8 they end at 2^64 exactly */
    CHECK(first_record("W 0 36028797018963960\n", &femu, &rec, err, sizeof(err)) == 1 &&
          rec.offset == 0 && rec.length == UINT64_C(36028797018963960) * 512);
    CHECK(first_record("W 8 36028797018963960\n", &femu, &rec, err, sizeof(err)) == -1);
}

static void test_spc_asu_regions_do_not_wrap(void)
{
    struct tin_options offset = { .format = TIN_SPC, .asu = TIN_ASU_OFFSET };
    struct tin_record rec;
    char err[512] = "";
    CHECK(first_record("16777215,8,4096,w,0.0\n", &offset, &rec, err, sizeof(err)) == 1 &&
          rec.offset == (UINT64_C(16777215) << 40) + 4096);
    CHECK(first_record("16777216,0,4096,w,0.0\n", &offset, &rec, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, ":1: ASU 16777216's region (ASU x 2^40 bytes) is beyond 2^64 bytes");
    /* the last region's top: its offset fits, offset + length does not */
    CHECK(first_record("16777215,2147483647,1024,r,0.0\n", &offset, &rec, err,
                       sizeof(err)) == -1);
    CHECK_CONTAINS(err, ":1: LBA + Size overflows 64 bits");
}

int main(void)
{
    test_helper();
    test_femu_huge_counts_are_refused();
    test_spc_asu_regions_do_not_wrap();
    return check_summary();
}
