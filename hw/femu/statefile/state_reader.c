/*
 * Reading state files (state_file.h). Opening scans the whole file once: every section's
 * header must lie inside the file, its payload must match its CRC, and the end record
 * must hold the CRC of everything before it and be the last thing in the file. Only then
 * is the reader handed out, with an index of the sections; reads afterwards are bounded
 * by the current section.
 */
#include "state_file.h"
#include "state_file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_BUF_BYTES (256u * 1024)

struct section_entry {
    uint32_t tag;
    uint64_t offset;    /* of the payload */
    uint64_t len;
};

struct state_reader {
    int fd;
    char *path;
    struct section_entry *sections;
    size_t nsections, cap;
    uint64_t cur, cur_end;  /* the current section's next byte and its end */
    char *meta;             /* the META payload, NUL-terminated, or NULL */
};

/* Exactly len bytes at offset; -1 with errno set (0 for end of file). */
static int read_at(int fd, void *buf, size_t len, uint64_t offset)
{
    unsigned char *p = buf;
    while (len) {
        ssize_t n = pread(fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = 0;
            }
            return -1;
        }
        p += n;
        offset += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

static int add_section(struct state_reader *r, uint32_t tag, uint64_t offset, uint64_t len)
{
    if (r->nsections == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        struct section_entry *s = realloc(r->sections, cap * sizeof(*s));
        if (!s) {
            return -1;
        }
        r->sections = s;
        r->cap = cap;
    }
    r->sections[r->nsections++] = (struct section_entry){ tag, offset, len };
    return 0;
}

/* A section's payload: its CRC, and the file's running CRC over it. */
static int crc_payload(int fd, unsigned char *buf, uint64_t offset, uint64_t len,
                       uint32_t *crc, uint32_t *file_crc)
{
    uint32_t c = 0, f = *file_crc;
    while (len) {
        size_t n = len < SCAN_BUF_BYTES ? (size_t)len : SCAN_BUF_BYTES;
        if (read_at(fd, buf, n, offset)) {
            return -1;
        }
        c = state_crc32c(c, buf, n);
        f = state_crc32c(f, buf, n);
        offset += n;
        len -= n;
    }
    *crc = c;
    *file_crc = f;
    return 0;
}

static int read_error(const struct state_reader *r, char *err, size_t errlen)
{
    if (errno == 0) {
        snprintf(err, errlen, "%s: truncated", r->path);
    } else {
        snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
    }
    return -1;
}

/* The file header: magic, version, header size, reserved. */
static int scan_header(struct state_reader *r, uint64_t size, uint32_t *file_crc,
                       char *err, size_t errlen)
{
    unsigned char h[STATE_HEADER_BYTES];
    size_t have = size < sizeof(h) ? (size_t)size : sizeof(h);
    if (size == 0) {
        snprintf(err, errlen, "%s: empty file, not a femu state file", r->path);
        return -1;
    }
    if (read_at(r->fd, h, have, 0)) {
        return read_error(r, err, errlen);
    }
    size_t magic = have < 8 ? have : 8;
    if (memcmp(h, STATE_MAGIC, magic) != 0) {
        snprintf(err, errlen, "%s: not a femu state file", r->path);
        return -1;
    }
    if (have < sizeof(h)) {
        snprintf(err, errlen, "%s: truncated (%llu bytes, shorter than the header)", r->path,
                 (unsigned long long)size);
        return -1;
    }
    uint32_t version = state_get_le32(h + 8);
    if (version != STATE_FILE_VERSION) {
        snprintf(err, errlen, "%s: state format version %u, this femu reads version %u",
                 r->path, version, STATE_FILE_VERSION);
        return -1;
    }
    if (state_get_le32(h + 12) != STATE_HEADER_BYTES || state_get_le64(h + 16) != 0) {
        snprintf(err, errlen, "%s: corrupt (file header)", r->path);
        return -1;
    }
    *file_crc = state_crc32c(0, h, sizeof(h));
    return 0;
}

/* Every section up to and including the end record. */
static int scan_sections(struct state_reader *r, uint64_t size, uint32_t file_crc,
                         unsigned char *buf, char *err, size_t errlen)
{
    char name[5];
    for (uint64_t at = STATE_HEADER_BYTES;;) {
        unsigned char h[STATE_SECTION_HEADER_BYTES], c[4];
        if (size - at < sizeof(h)) {
            snprintf(err, errlen, "%s: truncated (no end record)", r->path);
            return -1;
        }
        if (read_at(r->fd, h, sizeof(h), at)) {
            return read_error(r, err, errlen);
        }
        uint32_t tag = state_get_le32(h);
        uint64_t len = state_get_le64(h + 8);
        uint64_t payload = at + sizeof(h);
        state_tag_name(tag, name);
        if (state_get_le32(h + 4) != 0) {
            snprintf(err, errlen, "%s: corrupt (section %s: header)", r->path, name);
            return -1;
        }
        if (len > size - payload || size - payload - len < 4) {
            snprintf(err, errlen, "%s: truncated (section %s: %llu bytes, the file ends "
                     "before)", r->path, name, (unsigned long long)len);
            return -1;
        }
        uint32_t before = file_crc, crc;
        file_crc = state_crc32c(file_crc, h, sizeof(h));
        if (crc_payload(r->fd, buf, payload, len, &crc, &file_crc) ||
            read_at(r->fd, c, 4, payload + len)) {
            return read_error(r, err, errlen);
        }
        if (state_get_le32(c) != crc) {
            snprintf(err, errlen, "%s: corrupt (section %s: CRC mismatch)", r->path, name);
            return -1;
        }
        file_crc = state_crc32c(file_crc, c, 4);
        at = payload + len + 4;
        if (tag == STATE_TAG_END) {
            unsigned char v[4];
            if (len != 4 || read_at(r->fd, v, 4, payload)) {
                snprintf(err, errlen, "%s: corrupt (end record)", r->path);
                return -1;
            }
            if (state_get_le32(v) != before) {
                snprintf(err, errlen, "%s: corrupt (end record: file CRC mismatch)", r->path);
                return -1;
            }
            if (at != size) {
                snprintf(err, errlen, "%s: corrupt (%llu bytes after the end record)",
                         r->path, (unsigned long long)(size - at));
                return -1;
            }
            return 0;
        }
        if (add_section(r, tag, payload, len)) {
            snprintf(err, errlen, "%s: out of memory", r->path);
            return -1;
        }
    }
}

static const struct section_entry *find_section(const struct state_reader *r, uint32_t tag)
{
    for (size_t i = 0; i < r->nsections; i++) {
        if (r->sections[i].tag == tag) {
            return &r->sections[i];
        }
    }
    return NULL;
}

/* META is small text: kept in memory for state_reader_meta. */
static int load_meta(struct state_reader *r, char *err, size_t errlen)
{
    const struct section_entry *s = find_section(r, STATE_TAG_META);
    if (!s) {
        return 0;
    }
    if (s->len > (1u << 20)) {
        snprintf(err, errlen, "%s: corrupt (section META: %llu bytes)", r->path,
                 (unsigned long long)s->len);
        return -1;
    }
    r->meta = malloc((size_t)s->len + 1);
    if (!r->meta) {
        snprintf(err, errlen, "%s: out of memory", r->path);
        return -1;
    }
    if (read_at(r->fd, r->meta, (size_t)s->len, s->offset)) {
        return read_error(r, err, errlen);
    }
    r->meta[s->len] = '\0';
    return 0;
}

struct state_reader *state_reader_open(const char *path, char *err, size_t errlen)
{
    struct state_reader *r = calloc(1, sizeof(*r));
    unsigned char *buf = malloc(SCAN_BUF_BYTES);
    if (!r || !buf || !(r->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        free(buf);
        free(r);
        return NULL;
    }
    r->fd = open(path, O_RDONLY);
    struct stat st;
    int rc = -1;
    uint32_t file_crc = 0;
    if (r->fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    } else if (fstat(r->fd, &st)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a state file", path);
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
    } else if (scan_header(r, (uint64_t)st.st_size, &file_crc, err, errlen) == 0 &&
               scan_sections(r, (uint64_t)st.st_size, file_crc, buf, err, errlen) == 0) {
        rc = load_meta(r, err, errlen);
    }
    free(buf);
    if (rc) {
        state_reader_close(r);
        return NULL;
    }
    return r;
}

void state_reader_close(struct state_reader *r)
{
    if (!r) {
        return;
    }
    if (r->fd >= 0) {
        close(r->fd);
    }
    free(r->sections);
    free(r->meta);
    free(r->path);
    free(r);
}

const char *state_reader_path(const struct state_reader *r)
{
    return r->path;
}

bool state_reader_has(const struct state_reader *r, uint32_t tag, uint64_t *len)
{
    const struct section_entry *s = find_section(r, tag);
    if (s && len) {
        *len = s->len;
    }
    return s != NULL;
}

int state_reader_seek(struct state_reader *r, uint32_t tag, char *err, size_t errlen)
{
    const struct section_entry *s = find_section(r, tag);
    char name[5];
    if (!s) {
        snprintf(err, errlen, "%s: no %s section", r->path, state_tag_name(tag, name));
        return -1;
    }
    r->cur = s->offset;
    r->cur_end = s->offset + s->len;
    return 0;
}

uint64_t state_reader_left(const struct state_reader *r)
{
    return r->cur_end - r->cur;
}

/* The tag of the section the cursor is in, for messages. */
static const char *current_name(const struct state_reader *r, char name[5])
{
    for (size_t i = 0; i < r->nsections; i++) {
        const struct section_entry *s = &r->sections[i];
        if (r->cur_end == s->offset + s->len && r->cur >= s->offset) {
            return state_tag_name(s->tag, name);
        }
    }
    return "none";
}

int state_reader_read(struct state_reader *r, void *buf, uint64_t len, char *err,
                      size_t errlen)
{
    char name[5];
    if (len > state_reader_left(r)) {
        snprintf(err, errlen, "%s: section %s: short", r->path, current_name(r, name));
        return -1;
    }
    unsigned char *p = buf;
    for (uint64_t left = len; left;) {
        size_t n = left > (UINT64_C(1) << 30) ? (size_t)1 << 30 : (size_t)left;
        if (read_at(r->fd, p, n, r->cur)) {
            return read_error(r, err, errlen);
        }
        p += n;
        r->cur += n;
        left -= n;
    }
    return 0;
}

/* ---- sparse sections ---- */

int state_reader_sparse_header(struct state_reader *r, uint64_t *bytes, uint64_t *chunk,
                               char *err, size_t errlen)
{
    unsigned char h[16];
    char name[5];
    if (state_reader_read(r, h, 16, err, errlen)) {
        return -1;
    }
    *bytes = state_get_le64(h);
    *chunk = state_get_le64(h + 8);
    if (*chunk == 0 || (*chunk & (*chunk - 1))) {
        snprintf(err, errlen, "%s: section %s: sparse chunk %llu is not a power of two",
                 r->path, current_name(r, name), (unsigned long long)*chunk);
        return -1;
    }
    return 0;
}

int state_reader_sparse_next(struct state_reader *r, uint64_t bytes, uint64_t *offset,
                             uint64_t *len, char *err, size_t errlen)
{
    unsigned char h[16];
    char name[5];
    if (state_reader_left(r) == 0) {
        return 0;
    }
    if (state_reader_read(r, h, 16, err, errlen)) {
        return -1;
    }
    *offset = state_get_le64(h);
    *len = state_get_le64(h + 8);
    if (*len == 0 || *offset > bytes || *len > bytes - *offset ||
        *len > state_reader_left(r)) {
        snprintf(err, errlen, "%s: section %s: run of %llu bytes at %llu outside the %llu "
                 "bytes of the region", r->path, current_name(r, name),
                 (unsigned long long)*len, (unsigned long long)*offset,
                 (unsigned long long)bytes);
        return -1;
    }
    return 1;
}

int state_reader_sparse(struct state_reader *r, uint32_t tag, void *base, uint64_t bytes,
                        char *err, size_t errlen)
{
    uint64_t total, chunk, offset, len;
    char name[5];
    if (state_reader_seek(r, tag, err, errlen) ||
        state_reader_sparse_header(r, &total, &chunk, err, errlen)) {
        return -1;
    }
    if (total != bytes) {
        snprintf(err, errlen, "%s: section %s: holds %llu bytes, expected %llu", r->path,
                 state_tag_name(tag, name), (unsigned long long)total,
                 (unsigned long long)bytes);
        return -1;
    }
    int rc;
    while ((rc = state_reader_sparse_next(r, bytes, &offset, &len, err, errlen)) == 1) {
        if (state_reader_read(r, (unsigned char *)base + offset, len, err, errlen)) {
            return -1;
        }
    }
    return rc;
}

/* ---- META ---- */

bool state_reader_meta(struct state_reader *r, const char *key, char *buf, size_t buflen)
{
    size_t klen = strlen(key);
    for (const char *line = r->meta; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > klen && strncmp(line, key, klen) == 0 && line[klen] == '=') {
            size_t vlen = n - klen - 1;
            if (buflen) {
                size_t copy = vlen < buflen - 1 ? vlen : buflen - 1;
                memcpy(buf, line + klen + 1, copy);
                buf[copy] = '\0';
            }
            return true;
        }
        line = end ? end + 1 : line + n;
    }
    return false;
}
