/*
 * fmt_msr.c - SNIA / MSR Cambridge CSV:
 *   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
 * Timestamp in Windows filetime (100 ns since 1601), Type Read or Write, Offset and Size
 * in bytes. A header line naming the columns is passed over.
 */
#include <string.h>

#include "fields.h"
#include "formats.h"

enum line_kind msr_parse(struct parse *p, char *line, struct tin_record *rec)
{
    char *f[8];
    int n = fields_split(line, ',', f, 7);
    uint64_t ticks, disk, offset, size;

    if (n >= 1 && fields_iequal(f[0], "Timestamp")) {
        return LINE_OTHER;      /* the header */
    }
    if (n != 7) {
        return parse_bad(p, "want 7 comma-separated fields (Timestamp,Hostname,DiskNumber,"
                         "Type,Offset,Size,ResponseTime), got %s", n > 7 ? "more" : "fewer");
    }
    if (!fields_u64(f[0], &ticks) || !fields_mul(ticks, 100, &rec->time_ns)) {
        return parse_bad(p, "Timestamp '%.32s' is not a filetime (100 ns units)", f[0]);
    }
    if (!fields_u64(f[2], &disk)) {
        return parse_bad(p, "DiskNumber '%.32s' is not a number", f[2]);
    }
    if (fields_iequal(f[3], "Read")) {
        rec->op = TIN_READ;
    } else if (fields_iequal(f[3], "Write")) {
        rec->op = TIN_WRITE;
    } else {
        return parse_bad(p, "Type '%.32s' is not Read or Write", f[3]);
    }
    if (!fields_u64(f[4], &offset)) {
        return parse_bad(p, "Offset '%.32s' is not a byte offset", f[4]);
    }
    if (!fields_u64(f[5], &size)) {
        return parse_bad(p, "Size '%.32s' is not a byte count", f[5]);
    }
    if (offset > UINT64_MAX - size) {
        return parse_bad(p, "Offset + Size overflows 64 bits");
    }
    /* ResponseTime is the traced device's, not ours: not checked beyond being there */
    rec->timed = true;
    rec->offset = offset;
    rec->length = size;
    if ((p->opt->host && strcmp(f[1], p->opt->host) != 0) ||
        (p->opt->disk_set && disk != p->opt->disk)) {
        return LINE_FILTERED;
    }
    return LINE_RECORD;
}
