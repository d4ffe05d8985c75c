/*
 * Writing state files (state_file.h): bytes go through a buffer to a temporary file
 * beside the target, each section's length is patched into its header when the section
 * ends (so a section can be streamed without knowing its size), and commit reads the
 * finished sections back once to compute the end record's whole-file CRC before the
 * rename. The first failure is kept and every later call does nothing, so callers may
 * check only commit's result.
 */
#include "state_file.h"
#include "state_file_io.h"
#include "replace_target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WRITE_BUF_BYTES (256u * 1024)

struct state_writer {
    int fd;
    char *path, *tmp;
    unsigned char *buf;
    size_t buffered;
    uint64_t pos;               /* file offset of the next byte (buffered included) */
    bool in_section;
    uint64_t section_start;     /* offset of the open section's header */
    uint64_t section_len;
    uint32_t section_crc;
    uint32_t section_tag;
    char failure[256];          /* the first failure, "" while none */
};

static int writer_fail(struct state_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int writer_fail(struct state_writer *w, const char *fmt, ...)
{
    if (!w->failure[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->failure, sizeof(w->failure), fmt, ap);
        va_end(ap);
        if (!w->failure[0]) {
            snprintf(w->failure, sizeof(w->failure), "write failed");
        }
    }
    return -1;
}

static int writer_flush(struct state_writer *w)
{
    size_t done = 0;
    uint64_t at = w->pos - w->buffered;
    while (done < w->buffered) {
        ssize_t n = pwrite(w->fd, w->buf + done, w->buffered - done, (off_t)(at + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return writer_fail(w, "%s: %s", w->tmp, n < 0 ? strerror(errno) : "short write");
        }
        done += (size_t)n;
    }
    w->buffered = 0;
    return 0;
}

/* Raw bytes at the end of the file (headers, payload, CRCs). */
static int writer_put(struct state_writer *w, const void *data, uint64_t len)
{
    const unsigned char *p = data;
    if (w->failure[0]) {
        return -1;
    }
    while (len) {
        size_t room = WRITE_BUF_BYTES - w->buffered;
        size_t n = len < room ? (size_t)len : room;
        memcpy(w->buf + w->buffered, p, n);
        w->buffered += n;
        w->pos += n;
        p += n;
        len -= n;
        if (w->buffered == WRITE_BUF_BYTES && writer_flush(w)) {
            return -1;
        }
    }
    return 0;
}

static int put_u32(struct state_writer *w, uint32_t v)
{
    unsigned char b[4];
    state_put_le32(b, v);
    return writer_put(w, b, 4);
}

/* A free temporary name beside path: path.tmp.PID, or path.tmp.PID.N when another
 * writer of this process holds that one. */
static int open_temporary(struct state_writer *w, char *err, size_t errlen)
{
    size_t room = strlen(w->path) + 48;
    w->tmp = malloc(room);
    if (!w->tmp) {
        snprintf(err, errlen, "%s: out of memory", w->path);
        return -1;
    }
    for (unsigned k = 0; k < 1000; k++) {
        if (k == 0) {
            snprintf(w->tmp, room, "%s.tmp.%ld", w->path, (long)getpid());
        } else {
            snprintf(w->tmp, room, "%s.tmp.%ld.%u", w->path, (long)getpid(), k);
        }
        w->fd = open(w->tmp, O_RDWR | O_CREAT | O_EXCL, 0644);
        if (w->fd >= 0) {
            return 0;
        }
        if (errno != EEXIST) {
            break;
        }
    }
    snprintf(err, errlen, "%s: cannot create %s: %s", w->path, w->tmp, strerror(errno));
    return -1;
}

static void writer_free(struct state_writer *w)
{
    free(w->path);
    free(w->tmp);
    free(w->buf);
    free(w);
}

struct state_writer *state_writer_open(const char *path, char *err, size_t errlen)
{
    struct state_writer *w = calloc(1, sizeof(*w));
    if (!w || !(w->path = strdup(path)) || !(w->buf = malloc(WRITE_BUF_BYTES))) {
        snprintf(err, errlen, "%s: out of memory", path);
        if (w) {
            writer_free(w);
        }
        return NULL;
    }
    w->fd = -1;
    if (replace_target_check(path, err, errlen) || open_temporary(w, err, errlen)) {
        writer_free(w);
        return NULL;
    }
    unsigned char header[STATE_HEADER_BYTES] = { 0 };
    memcpy(header, STATE_MAGIC, 8);
    state_put_le32(header + 8, STATE_FILE_VERSION);
    state_put_le32(header + 12, STATE_HEADER_BYTES);
    writer_put(w, header, sizeof(header));
    return w;
}

int state_writer_begin(struct state_writer *w, uint32_t tag)
{
    if (w->failure[0]) {
        return -1;
    }
    if (w->in_section) {
        return writer_fail(w, "%s: section begun inside another", w->path);
    }
    unsigned char header[STATE_SECTION_HEADER_BYTES] = { 0 };
    state_put_le32(header, tag);
    /* the length (bytes 8..15) is patched in by state_writer_end */
    w->section_start = w->pos;
    w->section_len = 0;
    w->section_crc = 0;
    w->section_tag = tag;
    w->in_section = true;
    return writer_put(w, header, sizeof(header));
}

int state_writer_append(struct state_writer *w, const void *data, uint64_t len)
{
    if (w->failure[0]) {
        return -1;
    }
    if (!w->in_section) {
        return writer_fail(w, "%s: data outside a section", w->path);
    }
    /* CRC in pieces below 4 GiB: state_crc32c takes a size_t */
    const unsigned char *p = data;
    for (uint64_t left = len; left;) {
        size_t n = left > (UINT64_C(1) << 30) ? (size_t)1 << 30 : (size_t)left;
        w->section_crc = state_crc32c(w->section_crc, p, n);
        p += n;
        left -= n;
    }
    w->section_len += len;
    return writer_put(w, data, len);
}

int state_writer_end(struct state_writer *w)
{
    if (w->failure[0]) {
        return -1;
    }
    if (!w->in_section) {
        return writer_fail(w, "%s: end of a section never begun", w->path);
    }
    w->in_section = false;
    if (put_u32(w, w->section_crc)) {
        return -1;
    }
    unsigned char len[8];
    state_put_le64(len, w->section_len);
    uint64_t at = w->section_start + 8;
    uint64_t flushed = w->pos - w->buffered;
    if (at >= flushed) {
        memcpy(w->buf + (at - flushed), len, 8);    /* still in the buffer */
        return 0;
    }
    if (at + 8 > flushed && writer_flush(w)) {      /* straddles: flush, then patch */
        return -1;
    }
    if (pwrite(w->fd, len, 8, (off_t)at) != 8) {
        return writer_fail(w, "%s: %s", w->tmp, strerror(errno));
    }
    return 0;
}

int state_writer_section(struct state_writer *w, uint32_t tag, const void *data, uint64_t len)
{
    if (state_writer_begin(w, tag) || state_writer_append(w, data, len)) {
        return -1;
    }
    return state_writer_end(w);
}

/* ---- sparse sections ---- */

static bool chunk_is_zero(const unsigned char *p, uint64_t len)
{
    for (uint64_t i = 0; i < len; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

static int put_run(struct state_writer *w, uint64_t offset, const unsigned char *bytes,
                   uint64_t len)
{
    unsigned char head[16];
    state_put_le64(head, offset);
    state_put_le64(head + 8, len);
    if (state_writer_append(w, head, 16)) {
        return -1;
    }
    return state_writer_append(w, bytes, len);
}

int state_writer_sparse_header(struct state_writer *w, uint64_t bytes, uint64_t chunk)
{
    if (chunk == 0 || (chunk & (chunk - 1))) {
        return writer_fail(w, "%s: sparse chunk %llu is not a power of two", w->path,
                           (unsigned long long)chunk);
    }
    unsigned char head[16];
    state_put_le64(head, bytes);
    state_put_le64(head + 8, chunk);
    return state_writer_append(w, head, 16);
}

int state_writer_sparse_piece(struct state_writer *w, const void *piece, uint64_t offset,
                              uint64_t len, uint64_t chunk)
{
    if (chunk == 0 || (chunk & (chunk - 1))) {
        return writer_fail(w, "%s: sparse chunk %llu is not a power of two", w->path,
                           (unsigned long long)chunk);
    }
    const unsigned char *p = piece;
    uint64_t run_start = 0, i = 0;
    bool in_run = false;
    /* chunks aligned to the region, so pieces cut anywhere store the same chunks */
    while (i < len) {
        uint64_t end = ((offset + i) / chunk + 1) * chunk - offset;
        uint64_t n = (end < len ? end : len) - i;
        bool zero = chunk_is_zero(p + i, n);
        if (!zero && !in_run) {
            run_start = i;
            in_run = true;
        } else if (zero && in_run) {
            if (put_run(w, offset + run_start, p + run_start, i - run_start)) {
                return -1;
            }
            in_run = false;
        }
        i += n;
    }
    if (in_run) {
        return put_run(w, offset + run_start, p + run_start, len - run_start);
    }
    return w->failure[0] ? -1 : 0;
}

int state_writer_sparse(struct state_writer *w, uint32_t tag, const void *base,
                        uint64_t bytes, uint64_t chunk)
{
    if (state_writer_begin(w, tag) || state_writer_sparse_header(w, bytes, chunk) ||
        state_writer_sparse_piece(w, base, 0, bytes, chunk)) {
        return -1;
    }
    return state_writer_end(w);
}

/* ---- finishing ---- */

/* The CRC of every byte written so far, read back from the file. */
static int file_crc(struct state_writer *w, uint32_t *crc)
{
    if (writer_flush(w)) {
        return -1;
    }
    uint32_t c = 0;
    for (uint64_t at = 0; at < w->pos;) {
        size_t want = w->pos - at < WRITE_BUF_BYTES ? (size_t)(w->pos - at) : WRITE_BUF_BYTES;
        ssize_t n = pread(w->fd, w->buf, want, (off_t)at);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return writer_fail(w, "%s: reading back: %s", w->tmp,
                               n < 0 ? strerror(errno) : "short file");
        }
        c = state_crc32c(c, w->buf, (size_t)n);
        at += (uint64_t)n;
    }
    *crc = c;
    return 0;
}

static int sync_directory(struct state_writer *w)
{
    char *dir = strdup(w->path);
    if (!dir) {
        return writer_fail(w, "%s: out of memory", w->path);
    }
    char *slash = strrchr(dir, '/');
    const char *name = ".";
    if (slash) {
        slash[slash == dir ? 1 : 0] = '\0';
        name = dir;
    }
    int fd = open(name, O_RDONLY);
    int rc = 0;
    if (fd >= 0) {
        /* some file systems refuse fsync on a directory: the rename stands anyway */
        if (fsync(fd) && errno != EINVAL && errno != EROFS) {
            rc = writer_fail(w, "%s: syncing its directory: %s", w->path, strerror(errno));
        }
        close(fd);
    }
    free(dir);
    return rc;
}

int state_writer_commit(struct state_writer *w, char *err, size_t errlen)
{
    if (w->in_section) {
        writer_fail(w, "%s: a section was left open", w->path);
    }
    uint32_t crc = 0;
    if (!w->failure[0] && file_crc(w, &crc) == 0) {
        w->in_section = false;
        if (state_writer_begin(w, STATE_TAG_END) == 0) {
            unsigned char b[4];
            state_put_le32(b, crc);
            state_writer_append(w, b, 4);
            state_writer_end(w);
        }
        writer_flush(w);
    }
    if (!w->failure[0] && fsync(w->fd)) {
        writer_fail(w, "%s: %s", w->tmp, strerror(errno));
    }
    if (close(w->fd) && !w->failure[0]) {
        writer_fail(w, "%s: %s", w->tmp, strerror(errno));
    }
    w->fd = -1;
    if (!w->failure[0] && rename(w->tmp, w->path)) {
        writer_fail(w, "%s: cannot rename %s over it: %s", w->path, w->tmp, strerror(errno));
    }
    int rc = 0;
    if (w->failure[0]) {
        unlink(w->tmp);
        snprintf(err, errlen, "%s", w->failure);
        rc = -1;
    } else if (sync_directory(w)) {
        snprintf(err, errlen, "%s", w->failure);
        rc = -1;
    }
    writer_free(w);
    return rc;
}

void state_writer_abort(struct state_writer *w)
{
    if (!w) {
        return;
    }
    if (w->fd >= 0) {
        close(w->fd);
    }
    unlink(w->tmp);
    writer_free(w);
}

const char *state_writer_error(const struct state_writer *w)
{
    return w->failure[0] ? w->failure : NULL;
}

const char *state_tag_name(uint32_t tag, char buf[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(tag >> (8 * i));
        buf[i] = c >= 0x20 && c < 0x7F ? (char)c : '?';
    }
    buf[4] = '\0';
    return buf;
}

int state_writer_meta(struct state_writer *w, const char *producer, bool data_present)
{
    char created[32] = "unknown", text[512];
    time_t now = time(NULL);
    struct tm tm;
    if (now != (time_t)-1 && gmtime_r(&now, &tm)) {
        strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    int n = snprintf(text, sizeof(text), "producer=%s\ndata=%s\ncreated=%s\n", producer,
                     data_present ? "present" : "absent", created);
    if (n < 0 || (size_t)n >= sizeof(text)) {
        return writer_fail(w, "%s: META text too long", w->path);
    }
    return state_writer_section(w, STATE_TAG_META, text, (uint64_t)n);
}
