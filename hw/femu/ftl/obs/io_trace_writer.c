/* Recording a version-2 to -8 I/O trace: see femu_ftl/trace.h. */
#include "femu_ftl/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"

#define NS_PER_S 1000000000ull
#define WRITER_BUFFER (1u << 20)   /* one write(2) per MiB of trace, not per record */

struct io_trace_writer {
    FILE *f;
    char *buffer;
    char *path;
    uint64_t origin_ns;
    uint64_t secsz;         /* bytes per caller sector, a multiple of 512 */
    uint64_t latest_ns;     /* the latest time recorded (advances are relative to it) */
    int version;            /* 2; 3: zone and copy records too; 4: and RUH updates;
                             * 5: and FUA writes and write cache switches;
                             * 6: and the KV stores' commands;
                             * 7: and the commands without FTL work;
                             * 8: and the power management commands */
    bool failed;
};

static uint64_t since_origin(const struct io_trace_writer *w, uint64_t now_ns)
{
    return now_ns > w->origin_ns ? now_ns - w->origin_ns : 0;
}

/* After every record: a failed write is reported once, and recording stops. */
static int check_written(struct io_trace_writer *w, int printed, char *err, size_t errlen)
{
    if (printed >= 0 && !ferror(w->f)) {
        return 0;
    }
    w->failed = true;
    return ftl_error(err, errlen, "%s: write failed: %s", w->path, strerror(errno));
}

struct io_trace_writer *io_trace_writer_open(const char *path, const char *recorder,
                                             uint64_t origin_ns, uint64_t secsz,
                                             char *err, size_t errlen)
{
    return io_trace_writer_open_version(path, recorder, origin_ns, secsz, 2, err, errlen);
}

struct io_trace_writer *io_trace_writer_open_version(const char *path, const char *recorder,
                                                     uint64_t origin_ns, uint64_t secsz,
                                                     int version, char *err, size_t errlen)
{
    if (version < 2 || version > IO_TRACE_VERSION) {
        ftl_error(err, errlen, "trace version %d: this writer writes 2 to %d", version,
                  IO_TRACE_VERSION);
        return NULL;
    }
    if (secsz == 0 || secsz % IO_TRACE_SECTOR) {
        ftl_error(err, errlen, "trace sector size %" PRIu64 " is not a multiple of 512",
                  secsz);
        return NULL;
    }
    struct io_trace_writer *w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path)) || !(w->buffer = malloc(WRITER_BUFFER))) {
        if (w) {
            free(w->path);
        }
        free(w);
        ftl_error(err, errlen, "out of memory");
        return NULL;
    }
    w->f = fopen(path, "w");
    if (!w->f) {
        ftl_error(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(w->buffer);
        free(w->path);
        free(w);
        return NULL;
    }
    setvbuf(w->f, w->buffer, _IOFBF, WRITER_BUFFER);
    w->origin_ns = origin_ns;
    w->secsz = secsz;
    w->latest_ns = origin_ns;
    w->version = version;
    /* Flushed at once, so a full disk or a bad path shows at the start. The line names
     * the header that defines the format (a test checks that the file exists). */
    int printed = fprintf(w->f, "V %d\n# femu I/O trace recorded by %s; format: "
                          "hw/femu/ftl/include/femu_ftl/trace.h\n", version, recorder);
    if (printed < 0 || fflush(w->f) != 0) {
        ftl_error(err, errlen, "%s: write failed: %s", path, strerror(errno));
        w->failed = true;
        io_trace_writer_close(w, origin_ns, NULL, 0);
        return NULL;
    }
    return w;
}

static void note_time(struct io_trace_writer *w, uint64_t now_ns)
{
    if (now_ns > w->latest_ns) {
        w->latest_ns = now_ns;
    }
}

/* " lba nsect" for each range, in trace sectors (ferror() in check_written catches a
 * failure in any piece). */
static void write_ranges(struct io_trace_writer *w, const struct ftl_range *ranges,
                         uint32_t n, uint64_t scale)
{
    for (uint32_t i = 0; i < n; i++) {
        fprintf(w->f, " %" PRIu64 " %" PRIu64, ranges[i].slba * scale, ranges[i].nlb * scale);
    }
}

