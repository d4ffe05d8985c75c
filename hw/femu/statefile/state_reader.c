/*
 * Reading state files (state_file.h). Opening reads the section headers alone (a tag the
 * caller knows, once, inside the file, the end record last), so the scan ends after a few
 * reads whatever the file holds, and verifies META. A payload is read only after its
 * section passed its size limit and its CRC: at the first seek, or for all of them and the
 * end record in state_reader_verify(). Reads are bounded by the current section.
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
    uint64_t max_len;   /* the caller's limit */
    bool verified;      /* within its limit, CRC matched */
};

struct state_reader {
    int fd;
    char *path;
    uint64_t size;
    struct section_entry *sections;
    size_t nsections, cap;
    uint64_t cur, cur_end;  /* the current section's next byte and its end */
    char *meta;             /* the META payload, NUL-terminated, or NULL */
    unsigned char *buf;     /* SCAN_BUF_BYTES for CRCs */
};

static struct section_entry *find_section(const struct state_reader *r, uint32_t tag)
{
    for (size_t i = 0; i < r->nsections; i++) {
        if (r->sections[i].tag == tag) {
            return &r->sections[i];
        }
    }
    return NULL;
}

/* A fuzzing build (tests/fuzz/targets) takes any CRC, so that mutated payloads reach the
 * section loaders; every other build checks them. */
static bool crc_checks_off(void)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    return true;
#else
    return false;
#endif
}

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
static int scan_header(struct state_reader *r, uint64_t size, char *err, size_t errlen)
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
    return 0;
}

/* Limits of tag: META's fixed one, the caller's, or NULL for a tag the caller has not. */
static bool section_limit(const struct state_section_limit *limits, size_t nlimits,
                          uint32_t tag, uint64_t *max_len)
{
    if (tag == STATE_TAG_META) {
        *max_len = STATE_META_MAX_BYTES;
        return true;
    }
    for (size_t i = 0; i < nlimits; i++) {
        if (limits[i].tag == tag) {
            *max_len = limits[i].max_len;
            return true;
        }
    }
    return false;
}

/*
 * Every section header up to the end record, no payload read: known tags, each once, each
 * inside the file. Fills r->sections (at most one entry per limit plus META, so the scan
 * ends after a few reads however the file was made).
 */
static int scan_headers(struct state_reader *r, const struct state_section_limit *limits,
                        size_t nlimits, char *err, size_t errlen)
{
    char name[5];
    uint64_t size = r->size;
    r->cap = nlimits + 1;
    r->sections = calloc(r->cap, sizeof(*r->sections));
    if (!r->sections) {
        snprintf(err, errlen, "%s: out of memory", r->path);
        return -1;
    }
    for (uint64_t at = STATE_HEADER_BYTES;;) {
        unsigned char h[STATE_SECTION_HEADER_BYTES];
        if (size - at < sizeof(h)) {
            snprintf(err, errlen, "%s: truncated (no end record)", r->path);
            return -1;
        }
        if (read_at(r->fd, h, sizeof(h), at)) {
            return read_error(r, err, errlen);
        }
        uint32_t tag = state_get_le32(h);
        uint64_t len = state_get_le64(h + 8), max_len = 4;
        uint64_t payload = at + sizeof(h);
        state_tag_name(tag, name);
        if (state_get_le32(h + 4) != 0) {
            snprintf(err, errlen, "%s: corrupt (section %s: header)", r->path, name);
            return -1;
        }
        if (tag != STATE_TAG_END && !section_limit(limits, nlimits, tag, &max_len)) {
            snprintf(err, errlen, "%s: corrupt (section %s: not a section of this "
                     "configuration's state)", r->path, name);
            return -1;
        }
        if (find_section(r, tag)) {
            snprintf(err, errlen, "%s: corrupt (section %s twice)", r->path, name);
            return -1;
        }
        if (len > size - payload || size - payload - len < 4) {
            snprintf(err, errlen, "%s: truncated (section %s: %llu bytes, the file ends "
                     "before)", r->path, name, (unsigned long long)len);
            return -1;
        }
        at = payload + len + 4;
        if (tag == STATE_TAG_END) {
            if (len != 4) {
                snprintf(err, errlen, "%s: corrupt (end record)", r->path);
                return -1;
            }
            if (at != size) {
                snprintf(err, errlen, "%s: corrupt (%llu bytes after the end record)",
                         r->path, (unsigned long long)(size - at));
                return -1;
            }
            return 0;
        }
        r->sections[r->nsections++] =
            (struct section_entry){ tag, payload, len, max_len, false };
    }
}

