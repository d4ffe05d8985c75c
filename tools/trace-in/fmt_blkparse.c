/*
 * fmt_blkparse.c - blkparse's default text output, one event per line:
 *   maj,min cpu seq sec.nsec pid action RWBS sector + nsectors [process]
 * Only queue (Q) events are requests, or complete (C) ones with --trace-events complete;
 * every other line (other actions, the per-CPU summaries at the end) is passed over.
 * RWBS: an optional leading F (a preflush), then the op (R read, W write, D, DE or E
 * discard: a trim, F a flush, N none: passed over), then F (FUA), S (sync), M (meta), A
 * (readahead). A preflush is a flush record, followed by its write when it carries data
 * (FN: the flush alone).
 */
#include <string.h>

#include "byte_range.h"
#include "fields.h"
#include "formats.h"

/* "8,0": the device field that every event line starts with. */
static bool is_device(const char *s)
{
    const char *comma = strchr(s, ',');
    if (!comma || comma == s || comma[1] == '\0') {
        return false;
    }
    for (const char *c = s; *c; c++) {
        if (c != comma && (*c < '0' || *c > '9')) {
            return false;
        }
    }
    return true;
}

struct rwbs {
    bool preflush, fua, sync, none;
    enum tin_op op;
};

static bool parse_rwbs(const char *s, struct rwbs *out)
{
    *out = (struct rwbs){ 0 };
    if (s[0] == 'F' && s[1] != '\0' && strchr("WRDEN", s[1])) {
        out->preflush = true;
        s++;
    }
    switch (*s++) {
    case 'R': out->op = TIN_READ; break;
    case 'W': out->op = TIN_WRITE; break;
    case 'D':   /* Linux writes a secure erase as DE */
        s += *s == 'E';
        out->op = TIN_TRIM;
        break;
    case 'E': out->op = TIN_TRIM; break;
    case 'F': out->op = TIN_FLUSH; break;
    case 'N': out->none = true; break;
    default: return false;
    }
    for (; *s; s++) {
        if (*s == 'F') {
            out->fua = true;
        } else if (*s == 'S') {
            out->sync = true;
        } else if (*s != 'M' && *s != 'A') {
            return false;
        }
    }
    return true;
}

/* "sector + nsectors" from f[0..2] (n of them), in bytes; absent: 0 and 0. */
static enum line_kind parse_extent(struct parse *p, char **f, int n, struct tin_record *rec)
{
    uint64_t sector, count;
    rec->offset = rec->length = 0;
    if (n == 0 || f[0][0] == '[') {
        return LINE_RECORD;
    }
    if (n < 3 || strcmp(f[1], "+") != 0) {
        return parse_bad(p, "want 'sector + nsectors' after RWBS");
    }
    if (!fields_u64(f[0], &sector) || !fields_u64(f[2], &count)) {
        return parse_bad(p, "'%.32s + %.32s' is not sector + nsectors", f[0], f[2]);
    }
    if (!tin_byte_range(sector, count, p->sector, &rec->offset, &rec->length)) {
        return parse_bad(p, "sector + nsectors is beyond 2^64 bytes");
    }
    return LINE_RECORD;
}

enum line_kind blkparse_parse(struct parse *p, char *line, struct tin_record *rec)
{
    char *f[12];
    int n = fields_split(line, ' ', f, 11);
    const char *want = p->opt->complete_events ? "C" : "Q";
    struct rwbs rwbs;

    if (n < 7 || !is_device(f[0]) || strcmp(f[5], want) != 0) {
        return LINE_OTHER;  /* not an event, or another action */
    }
    if (!fields_decimal_ns(f[3], 1000000000, &rec->time_ns)) {
        return parse_bad(p, "time '%.32s' is not seconds.nanoseconds", f[3]);
    }
    if (!parse_rwbs(f[6], &rwbs)) {
        return parse_bad(p, "RWBS '%.32s' is not R, W, D, F or N with F, S, M, A flags",
                         f[6]);
    }
    if (rwbs.none && !rwbs.preflush) {
        return LINE_OTHER;
    }
    if (rwbs.none) {
        rwbs.op = TIN_FLUSH;    /* FN: the preflush of an op with no data is still a flush */
    }
    if (parse_extent(p, f + 7, n > 11 ? 4 : n - 7, rec) != LINE_RECORD) {
        return LINE_BAD;
    }
    rec->timed = true;
    rec->op = rwbs.op;
    rec->fua = rwbs.fua;
    rec->sync = rwbs.sync;
    if (rwbs.op == TIN_FLUSH) {
        rec->offset = rec->length = 0;
    } else if (rwbs.preflush) {
        /* the flush first; the data part, if any, on the next call */
        if (rec->length > 0) {
            p->next = *rec;
            p->pending = true;
        }
        rec->op = TIN_FLUSH;
        rec->offset = rec->length = 0;
        rec->fua = false;
    }
    return LINE_RECORD;
}