/* Version 3's records: zone write, append, read and management, and Copy. */
static int write_v3_request(struct io_trace_writer *w, const struct ftl_request *r, uint64_t t,
                            uint64_t scale, uint32_t nsid)
{
    const char *action;

    switch (r->op) {
    case FTL_OP_ZONE_WRITE:
        /* slba is the zone start for an append, admitted or not */
        return fprintf(w->f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n",
                       (r->flags & FTL_REQ_APPEND) ? "ZA" : "ZW", t, r->slba * scale,
                       r->nlb * scale, nsid);
    case FTL_OP_ZONE_READ:
        return fprintf(w->f, "ZR %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n", t,
                       r->slba * scale, r->nlb * scale, nsid);
    case FTL_OP_ZONE_MGMT:
        action = io_trace_zone_action_name(r->zone_action);
        return fprintf(w->f, "ZM %" PRIu64 " %" PRIu32 " %s %" PRIu64 " %d\n", t, nsid,
                       action ? action : "?", r->slba * scale,
                       (r->flags & FTL_REQ_ZONE_ALL) ? 1 : 0);
    case FTL_OP_COPY:
        fprintf(w->f, "C %" PRIu64 " %" PRIu32 " %" PRIu64 " %d", t, nsid, r->slba * scale,
                (r->flags & FTL_REQ_ZONED) ? 1 : 0);
        write_ranges(w, r->ranges, r->nranges, scale);
        fputc('\n', w->f);
        return 0;
    default:
        return 0;
    }
}

static bool is_kv_op(enum ftl_op op)
{
    return op == FTL_OP_KV_STORE || op == FTL_OP_KV_RETRIEVE || op == FTL_OP_KV_DELETE ||
           op == FTL_OP_KV_EXIST || op == FTL_OP_KV_LIST;
}

/* Version 6's records: "K? t nsid key" and each one's own fields (the key's length is
 * 1 to FTL_KV_KEY_MAX: io_trace_write_request checked). */
static int write_kv_request(struct io_trace_writer *w, const struct ftl_request *r, uint64_t t,
                            uint32_t nsid)
{
    static const char names[] = { [FTL_OP_KV_STORE - FTL_OP_KV_STORE] = 'S',
                                  [FTL_OP_KV_RETRIEVE - FTL_OP_KV_STORE] = 'R',
                                  [FTL_OP_KV_DELETE - FTL_OP_KV_STORE] = 'D',
                                  [FTL_OP_KV_EXIST - FTL_OP_KV_STORE] = 'E',
                                  [FTL_OP_KV_LIST - FTL_OP_KV_STORE] = 'L' };
    char hex[2 * FTL_KV_KEY_MAX + 1];
    unsigned len = r->key.len;

    for (unsigned i = 0; i < len; i++) {
        snprintf(hex + 2 * i, 3, "%02x", r->key.bytes[i]);
    }
    hex[2 * len] = '\0';
    fprintf(w->f, "K%c %" PRIu64 " %" PRIu32 " %s", names[r->op - FTL_OP_KV_STORE], t, nsid,
            hex);
    switch (r->op) {
    case FTL_OP_KV_STORE:
        fprintf(w->f, " %" PRIu32 " %" PRIu64 " %u", r->kv_bytes, r->value_tag,
                r->flags & IO_TRACE_KV_FLAGS);
        break;
    case FTL_OP_KV_RETRIEVE:
    case FTL_OP_KV_LIST:
        fprintf(w->f, " %" PRIu32, r->kv_bytes);
        break;
    default:
        break;
    }
    return fputc('\n', w->f) == EOF ? -1 : 0;
}

/* A power command a record can hold: a known action, a state (PS) or table (PA) whose
 * fields fit the record's bounds. Any other the engine refuses, and it changes nothing:
 * it is not recorded. */
static bool power_recordable(const struct ftl_power_cmd *p)
{
    if (!p) {
        return false;
    }
    switch (p->action) {
    case FTL_POWER_SET_STATE:
        return p->ps < FTL_PS_MAX;
    case FTL_POWER_SET_APST:
        for (unsigned i = 0; i < FTL_PS_MAX; i++) {
            if (p->apst[i].itpt_ms > IO_TRACE_MAX_ITPT_MS ||
                (p->apst[i].itpt_ms && p->apst[i].itps >= FTL_PS_MAX)) {
                return false;
            }
        }
        return true;
    case FTL_POWER_GET_STATE:
        return true;
    }
    return false;
}

/* Version 8's records: PS t ps, PG t, PA t apste itpt:itps... (the entries up to the last
 * with an idle time; an entry without one is 0:0, as the engine ignores its target). */
