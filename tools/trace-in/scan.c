/* scan.c - a checking pass over a whole trace (scan.h). */
#include "scan.h"

#include <stdio.h>
#include <string.h>

int tin_scan_file(const char *path, const struct tin_options *opt, struct tin_scan *out,
                  char *err, size_t errlen)
{
    struct tin_options quiet = *opt;
    quiet.quiet = true;
    *out = (struct tin_scan){ 0 };
    if (strcmp(path, "-") == 0) {
        snprintf(err, errlen, "-: standard input cannot be read twice (the pre-pass); give "
                 "a file, or --trace-extent");
        return -1;
    }
    struct tin_reader *r = tin_open(path, &quiet, err, errlen);
    if (!r) {
        return -1;
    }
    struct tin_record rec;
    int rc;
    while ((rc = tin_next(r, &rec, err, errlen)) == 1) {
        out->records++;
        if (rec.op != TIN_FLUSH && rec.offset + rec.length > out->extent) {
            out->extent = rec.offset + rec.length;
        }
    }
    tin_close(r);
    return rc;
}
