/*
 * fmt_spc.c - SPC traces (UMass Financial, WebSearch): ASU,LBA,Size,Opcode,Timestamp[,...]
 * LBA in sectors (512 bytes unless --trace-sector-size), Size in bytes, Opcode r or w
 * (any case), Timestamp in seconds with a fraction. The ASU becomes the write's stream
 * (asu=stream) or a region of its own, ASU n at n TiB (asu=offset).
 */
#include "fields.h"
#include "formats.h"

enum line_kind spc_parse(struct parse *p, char *line, struct tin_record *rec)
{
    char *f[16];
    int n = fields_split(line, ',', f, 15);
    uint64_t asu, lba, size, offset;

    if (n < 5) {
        return parse_bad(p, "want ASU,LBA,Size,Opcode,Timestamp (5 or more comma-separated "
                         "fields), got %d", n);
    }
    for (int i = 0; i < n && i < 15; i++) {
        while (*f[i] == ' ') {
            f[i]++;     /* some SPC files put a blank after each comma */
        }
    }
    if (!fields_u64(f[0], &asu) || asu > INT32_MAX) {
        return parse_bad(p, "ASU '%.32s' is not a number below 2^31", f[0]);
    }
    if (!fields_u64(f[1], &lba)) {
        return parse_bad(p, "LBA '%.32s' is not a sector number", f[1]);
    }
    if (parse_sectors(p, lba, "LBA", &offset) != 0) {
        return LINE_BAD;
    }
    if (!fields_u64(f[2], &size)) {
        return parse_bad(p, "Size '%.32s' is not a byte count", f[2]);
    }
    if (fields_iequal(f[3], "r")) {
        rec->op = TIN_READ;
    } else if (fields_iequal(f[3], "w")) {
        rec->op = TIN_WRITE;
    } else {
        return parse_bad(p, "Opcode '%.32s' is not r or w", f[3]);
    }
    if (!fields_decimal_ns(f[4], 1000000000, &rec->time_ns)) {
        return parse_bad(p, "Timestamp '%.32s' is not seconds (e.g. 0.031)", f[4]);
    }
    if (p->opt->asu == TIN_ASU_OFFSET) {
        /* ASU 2^24 and up would wrap onto ASU 0's region: refused before the product */
        if (asu > UINT64_MAX / TIN_ASU_REGION) {
            return parse_bad(p, "ASU %llu's region (ASU x 2^40 bytes) is beyond 2^64 bytes",
                             (unsigned long long)asu);
        }
        uint64_t base = asu * TIN_ASU_REGION;
        if (offset > UINT64_MAX - base) {
            return parse_bad(p, "ASU %llu's region + LBA overflows 64 bits",
                             (unsigned long long)asu);
        }
        offset += base;
    } else {
        rec->stream = (int)asu;
    }
    if (offset > UINT64_MAX - size) {
        return parse_bad(p, "LBA + Size overflows 64 bits");
    }
    rec->timed = true;
    rec->offset = offset;
    rec->length = size;
    return LINE_RECORD;
}
