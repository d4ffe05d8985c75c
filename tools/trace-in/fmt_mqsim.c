/*
 * fmt_mqsim.c - MQSim's ASCII traces and DiskSim's, both five blank-separated fields:
 *   MQSim:   arrival_time_ns device_no start_sector size_sectors type (0 write, 1 read)
 *   DiskSim: time_ms devno blkno bcount flags (bit 0 set: read, else write)
 * Sectors of 512 bytes unless --trace-sector-size.
 */
#include "byte_range.h"
#include "fields.h"
#include "formats.h"

/* The device, start and size fields shared by both: into rec, or LINE_BAD/LINE_FILTERED. */
static enum line_kind place(struct parse *p, char **f, struct tin_record *rec)
{
    uint64_t dev, start, count;
    if (!fields_u64(f[1], &dev)) {
        return parse_bad(p, "device '%.32s' is not a number", f[1]);
    }
    if (!fields_u64(f[2], &start)) {
        return parse_bad(p, "start sector '%.32s' is not a number", f[2]);
    }
    if (!fields_u64(f[3], &count)) {
        return parse_bad(p, "size '%.32s' is not a sector count", f[3]);
    }
    if (!tin_byte_range(start, count, p->sector, &rec->offset, &rec->length)) {
        return parse_bad(p, "start sector %llu + size %llu is beyond 2^64 bytes",
                         (unsigned long long)start, (unsigned long long)count);
    }
    rec->timed = true;
    return p->opt->disk_set && dev != p->opt->disk ? LINE_FILTERED : LINE_RECORD;
}

enum line_kind mqsim_parse(struct parse *p, char *line, struct tin_record *rec)
{
    char *f[6];
    uint64_t type;
    int n = fields_split(line, ' ', f, 5);
    if (n != 5) {
        return parse_bad(p, "want 5 fields (arrival_ns device start_sector size_sectors "
                         "type), got %s", n > 5 ? "more" : "fewer");
    }
    if (!fields_u64(f[0], &rec->time_ns)) {
        return parse_bad(p, "arrival time '%.32s' is not whole nanoseconds", f[0]);
    }
    if (!fields_u64(f[4], &type) || type > 1) {
        return parse_bad(p, "type '%.32s' is not 0 (write) or 1 (read)", f[4]);
    }
    rec->op = type == 1 ? TIN_READ : TIN_WRITE;
    return place(p, f, rec);
}

enum line_kind disksim_parse(struct parse *p, char *line, struct tin_record *rec)
{
    char *f[6];
    uint64_t flags;
    int n = fields_split(line, ' ', f, 5);
    if (n != 5) {
        return parse_bad(p, "want 5 fields (time_ms devno blkno bcount flags), got %s",
                         n > 5 ? "more" : "fewer");
    }
    if (!fields_decimal_ns(f[0], 1000000, &rec->time_ns)) {
        return parse_bad(p, "time '%.32s' is not milliseconds", f[0]);
    }
    if (!fields_u64(f[4], &flags)) {
        return parse_bad(p, "flags '%.32s' is not a number", f[4]);
    }
    rec->op = flags & 1 ? TIN_READ : TIN_WRITE;
    return place(p, f, rec);
}
