/*
 * convert.c - femu-trace convert: each request read, folded into the device
 * (--device-bytes with --trace-lba-map), widened to whole 512-byte sectors, its time made
 * relative to the first request and scaled (--trace-time), then written.
 */
#include "convert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "replace_target.h"
#include "scan.h"

#define SECTOR 512

/*
 * The input, opened once (a stream is spooled: input.h) and read in full before OUT's
 * temporary file is made: for the extent --trace-lba-map scale divides by (unless
 * --trace-extent gives it), then in a dry run of the conversion, so that a late bad line
 * or refusal leaves nothing behind. Kept here, reachable, until the conversion proper
 * has read it (an output error may return before).
 */
static struct tin_input *input;

/* The conversion proper into w, or with w NULL the dry run; 0, or 2 with err (bad input),
 * or 1 (a write failed). The map's counts and the clock start afresh. */
static int copy_requests(struct tin_settings *s, struct writer *w, char *err, size_t errlen)
{
    const char *in = tin_input_path(input);
    s->map.remapped = s->map.dropped = 0;
    s->clock.started = false;
    struct tin_reader *r = tin_open_input(input, &s->in, err, errlen);
    if (!r) {
        return 2;
    }
    struct tin_record rec;
    int rc, status = 0;
    uint64_t any = 0;
    while (status == 0 && (rc = tin_next(r, &rec, err, errlen)) == 1) {
        uint64_t t, first, count;
        int mapped = tin_map_apply(&s->map, in, &rec, err, errlen);
        if (mapped < 0 || tin_clock_ns(&s->clock, in, &rec, &t, err, errlen)) {
            status = 2;
            break;
        }
        if (mapped > 0) {
            continue;
        }
        if (rec.op != TIN_FLUSH) {
            tin_align(rec.offset, rec.length, SECTOR, &first, &count);
            rec.offset = first * SECTOR;
            rec.length = count * SECTOR;
        }
        if (w && writer_request(w, &rec, t)) {
            snprintf(err, errlen, "write failed: %s", strerror(errno));
            status = 1;
        }
        any++;
    }
    if (status == 0 && rc < 0) {
        status = 2;
    }
    if (status == 0 && any == 0) {
        snprintf(err, errlen, "%s: no usable request in the trace", in);
        status = 2;
    }
    tin_close(r);
    return status;
}

/* Open the input, find the extent, run the conversion dry; 0, or -1 with err. The first
 * reader names a detected format; the later ones are quiet. */
static int prepare(const char *in, struct tin_settings *s, char *err, size_t errlen)
{
    input = tin_input_open(in, err, errlen);
    struct tin_reader *r = input ? tin_open_input(input, &s->in, err, errlen) : NULL;
    if (!r) {
        return -1;
    }
    s->in.format = tin_format_of(r);
    s->in.quiet = true;
    tin_close(r);
    if (s->map.mode == TIN_MAP_SCALE && !s->extent_set && s->map.device_bytes) {
        struct tin_scan scan;
        if (tin_scan_input(input, &s->in, &scan, err, errlen)) {
            return -1;
        }
        s->map.extent = scan.extent;
    }
    return copy_requests(s, NULL, err, errlen) ? -1 : 0;
}

/* The conversion proper, then the input is done with. */
static int convert_into(struct tin_settings *s, struct writer *w, char *err, size_t errlen)
{
    int status = copy_requests(s, w, err, errlen);
    tin_input_close(input);
    input = NULL;
    return status;
}

int convert_run(const char *in, const char *out, enum out_format to, const char *fio_file,
                struct tin_settings *s)
{
    char err[512], tmp[4096];
    if (replace_target_check(out, err, sizeof(err))) {
        fprintf(stderr, "femu-trace: %s\n", err);
        return 2;
    }
    if (prepare(in, s, err, sizeof(err))) {
        fprintf(stderr, "femu-trace: %s\n", err);
        return 2;
    }
    if (snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", out) >= (int)sizeof(tmp)) {
        fprintf(stderr, "femu-trace: %s: name too long\n", out);
        return 2;
    }
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        /* mkstemp's 0600 would outlive the rename: the usual mode instead */
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "femu-trace: cannot create %s: %s\n", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return 1;
    }
    struct writer w = { .f = f, .format = to, .fio_file = fio_file };
    int status = writer_begin(&w, in) ? 1 : convert_into(s, &w, err, sizeof(err));
    if (status == 0 && writer_end(&w)) {
        snprintf(err, sizeof(err), "%s: write failed", out);
        status = 1;
    }
    if (fclose(f) && status == 0) {
        snprintf(err, sizeof(err), "%s: write failed: %s", out, strerror(errno));
        status = 1;
    }
    if (status == 0 && rename(tmp, out)) {
        snprintf(err, sizeof(err), "cannot rename %.200s to %.200s: %s", tmp, out,
                 strerror(errno));
        status = 1;
    }
    if (status != 0) {
        fprintf(stderr, "femu-trace: %s\n", err);
        unlink(tmp);
        return status;
    }
    if (w.left_out) {
        fprintf(stderr, "femu-trace: %llu trims and flushes have no MQSim record: left out\n",
                (unsigned long long)w.left_out);
    }
    if (s->map.remapped || s->map.dropped) {
        fprintf(stderr, "femu-trace: --trace-lba-map %s: %llu requests moved, %llu longer "
                "than the device dropped\n", tin_lba_map_name(s->map.mode),
                (unsigned long long)s->map.remapped, (unsigned long long)s->map.dropped);
    }
    return 0;
}
