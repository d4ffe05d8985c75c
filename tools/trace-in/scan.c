/* scan.c - a pass over a whole trace for its extent (scan.h). */
#include "scan.h"

int tin_scan_input(struct tin_input *in, const struct tin_options *opt,
                   struct tin_scan *out, char *err, size_t errlen)
{
    struct tin_options quiet = *opt;
    quiet.quiet = true;
    *out = (struct tin_scan){ 0 };
    struct tin_reader *r = tin_open_input(in, &quiet, err, errlen);
    if (!r) {
        return -1;
    }
    struct tin_record rec;
    int rc;
    while ((rc = tin_next(r, &rec, err, errlen)) == 1) {
        out->records++;
        /* readers refuse a range whose end is beyond 2^64: the sum fits */
        if (rec.op != TIN_FLUSH && rec.offset + rec.length > out->extent) {
            out->extent = rec.offset + rec.length;
        }
    }
    tin_close(r);
    return rc;
}

int tin_settings_resolve(struct tin_input *in, struct tin_settings *s, char *err,
                         size_t errlen)
{
    struct tin_reader *r = tin_open_input(in, &s->in, err, errlen);
    if (!r) {
        return -1;
    }
    s->in.format = tin_format_of(r);
    s->in.quiet = true;
    tin_close(r);
    if (s->map.mode != TIN_MAP_SCALE || s->extent_set || !s->map.device_bytes) {
        return 0;
    }
    struct tin_scan scan;
    if (tin_scan_input(in, &s->in, &scan, err, errlen)) {
        return -1;
    }
    s->map.extent = scan.extent;
    return 0;
}
