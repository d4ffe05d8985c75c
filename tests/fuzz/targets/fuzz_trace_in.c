/*
 * libFuzzer target: a block trace (tools/trace-in: MSR, SPC, blkparse, fio iolog, MQSim,
 * DiskSim, femu's own format, and detection) read under each format and under auto, then
 * folded into a small device with each address map and put on the clock, as ftl-sim and
 * femu-trace do. A refusal must be one line naming the file; an accepted record must be a
 * known operation on a range that does not wrap, and once mapped must lie inside the
 * device. Seeds: a few lines of every format (corpus/trace-in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "map.h"
#include "trace_in.h"

#define DEVICE_BYTES (UINT64_C(64) << 20)
#define MAX_RECORDS 4096u

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz: %s: '%s'\n", what, detail);
    abort();
}

static void check_refusal(const char *err, const char *path)
{
    if (!err[0] || strchr(err, '\n') || !strstr(err, path)) {
        fail("a refusal that does not name the file on one line", err);
    }
}

static void check_record(const struct tin_record *rec)
{
    if (rec->op > TIN_FLUSH || rec->offset > UINT64_MAX - rec->length) {
        fail("a record out of bounds", "op or range");
    }
}

static void read_as(const char *path, enum tin_format format, bool skip_bad,
                    enum tin_lba_map mode)
{
    struct tin_options opt = { .format = format, .skip_bad = skip_bad, .quiet = true };
    struct tin_map map = { .mode = mode, .device_bytes = DEVICE_BYTES,
                           .extent = mode == TIN_MAP_SCALE ? UINT64_C(1) << 40 : 0 };
    struct tin_clock clock;
    char err[1024] = "";
    if (tin_clock_parse("scale=0.5", &clock) != 0) {
        fail("the clock", "scale=0.5");
    }
    struct tin_reader *r = tin_open(path, &opt, err, sizeof(err));
    if (!r) {
        check_refusal(err, path);
        return;
    }
    struct tin_record rec;
    unsigned long last_line = 0;
    int rc = 0;
    for (unsigned n = 0; n < MAX_RECORDS && (rc = tin_next(r, &rec, err, sizeof(err))) == 1;
         n++) {
        check_record(&rec);
        if (rec.line < last_line) {
            fail("lines went backwards", path);
        }
        last_line = rec.line;
        uint64_t t;
        if (tin_clock_ns(&clock, path, &rec, &t, err, sizeof(err)) != 0) {
            check_refusal(err, path);
            continue;
        }
        int kept = tin_map_apply(&map, path, &rec, err, sizeof(err));
        if (kept < 0) {
            check_refusal(err, path);
        } else if (kept == 0 && rec.op != TIN_FLUSH &&
                   (rec.offset > DEVICE_BYTES || rec.length > DEVICE_BYTES - rec.offset)) {
            fail("a mapped record beyond the device", path);
        }
    }
    if (rc < 0) {
        check_refusal(err, path);
    }
    tin_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum tin_format formats[] = { TIN_AUTO, TIN_MSR, TIN_SPC, TIN_BLKPARSE,
                                               TIN_FIO, TIN_MQSIM, TIN_DISKSIM, TIN_FEMU };
    const char *path = fuzz_input_file(data, size);
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        read_as(path, formats[i], false, TIN_MAP_REFUSE);
        read_as(path, formats[i], true, i % 2 ? TIN_MAP_MODULO : TIN_MAP_SCALE);
    }
    return 0;
}