/* A section's size against its limit (before a byte of it is read), then its CRC. */
static int verify_section(struct state_reader *r, struct section_entry *s, uint32_t *file_crc,
                          char *err, size_t errlen)
{
    char name[5];
    unsigned char c[4];
    uint32_t crc, unused = 0;
    state_tag_name(s->tag, name);
    if (s->len > s->max_len) {
        snprintf(err, errlen, "%s: corrupt (section %s: %llu bytes, this configuration's "
                 "state has at most %llu)", r->path, name, (unsigned long long)s->len,
                 (unsigned long long)s->max_len);
        return -1;
    }
    if (crc_payload(r->fd, r->buf, s->offset, s->len, &crc, file_crc ? file_crc : &unused) ||
        read_at(r->fd, c, 4, s->offset + s->len)) {
        return read_error(r, err, errlen);
    }
    if (state_get_le32(c) != crc && !crc_checks_off()) {
        snprintf(err, errlen, "%s: corrupt (section %s: CRC mismatch)", r->path, name);
        return -1;
    }
    if (file_crc) {
        *file_crc = state_crc32c(*file_crc, c, 4);
    }
    s->verified = true;
    return 0;
}

int state_reader_verify(struct state_reader *r, char *err, size_t errlen)
{
    unsigned char h[STATE_HEADER_BYTES];
    if (read_at(r->fd, h, sizeof(h), 0)) {
        return read_error(r, err, errlen);
    }
    uint32_t file_crc = state_crc32c(0, h, sizeof(h));
    for (size_t i = 0; i < r->nsections; i++) {
        struct section_entry *s = &r->sections[i];
        unsigned char sh[STATE_SECTION_HEADER_BYTES];
        if (read_at(r->fd, sh, sizeof(sh), s->offset - sizeof(sh))) {
            return read_error(r, err, errlen);
        }
        file_crc = state_crc32c(file_crc, sh, sizeof(sh));
        if (verify_section(r, s, &file_crc, err, errlen)) {
            return -1;
        }
    }
    /* the end record: header, 4-byte payload (file_crc), its CRC */
    unsigned char end[STATE_SECTION_HEADER_BYTES + 8];
    if (read_at(r->fd, end, sizeof(end), r->size - sizeof(end))) {
        return read_error(r, err, errlen);
    }
    if (crc_checks_off()) {
        return 0;
    }
    if (state_get_le32(end + STATE_SECTION_HEADER_BYTES + 4) !=
        state_crc32c(0, end + STATE_SECTION_HEADER_BYTES, 4)) {
        snprintf(err, errlen, "%s: corrupt (section END : CRC mismatch)", r->path);
        return -1;
    }
    if (state_get_le32(end + STATE_SECTION_HEADER_BYTES) != file_crc) {
        snprintf(err, errlen, "%s: corrupt (end record: file CRC mismatch)", r->path);
        return -1;
    }
    return 0;
}

/* META is small text: kept in memory for state_reader_meta. */
static int load_meta(struct state_reader *r, char *err, size_t errlen)
{
    struct section_entry *s = find_section(r, STATE_TAG_META);
    if (!s) {
        return 0;
    }
    if (verify_section(r, s, NULL, err, errlen)) {
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

struct state_reader *state_reader_open(const char *path,
                                       const struct state_section_limit *limits,
                                       size_t nlimits, char *err, size_t errlen)
{
    struct state_reader *r = calloc(1, sizeof(*r));
    if (!r || !(r->buf = malloc(SCAN_BUF_BYTES)) || !(r->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        if (r) {
            free(r->buf);
        }
        free(r);
        return NULL;
    }
    r->fd = open(path, O_RDONLY);
    struct stat st;
    int rc = -1;
    if (r->fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    } else if (fstat(r->fd, &st)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a state file", path);
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
    } else if ((r->size = (uint64_t)st.st_size,
                scan_header(r, r->size, err, errlen) == 0) &&
               scan_headers(r, limits, nlimits, err, errlen) == 0) {
        rc = load_meta(r, err, errlen);
    }
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
    free(r->buf);
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
    struct section_entry *s = find_section(r, tag);
    char name[5];
    if (!s) {
        snprintf(err, errlen, "%s: no %s section", r->path, state_tag_name(tag, name));
        return -1;
    }
    if (!s->verified && verify_section(r, s, NULL, err, errlen)) {
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

uint64_t state_sparse_max_len(uint64_t bytes, uint64_t min_chunk)
{
    min_chunk = min_chunk ? min_chunk : 1;
    uint64_t chunks = bytes / min_chunk + (bytes % min_chunk != 0);
    uint64_t max = 16;
    if (chunks > (UINT64_MAX - max) / 16 || bytes > UINT64_MAX - max - 16 * chunks) {
        return UINT64_MAX;
    }
    return max + 16 * chunks + bytes;
}

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
