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