static int write_power_request(struct io_trace_writer *w, const struct ftl_power_cmd *p,
                               uint64_t t)
{
    unsigned n = 0;

    if (p->action == FTL_POWER_SET_STATE) {
        return fprintf(w->f, "PS %" PRIu64 " %" PRIu32 "\n", t, p->ps);
    }
    if (p->action == FTL_POWER_GET_STATE) {
        return fprintf(w->f, "PG %" PRIu64 "\n", t);
    }
    for (unsigned i = 0; i < FTL_PS_MAX; i++) {
        n = p->apst[i].itpt_ms ? i + 1 : n;
    }
    fprintf(w->f, "PA %" PRIu64 " %d", t, p->apst_enabled ? 1 : 0);
    for (unsigned i = 0; i < n; i++) {
        const struct ftl_apst_entry *a = &p->apst[i];
        fprintf(w->f, " %" PRIu64 ":%" PRIu32, a->itpt_ms, a->itpt_ms ? a->itps : 0);
    }
    return fputc('\n', w->f) == EOF ? -1 : 0;
}

static bool is_v3_op(enum ftl_op op)
{
    return op == FTL_OP_ZONE_WRITE || op == FTL_OP_ZONE_READ || op == FTL_OP_ZONE_MGMT ||
           op == FTL_OP_COPY;
}

/* The oldest version that has a record for r: a FUA write's marker and the cache switch
 * came in 5, the KV commands in 6, the commands without FTL work in 7, the power
 * management commands in 8. */
static int version_of_request(const struct ftl_request *r)
{
    if (r->op == FTL_OP_POWER) {
        return 8;
    }
    if (r->op == FTL_OP_ADMIN) {
        return 7;
    }
    if (is_kv_op(r->op) || r->op == FTL_OP_KV_CREATE || r->op == FTL_OP_KV_DESTROY) {
        return 6;
    }
    bool fua = r->op == FTL_OP_WRITE && (r->flags & FTL_REQ_FUA);
    if (fua || r->op == FTL_OP_SET_WRITE_CACHE) {
        return 5;
    }
    return r->op == FTL_OP_RUH_UPDATE ? 4 : is_v3_op(r->op) ? 3 : 2;
}

static const char *needs_what(int version)
{
    return version == 3 ? "a zone or copy command"
           : version == 4 ? "a reclaim unit handle update"
           : version == 5 ? "a FUA write or a write cache switch"
           : version == 6 ? "a key-value command"
           : version == 7 ? "a command without FTL work (N)"
                          : "a power management command (PS, PA, PG)";
}

