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
#include "one_line.h"
#include "replace_target.h"
#include "scan.h"

#define SECTOR 512

/*
 * One conversion: the input, opened once (a stream is spooled: input.h) and read in full
 * before OUT's temporary file is made, for the extent --trace-lba-map scale divides by
 * (unless --trace-extent gives it), then in a dry run of the conversion, so that a late
 * bad line or refusal leaves nothing behind; then once more, written.
 */
struct conversion {
    struct tin_input *input;
    struct tin_settings *s;
    uint64_t fua_writes;        /* the dry run's count: femu's output needs version 5 */
    uint64_t not_block;         /* femu records no output format holds (tin_counts) */
};

/* The conversion proper into w, or with w NULL the dry run; 0, or 2 with err (bad input),
 * or 1 (a write failed). The map's counts and the clock start afresh. */
static int copy_requests(struct conversion *c, struct writer *w, char *err, size_t errlen)
{
    struct tin_settings *s = c->s;
    const char *in = tin_input_path(c->input);
    s->map.remapped = s->map.dropped = 0;
    s->clock.started = false;
    c->fua_writes = 0;
    struct tin_reader *r = tin_open_input(c->input, &s->in, err, errlen);
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
        c->fua_writes += rec.op == TIN_WRITE && rec.fua;
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
    c->not_block = tin_counts_of(r)->not_block;
    tin_close(r);
    return status;
}

/* Open the input, resolve the format and the extent (scan.h), run the conversion dry; 0, or
 * -1 with err. */
static int prepare(struct conversion *c, const char *in, char *err, size_t errlen)
{
    c->input = tin_input_open(in, err, errlen);
    if (!c->input || tin_settings_resolve(c->input, c->s, err, errlen)) {
        return -1;
    }
    return copy_requests(c, NULL, err, errlen) ? -1 : 0;
}

/* The temporary file beside out, with the usual mode; NULL (reported) on failure. */
static FILE *create_beside(const char *out, char *tmp, size_t tmplen)
{
    if (snprintf(tmp, tmplen, "%s.tmp-XXXXXX", out) >= (int)tmplen) {
        one_line(stderr, "femu-trace", "%s: name too long", out);
        return NULL;
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
        one_line(stderr, "femu-trace", "cannot create %s: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
    }
    return f;
}

/* What the output could not hold, on stderr: counted, never silent. */
static void report_left_out(const struct conversion *c, const struct writer *w)
{
    const struct tin_settings *s = c->s;
    if (w->left_out) {
        one_line(stderr, "femu-trace", "%llu trims and flushes have no MQSim record: left out",
                 (unsigned long long)w->left_out);
    }
    if (c->not_block) {
        one_line(stderr, "femu-trace", "%llu verify, format, zone, copy, FDP, write cache, "
                 "key-value, admin or power requests are not block requests: left out",
                 (unsigned long long)c->not_block);
    }
    if (c->fua_writes && w->format != OUT_FEMU) {
        one_line(stderr, "femu-trace", "%llu FUA writes have no FUA mark in %s: written as "
                 "plain writes", (unsigned long long)c->fua_writes,
                 w->format == OUT_FIO ? "a fio iolog" : "MQSim's format");
    }
    if (s->map.remapped || s->map.dropped) {
        one_line(stderr, "femu-trace", "--trace-lba-map %s: %llu requests moved, %llu longer "
                 "than the device dropped", tin_lba_map_name(s->map.mode),
                 (unsigned long long)s->map.remapped, (unsigned long long)s->map.dropped);
    }
}

int convert_run(const char *in, const char *out, enum out_format to, const char *fio_file,
                struct tin_settings *s)
{
    char err[512], tmp[4096];
    struct conversion c = { .s = s };
    int status = 2;
    FILE *f = NULL;
    if (replace_target_check(out, err, sizeof(err)) || prepare(&c, in, err, sizeof(err))) {
        goto done;
    }
    status = 1;
    if (!(f = create_beside(out, tmp, sizeof(tmp)))) {
        err[0] = '\0';     /* reported */
        goto done;
    }
    /* femu's format marks FUA writes from version 5 on: the dry run counted them */
    struct writer w = { .f = f, .format = to, .fio_file = fio_file,
                        .femu_version = c.fua_writes ? 5 : 2 };
    status = writer_begin(&w, in) ? 1 : copy_requests(&c, &w, err, sizeof(err));
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
        unlink(tmp);
    } else {
        report_left_out(&c, &w);
    }
done:
    if (status != 0 && err[0]) {
        one_line(stderr, "femu-trace", "%s", err);
    }
    tin_input_close(c.input);
    return status;
}