int io_trace_write_request(struct io_trace_writer *w, const struct ftl_request *r,
                           char *err, size_t errlen)
{
    if (w->failed) {
        return 0;
    }
    int needs = version_of_request(r);
    if (needs > w->version) {
        w->failed = true;
        return ftl_error(err, errlen, "%s: %s needs a version-%d trace "
                         "(io_trace_writer_open_version)", w->path, needs_what(needs), needs);
    }
    if (is_kv_op(r->op) && (r->key.len == 0 || r->key.len > FTL_KV_KEY_MAX)) {
        w->failed = true;
        return ftl_error(err, errlen, "%s: a key-value command with a key of %u bytes has "
                         "no record (1 to %d)", w->path, r->key.len, FTL_KV_KEY_MAX);
    }
    if (r->op == FTL_OP_POWER && !power_recordable(r->power)) {
        return 0;
    }
    uint64_t t = since_origin(w, r->arrival_ns), scale = w->secsz / IO_TRACE_SECTOR;
    uint32_t nsid = r->nsid ? r->nsid : 1;
    int printed = 0;

    note_time(w, r->arrival_ns);
    switch (r->op) {
    case FTL_OP_WRITE:
        printed = fprintf(w->f, "W %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu32
                          "%s\n", t, r->slba * scale, r->nlb * scale, nsid, r->stream,
                          (r->flags & FTL_REQ_FUA) ? " fua" : "");
        break;
    case FTL_OP_SET_WRITE_CACHE:
        printed = fprintf(w->f, "WC %" PRIu64 " %" PRIu32 " %d\n", t, nsid,
                          (r->flags & FTL_REQ_WCE) ? 1 : 0);
        break;
    case FTL_OP_READ:
        printed = fprintf(w->f, "R %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n", t,
                          r->slba * scale, r->nlb * scale, nsid);
        break;
    case FTL_OP_TRIM:
        /* ferror() in check_written catches a failure in any of these pieces. */
        fprintf(w->f, "D %" PRIu64 " %" PRIu32, t, nsid);
        if (r->nranges == 0) {
            fprintf(w->f, " %" PRIu64 " %" PRIu64, r->slba * scale, r->nlb * scale);
        }
        write_ranges(w, r->ranges, r->nranges, scale);
        fputc('\n', w->f);
        break;
    case FTL_OP_FLUSH:
        printed = fprintf(w->f, "F %" PRIu64 " %" PRIu32 "\n", t, nsid);
        break;
    case FTL_OP_VERIFY:
        printed = fprintf(w->f, "Y %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "\n", t,
                          r->slba * scale, r->nlb * scale, nsid);
        break;
    case FTL_OP_FORMAT:
        printed = fprintf(w->f, "X %" PRIu64 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %d\n", t,
                          nsid, r->slba * scale, r->nlb * scale,
                          (r->flags & FTL_REQ_ERASE) ? 1 : 0);
        break;
    case FTL_OP_RUH_UPDATE:
        printed = fprintf(w->f, "U %" PRIu64 " %" PRIu32 " %" PRIu32 "\n", t, nsid,
                          r->stream);
        break;
    case FTL_OP_KV_CREATE:
        printed = fprintf(w->f, "KC %" PRIu64 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64
                          "\n", t, nsid, r->slba * scale, r->nlb * scale, r->kv_capacity);
        break;
    case FTL_OP_KV_DESTROY:
        printed = fprintf(w->f, "KX %" PRIu64 " %" PRIu32 "\n", t, nsid);
        break;
    case FTL_OP_ADMIN:
        printed = fprintf(w->f, "N %" PRIu64 " %" PRIu32 " %s %" PRIu32 " %" PRIu32 "\n", t,
                          nsid, (r->flags & FTL_REQ_IO) ? "io" : "admin", r->data_in,
                          r->data_out);
        break;
    case FTL_OP_POWER:
        printed = write_power_request(w, r->power, t);
        break;
    default:
        printed = is_kv_op(r->op) ? write_kv_request(w, r, t, nsid)
                                  : write_v3_request(w, r, t, scale, nsid);
        break;
    }
    return check_written(w, printed, err, errlen);
}

int io_trace_write_phase(struct io_trace_writer *w, uint64_t now_ns, const char *name,
                         char *err, size_t errlen)
{
    if (w->failed) {
        return 0;
    }
    char clean[IO_TRACE_MAX_PHASE + 1];
    size_t n = 0;

    /* One field: a blank, '#' or control character in a name becomes '_'. */
    for (; name[n] && n < IO_TRACE_MAX_PHASE; n++) {
        unsigned char c = (unsigned char)name[n];
        clean[n] = c <= ' ' || c == '#' || c == 0x7f ? '_' : (char)c;
    }
    clean[n] = '\0';
    note_time(w, now_ns);
    int printed = fprintf(w->f, "P %" PRIu64 " %s\n", since_origin(w, now_ns),
                          n ? clean : "_");
    return check_written(w, printed, err, errlen);
}

int io_trace_write_advance(struct io_trace_writer *w, uint64_t now_ns, char *err,
                           size_t errlen)
{
    if (w->failed ||
        since_origin(w, now_ns) / NS_PER_S <= since_origin(w, w->latest_ns) / NS_PER_S) {
        return 0;   /* no statistics row ends between the last record and now */
    }
    note_time(w, now_ns);
    int printed = fprintf(w->f, "A %" PRIu64 "\n", since_origin(w, now_ns));
    return check_written(w, printed, err, errlen);
}

int io_trace_writer_close(struct io_trace_writer *w, uint64_t end_ns, char *err,
                          size_t errlen)
{
    if (!w) {
        return 0;
    }
    int rc = 0;
    if (!w->failed) {
        int printed = fprintf(w->f, "E %" PRIu64 "\n", since_origin(w, end_ns));
        rc = check_written(w, printed, err, errlen);
    }
    if (fclose(w->f) != 0 && rc == 0 && !w->failed) {
        rc = ftl_error(err, errlen, "%s: write failed: %s", w->path, strerror(errno));
    }
    free(w->buffer);
    free(w->path);
    free(w);
    return rc;
}
